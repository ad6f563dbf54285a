package io.rc10k.mashup.internal.observability;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /metrics} (Prometheus text) and the health views {@code /health/live},
 * {@code /health/ready} and {@code /health} (the readiness view, kept for existing checks): never
 * shed, never blocked by mashups, never refused by a graceful stop.
 */
public final class SmallServlets {
    public static final String METRICS = "/metrics";
    public static final String HEALTH = "/health";
    public static final String LIVE = "/health/live";
    public static final String READY = "/health/ready";
    /** Every path these servlets serve: what the admin connector answers and admission lets pass. */
    public static final List<String> PATHS = List.of(METRICS, HEALTH, LIVE, READY);

    private SmallServlets() {
    }

    public static boolean isObservabilityPath(String pathInContext) {
        return PATHS.contains(pathInContext);
    }

    public static final class Metrics extends HttpServlet {
        private final transient MashupMetrics metrics;

        public Metrics(MashupMetrics metrics) {
            this.metrics = metrics;
        }

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            byte[] body = metrics.scrape().getBytes(StandardCharsets.UTF_8);
            response.setContentType("text/plain; version=0.0.4; charset=utf-8");
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
        }
    }

    /**
     * One health view. Liveness answers 200 whenever the process serves a request, whatever the
     * readiness; readiness answers 200 only when {@link Readiness#isReady()}, else 503 with the state
     * as {@code error} and why in {@code detail}. Bodies, e.g.:
     * <pre>
     * 200 {"status":"up","state":"ready","mode":"async","executor":"mashup","version":"0.1.0"}
     * 503 {"status":"down","state":"draining","error":"draining","detail":"the server is stopping: …",
     *      "mode":"async","executor":"mashup","version":"0.1.0"}
     * </pre>
     */
    public static final class Health extends HttpServlet {
        private final transient Readiness readiness;
        private final boolean liveness;
        private final Map<Readiness.State, byte[]> bodies = new EnumMap<>(Readiness.State.class);

        /**
         * @param liveness true for {@code /health/live}, false for the readiness views
         * @param executor the pool the server runs on, named for operators
         * @param version  the server's version, so that a probe tells which build answers (during a rolling
         *                 update, for one)
         */
        public Health(Readiness readiness, boolean liveness, String mode, String executor, String version) {
            this.readiness = readiness;
            this.liveness = liveness;
            String tail = ",\"mode\":\"" + escape(mode) + "\",\"executor\":\"" + escape(executor)
                    + "\",\"version\":\"" + escape(version) + "\"}";
            for (Readiness.State state : Readiness.State.values()) {
                String body = up(state)
                        ? "{\"status\":\"up\",\"state\":\"" + state.label() + "\"" + tail
                        : "{\"status\":\"down\",\"state\":\"" + state.label() + "\",\"error\":\"" + state.label()
                                + "\",\"detail\":\"" + escape(state.detail()) + "\"" + tail;
                bodies.put(state, body.getBytes(StandardCharsets.UTF_8));
            }
        }

        private boolean up(Readiness.State state) {
            return liveness || state == Readiness.State.READY;
        }

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            Readiness.State state = readiness.state();
            byte[] body = bodies.get(state);
            response.setStatus(up(state) ? 200 : 503);
            response.setHeader("Cache-Control", "no-store");
            response.setContentType("application/json");
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
        }

        private static String escape(String text) {
            return text.replace("\\", "\\\\").replace("\"", "\\\"");
        }
    }
}
