package io.rc10k.benchmarks.capacity;

import io.rc10k.harness.Prometheus;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A mashup server's own counts, as the capacity experiments read them from its {@code /metrics} (on the admin
 * port, outside the connection limit the experiment fills).
 *
 * <pre>{@code
 * ServerCounts counts = new ServerCounts(probe, URI.create("http://127.0.0.1:" + adminPort + "/metrics"));
 * counts.awaitIdle("the warm-up");
 * System.out.println(counts.outcomes());
 * }</pre>
 */
final class ServerCounts {
    private static final long POLL_MILLIS = 50;

    private final HttpClient probe;
    private final URI metrics;

    ServerCounts(HttpClient probe, URI metrics) {
        this.probe = probe;
        this.metrics = metrics;
    }

    /** The server's Prometheus text as {@code name{labels}} → value (comments skipped). */
    Map<String, Double> scrape() throws Exception {
        HttpResponse<String> response = probe.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (response.statusCode() != 200) {
            throw new IOException("GET " + metrics + ": status " + response.statusCode());
        }
        return Prometheus.parse(System.currentTimeMillis(), response.body()).series();
    }

    /** Waits, bounded, until the requests and calls of {@code what} have all ended in the server's own counts. */
    void awaitIdle(String what) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Map<String, Double> m = scrape();
            if (m.getOrDefault("mashup_inbound_inflight", 0.0) == 0
                    && m.getOrDefault("mashup_outbound_inflight", 0.0) == 0) {
                return;
            }
            if (System.nanoTime() > end) {
                throw new IllegalStateException("still in flight 30 s after " + what + ": inbound "
                        + m.get("mashup_inbound_inflight") + ", outbound " + m.get("mashup_outbound_inflight"));
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    /** {@code the server's own counts: …}: every request's and partner call's outcome, as the server counted it. */
    String outcomes() throws Exception {
        return "the server's own counts: " + scrape().entrySet().stream()
                .filter(e -> e.getKey().startsWith("mashup_requests_total")
                        || e.getKey().startsWith("mashup_partner_calls_total"))
                .map(e -> e.getKey() + " " + e.getValue().longValue()).sorted()
                .collect(Collectors.joining(", "));
    }
}
