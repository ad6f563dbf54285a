package io.rc10k.mashup.internal.observability;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;

/**
 * The live view: {@code GET /dashboard}, one static page from the jar that polls
 * {@code GET /dashboard/data} ({@link DashboardData}) once a second. The standalone server serves both
 * on its admin port only; a WAR maps them when asked to ({@code rc10k.dashboard}).
 *
 * <p>The page's script and style are inline, and its {@code Content-Security-Policy} allows exactly
 * those two (by their SHA-256) and requests to its own origin: nothing else loads or runs, so the page
 * reaches no other host whatever an edit to it tries. Both answers say {@code nosniff} and turn every
 * powerful browser feature off ({@link #PERMISSIONS_POLICY}).</p>
 */
public final class DashboardServlets {
    public static final String PAGE = "/dashboard";
    public static final String DATA = "/dashboard/data";
    public static final List<String> PATHS = List.of(PAGE, DATA);
    /**
     * Every powerful browser feature off, for the page and anything it could embed: it draws numbers and needs
     * none of them. Only features browsers know (an unknown name is a console warning).
     */
    public static final String PERMISSIONS_POLICY = "accelerometer=(), autoplay=(), bluetooth=(), camera=(), "
            + "clipboard-read=(), clipboard-write=(), display-capture=(), encrypted-media=(), fullscreen=(), "
            + "geolocation=(), gyroscope=(), hid=(), idle-detection=(), magnetometer=(), microphone=(), midi=(), "
            + "payment=(), picture-in-picture=(), publickey-credentials-get=(), screen-wake-lock=(), serial=(), "
            + "sync-xhr=(), usb=(), web-share=(), xr-spatial-tracking=()";
    static final String RESOURCE = "dashboard.html";

    private DashboardServlets() {
    }

    public static boolean isDashboardPath(String pathInContext) {
        return PATHS.contains(pathInContext);
    }

    /** {@code GET /dashboard}: the page, read once from the class path. */
    public static final class Page extends HttpServlet {
        private final byte[] body;
        private final String policy;

        public Page() {
            try (InputStream in = DashboardServlets.class.getResourceAsStream(RESOURCE)) {
                if (in == null) {
                    throw new IllegalStateException(RESOURCE + " is missing from the class path beside "
                            + DashboardServlets.class.getName());
                }
                body = in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(RESOURCE, e);
            }
            String html = new String(body, StandardCharsets.UTF_8);
            policy = "default-src 'none'; script-src " + hash(inline(html, "script")) + "; style-src "
                    + hash(inline(html, "style")) + "; connect-src 'self'; img-src data:; base-uri 'none'; "
                    + "form-action 'none'; frame-ancestors 'none'";
        }

        /** The Content-Security-Policy the page is served with. */
        public String policy() {
            return policy;
        }

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/html; charset=utf-8");
            response.setHeader("Content-Security-Policy", policy);
            response.setHeader("Cache-Control", "no-cache");
            response.setHeader("X-Content-Type-Options", "nosniff");
            response.setHeader("Permissions-Policy", PERMISSIONS_POLICY);
            response.setHeader("Referrer-Policy", "no-referrer");
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
        }

        /** The text of the page's one {@code <tag>} element, exactly as the browser hashes it. */
        static String inline(String html, String tag) {
            int start = html.indexOf("<" + tag + ">");
            int end = html.indexOf("</" + tag + ">");
            if (start < 0 || end < start || html.indexOf("<" + tag, start + 1) >= 0) {
                throw new IllegalStateException(RESOURCE + " must hold exactly one <" + tag + "> element, "
                        + "without attributes");
            }
            return html.substring(start + tag.length() + 2, end);
        }

        private static String hash(String text) {
            try {
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
                return "'sha256-" + Base64.getEncoder().encodeToString(digest) + "'";
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every JDK has SHA-256", e);
            }
        }
    }

    /** {@code GET /dashboard/data}: {@link DashboardData} as JSON, never cached. */
    public static final class Data extends HttpServlet {
        private final transient DashboardData data;

        public Data(DashboardData data) {
            this.data = data;
        }

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            byte[] body = data.json().getBytes(StandardCharsets.UTF_8);
            response.setContentType("application/json");
            response.setHeader("Cache-Control", "no-store");
            response.setHeader("X-Content-Type-Options", "nosniff");
            response.setHeader("Permissions-Policy", PERMISSIONS_POLICY);
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
        }
    }
}
