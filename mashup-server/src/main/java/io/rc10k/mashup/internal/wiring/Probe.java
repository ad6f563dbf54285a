package io.rc10k.mashup.internal.wiring;

import io.rc10k.harness.BuildVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * {@code --probe URL}: one GET, for a container's health check where there is no curl. Exit status 0 when
 * the answer is 200, 1 otherwise — another status, a redirect (not followed), a refused connection, no
 * answer within {@link #TIMEOUT_MILLIS} — with one line saying what was seen; no server is started.
 *
 * <pre>
 * java -jar mashup-server.jar --probe http://127.0.0.1:8081/health/ready
 * </pre>
 *
 * <p>The JDK's {@link HttpURLConnection}, blocking, on the calling thread: it starts no thread, no pool and
 * no logging, so a probe JVM does as little as it can. It never goes through a proxy, whatever the
 * environment says: a probe asks the server it names.</p>
 */
public final class Probe {
    /** Bound of the connect, and again of the answer's head and body. */
    public static final int TIMEOUT_MILLIS = 5_000;
    /** How much of the answer's body the line quotes. */
    static final int EXCERPT_BYTES = 300;

    private Probe() {
    }

    /** Returns the exit status: 0 for a 200, 1 for anything else. */
    public static int get(URI url, PrintStream out, PrintStream err) {
        HttpURLConnection connection = null;
        try {
            connection = (HttpURLConnection) url.toURL().openConnection(Proxy.NO_PROXY);
            connection.setConnectTimeout(TIMEOUT_MILLIS);
            connection.setReadTimeout(TIMEOUT_MILLIS);
            connection.setInstanceFollowRedirects(false);
            connection.setUseCaches(false);
            connection.setRequestProperty("User-Agent", ServerArguments.NAME + "-probe/" + BuildVersion.version());
            int status = connection.getResponseCode();
            String line = "probe " + url + ": " + status + " " + excerpt(status < 400 ? connection.getInputStream()
                    : connection.getErrorStream());
            if (status == 200) {
                out.println(line.strip());
                return 0;
            }
            err.println("mashup-server: " + line.strip() + (status / 100 == 3 ? " (redirects are not followed)" : ""));
            return 1;
        } catch (IOException e) {
            err.println("mashup-server: probe " + url + ": no answer (" + e + ")");
            return 1;
        } finally {
            if (connection != null) {
                connection.disconnect();
            }
        }
    }

    /** The first bytes of a body, on one line; empty without a body. */
    private static String excerpt(InputStream body) throws IOException {
        if (body == null) {
            return "";
        }
        try (body) {
            byte[] bytes = body.readNBytes(EXCERPT_BYTES + 1);
            String text = new String(bytes, 0, Math.min(bytes.length, EXCERPT_BYTES), StandardCharsets.UTF_8)
                    .replaceAll("[\\p{Cntrl}]+", " ");
            return bytes.length > EXCERPT_BYTES ? text + "…" : text;
        }
    }
}
