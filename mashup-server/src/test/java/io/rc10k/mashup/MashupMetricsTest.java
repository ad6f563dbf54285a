package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.OperatingSystemMXBean;
import io.rc10k.broker.CircuitBreakerSettings;
import io.rc10k.broker.Partner;
import io.rc10k.mashup.internal.admission.FileBudget;
import io.rc10k.stubs.PartnerStubs;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operators' metrics at {@code /metrics}, scraped over a socket as Prometheus does: circuit state per partner,
 * partner call buckets, the process's CPU time, start time and open files, partner bytes in transit.
 */
class MashupMetricsTest {
    private static final String CIRCUIT = "mashup_partner_circuit_state{partner=\"fragile\"}";
    private static PartnerStubs stubs;

    @BeforeAll
    static void startStubs() {
        stubs = PartnerStubs.start();
    }

    @AfterAll
    static void stopStubs() {
        stubs.close();
    }

    /** One partner whose breaker opens after two failures and may be probed 1 ms later. */
    private static Definitions fragile() throws DefinitionException {
        return Definitions.builder()
                .partner(Partner.builder("fragile", stubs.uri().toString()).retries(0)
                        .circuitBreaker(new CircuitBreakerSettings(true, 2, 1, 100, 100, Duration.ofMillis(1)))
                        .build())
                .partner(Partner.builder("steady", stubs.uri().toString()).build())
                .mashup(MashupDefinition.builder("fragile").deadline(Duration.ofSeconds(15))
                        .parameter(ParameterDefinition.optional("status", "200"))
                        .parameter(ParameterDefinition.optional("ms", "0"))
                        .call("fragile", "fragile", "/stub?status={status}&delay={ms}")
                        .build())
                .build();
    }

    @Test
    void circuitStateGaugeFollowsThePartnersBreakerThroughOpenHalfOpenAndClosed() throws Exception {
        try (TestServer server = TestServer.start(Mode.ASYNC, fragile())) {
            assertEquals(0, sample(server, CIRCUIT), "closed");
            assertEquals("closed", circuit(server, "fragile"));
            assertEquals(0, sample(server, "mashup_partner_circuit_state{partner=\"steady\"}"), "every partner has one");
            assertEquals("closed", circuit(server, "steady"));
            for (int i = 0; i < 2; i++) {
                assertEquals(502, server.get("/mashup/fragile?status=503").getStatus());
            }
            // The breaker records an outcome before the composite is written: no wait needed.
            assertEquals(1, sample(server, CIRCUIT), "open after two failures");
            assertEquals("open", circuit(server, "fragile"));
            assertEquals("closed", circuit(server, "steady"), "one partner's breaker is its own");

            // Past the 1 ms cool-down one call goes through as the probe; held 5 s, it keeps the breaker half-open.
            // A call that came too early ends circuit_open at once: send another.
            CompletableFuture<ContentResponse> probe;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            do {
                probe = new CompletableResponseListener(server.client.newRequest(
                        server.uri.resolve("/mashup/fragile?ms=5000")).timeout(30, TimeUnit.SECONDS)).send();
                while (!probe.isDone() && sample(server, CIRCUIT) != 2 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
            } while (probe.isDone() && System.nanoTime() < deadline);
            assertEquals(2, sample(server, CIRCUIT), "half-open while the probe is in flight");
            assertEquals("half_open", circuit(server, "fragile"));

            assertEquals(200, probe.get(30, TimeUnit.SECONDS).getStatus());
            assertEquals(0, sample(server, CIRCUIT), "closed by the probe's success");
            assertEquals("closed", circuit(server, "fragile"));
        }
    }

    @Test
    void partnerCallTimesFallIntoBucketsFromOneMillisecondToThirtySeconds() throws Exception {
        try (TestServer server = TestServer.start(Mode.ASYNC, fragile())) {
            for (int i = 0; i < 3; i++) {
                assertEquals(200, server.get("/mashup/fragile").getStatus());
            }
            // The stub holds these at least 600 ms: above the 0.5 s boundary whatever the machine's load.
            for (int i = 0; i < 2; i++) {
                assertEquals(200, server.get("/mashup/fragile?ms=600").getStatus());
            }
            // Calls are counted before their composite is written: no wait needed.
            PrometheusText metrics = scrape(server);
            Map<String, Double> buckets = new LinkedHashMap<>();
            for (PrometheusText.Sample s : metrics.samples) {
                if (s.name().equals("mashup_partner_call_seconds_bucket") && "fragile".equals(s.labels().get("partner"))) {
                    assertEquals(Set.of("partner", "le"), s.labels().keySet(), "the labels it had, and le");
                    buckets.put(s.labels().get("le"), s.value());
                }
            }
            assertEquals(List.of("0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1.0",
                    "2.5", "5.0", "10.0", "30.0", "+Inf"), List.copyOf(buckets.keySet()), metrics.text);
            double previous = 0;
            for (Map.Entry<String, Double> bucket : buckets.entrySet()) {
                assertTrue(bucket.getValue() >= previous, "cumulative: " + buckets);
                previous = bucket.getValue();
            }
            assertEquals(5, buckets.get("+Inf"), "every call");
            assertEquals(5, metrics.sum("mashup_partner_call_seconds_count", PrometheusText.label("partner", "fragile")));
            assertEquals(5, buckets.get("30.0"), "every call ended within the mashup's 15 s deadline");
            assertTrue(buckets.get("0.5") <= 3, "the 600 ms calls are above 0.5 s: " + buckets);
            assertTrue(metrics.sum("mashup_partner_call_seconds_sum", PrometheusText.label("partner", "fragile")) >= 1.2,
                    metrics.text);
            assertTrue(metrics.text.contains("# TYPE mashup_partner_call_seconds histogram"), metrics.text);
            assertEquals(0, metrics.sum("mashup_partner_call_seconds_bucket", PrometheusText.label("partner", "steady")),
                    "a partner appears once it was called");
        }
    }

    @Test
    void processCpuSecondsAndStartTimeAreThoseOfTheJvm() throws Exception {
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (TestServer server = TestServer.start(Mode.ASYNC, fragile())) {
            // The server shares this JVM: its CPU time lies between two readings taken around the scrape.
            double before = os.getProcessCpuTime() / 1e9;
            PrometheusText metrics = scrape(server);
            double after = os.getProcessCpuTime() / 1e9;
            double cpu = metrics.value("process_cpu_seconds_total");
            assertTrue(before > 0 && before <= cpu && cpu <= after, before + " <= " + cpu + " <= " + after);
            assertTrue(metrics.text.contains("# TYPE process_cpu_seconds_total counter"), metrics.text);
            assertEquals(ManagementFactory.getRuntimeMXBean().getStartTime() / 1000.0,
                    metrics.value("process_start_time_seconds"), 0.001);
            assertTrue(metrics.value("process_uptime_seconds") > 0);
        }
    }

    @Test
    void openFilesAndTheirLimitAreReported() throws Exception {
        try (TestServer server = TestServer.start(Mode.ASYNC, fragile())) {
            double open = sample(server, "process_files_open_files");
            double max = sample(server, "process_files_max_files");
            assertTrue(open > 0, "open files: " + open);
            assertEquals(FileBudget.processMaxFiles(), (long) max, "the limit the server sized itself by");
            assertTrue(open < max, open + " < " + max);
        }
    }

    @Test
    void bufferedPartnerBytesAndTheirBoundFollowMaxBufferedBytes() throws Exception {
        MashupOptions options = MashupOptions.builder().mode(Mode.ASYNC).maxBufferedBytes(3L << 20).build();
        try (TestServer server = TestServer.start(options, fragile())) {
            assertEquals(200, server.get("/mashup/fragile").getStatus());
            assertEquals(3L << 20, (long) sample(server, "mashup_outbound_buffered_max_bytes"));
            assertEquals(0, sample(server, "mashup_outbound_buffered_bytes"), "nothing held once the call ended");
        }
    }

    /** The state whose series reads 1; fails unless exactly one does and the others read 0. */
    private static String circuit(TestServer server, String partner) throws Exception {
        PrometheusText metrics = scrape(server);
        Map<String, Double> states = new LinkedHashMap<>();
        for (PrometheusText.Sample s : metrics.samples) {
            if (s.name().equals("mashup_partner_circuit") && partner.equals(s.labels().get("partner"))) {
                states.put(s.labels().get("state"), s.value());
            }
        }
        assertEquals(Set.of("closed", "open", "half_open"), states.keySet(), metrics.text);
        List<String> current = states.entrySet().stream().filter(e -> e.getValue() == 1).map(Map.Entry::getKey).toList();
        assertEquals(1, current.size(), states.toString());
        assertEquals(2, states.values().stream().filter(v -> v == 0).count(), states.toString());
        return current.get(0);
    }

    private static PrometheusText scrape(TestServer server) throws Exception {
        ContentResponse response = server.get("/metrics");
        assertEquals(200, response.getStatus());
        return new PrometheusText(response.getContentAsString());
    }

    private static double sample(TestServer server, String series) throws Exception {
        String metrics = server.get("/metrics").getContentAsString();
        for (String line : metrics.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        throw new AssertionError(series + " missing from /metrics");
    }
}
