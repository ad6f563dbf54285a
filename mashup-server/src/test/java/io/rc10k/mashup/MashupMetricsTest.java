package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.broker.Partner;
import io.rc10k.mashup.internal.admission.FileBudget;
import io.rc10k.stubs.PartnerStubs;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The operators' metrics at {@code /metrics}: circuit state per partner, open files, partner bytes in transit. */
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
                        .circuitBreaker(new Partner.CircuitBreakerSettings(true, 2, 1, 100, 100, Duration.ofMillis(1)))
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
            assertEquals(0, sample(server, "mashup_partner_circuit_state{partner=\"steady\"}"), "every partner has one");
            for (int i = 0; i < 2; i++) {
                assertEquals(502, server.get("/mashup/fragile?status=503").getStatus());
            }
            // The breaker records an outcome before the composite is written: no wait needed.
            assertEquals(1, sample(server, CIRCUIT), "open after two failures");

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

            assertEquals(200, probe.get(30, TimeUnit.SECONDS).getStatus());
            assertEquals(0, sample(server, CIRCUIT), "closed by the probe's success");
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
        MashupOptions options = MashupOptions.defaults().withMode(Mode.ASYNC).withMaxBufferedBytes(3L << 20);
        try (TestServer server = TestServer.start(options, fragile())) {
            assertEquals(200, server.get("/mashup/fragile").getStatus());
            assertEquals(3L << 20, (long) sample(server, "mashup_outbound_buffered_max_bytes"));
            assertEquals(0, sample(server, "mashup_outbound_buffered_bytes"), "nothing held once the call ended");
        }
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
