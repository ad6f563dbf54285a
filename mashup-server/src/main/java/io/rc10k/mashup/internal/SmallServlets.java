package io.rc10k.mashup.internal;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** {@code GET /metrics} (Prometheus text) and {@code GET /health}: never shed, never blocked by mashups. */
public final class SmallServlets {
    private SmallServlets() {
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

    public static final class Health extends HttpServlet {
        private final byte[] body;

        /** @param executor the pool the server runs on, named for operators */
        public Health(String mode, String executor) {
            this.body = ("{\"status\":\"up\",\"mode\":\"" + mode + "\",\"executor\":\""
                    + executor.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}").getBytes(StandardCharsets.UTF_8);
        }

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("application/json");
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
        }
    }
}
