package io.rc10k.benchmarks.load;

import io.rc10k.harness.Prometheus;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;

/**
 * A mashup server's {@code /metrics}, scraped through the load's own client, and the series a soak
 * judges by. A series the checks need must be there: a missing gauge is an error, never a 0 that passes.
 *
 * <pre>{@code
 * ServerMetrics metrics = new ServerMetrics(client, URI.create("http://127.0.0.1:" + adminPort + "/metrics"));
 * Prometheus now = metrics.scrape();
 * double inFlight = ServerMetrics.inbound(now);
 * }</pre>
 */
public final class ServerMetrics {
    /** The live heap after a full GC: G1 leaves every live object in old regions; what the scrape allocates is in eden. */
    static final String LIVE_HEAP = "jvm_memory_used_bytes{area=\"heap\",id=\"G1 Old Gen\"}";
    /** What Micrometer labels a GC that {@code jcmd <pid> GC.run} asked for. */
    private static final String DIAGNOSTIC_GC = "cause=\"Diagnostic Command\"";

    private final HttpClient client;
    private final URI metrics;

    public ServerMetrics(HttpClient client, URI metrics) {
        this.client = client;
        this.metrics = metrics;
    }

    public Prometheus scrape() throws Exception {
        ContentResponse response = client.newRequest(metrics).timeout(10, TimeUnit.SECONDS).send();
        if (response.getStatus() != 200) {
            throw new IOException("GET " + metrics + ": status " + response.getStatus());
        }
        return Prometheus.parse(System.currentTimeMillis(), response.getContentAsString());
    }

    /**
     * A full GC in {@code server} through {@code jcmd GC.run}, confirmed by the server's own GC counter
     * (bounded wait: the counter is raised by a GC notification, just after the collection), then a scrape.
     */
    public Prometheus afterFullGc(MashupProcess server) throws Exception {
        double before = scrape().sum("jvm_gc_pause_seconds_count", DIAGNOSTIC_GC);
        server.gc();
        long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            Prometheus after = scrape();
            if (after.sum("jvm_gc_pause_seconds_count", DIAGNOSTIC_GC) > before) {
                return after;
            }
            if (System.nanoTime() - limit > 0) {
                throw new IOException("jcmd " + server.pid() + " GC.run ran no full GC that the server counted"
                        + " (jvm_gc_pause_seconds_count{" + DIAGNOSTIC_GC + "} stayed at " + before + ")");
            }
            Thread.sleep(50);
        }
    }

    public static double inbound(Prometheus p) {
        return required(p, "mashup_inbound_inflight");
    }

    public static double outbound(Prometheus p) {
        return required(p, "mashup_outbound_inflight");
    }

    /** Open partner connections, summed over partners (the gauge's one label is {@code partner}). */
    public static double connectionsOpen(Prometheus p) {
        if (p.series().keySet().stream().noneMatch(k -> k.startsWith("mashup_outbound_connections{"))) {
            throw new IllegalStateException("no mashup_outbound_connections{partner=…} in /metrics");
        }
        return p.sum("mashup_outbound_connections", "");
    }

    public static double liveHeap(Prometheus p) {
        return required(p, LIVE_HEAP);
    }

    /** Heap used, every pool (eden included). */
    static double heapUsed(Prometheus p) {
        return p.sum("jvm_memory_used_bytes", "area=\"heap\"");
    }

    /** How each series whose key starts with {@code prefix} grew from {@code before} to {@code after}. */
    public static Map<String, Long> growth(Prometheus before, Prometheus after, String prefix) {
        Map<String, Long> growth = new TreeMap<>();
        after.series().forEach((key, value) -> {
            if (key.startsWith(prefix)) {
                long grown = Math.round(value - before.series().getOrDefault(key, 0.0));
                if (grown != 0) {
                    growth.put(key, grown);
                }
            }
        });
        return growth;
    }

    private static double required(Prometheus p, String key) {
        Double value = p.series().get(key);
        if (value == null) {
            throw new IllegalStateException("no " + key + " in /metrics"
                    + (key.equals(LIVE_HEAP) ? " (is the server on G1, the default GC?)" : ""));
        }
        return value;
    }
}
