package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.CircuitBreakerSettings;
import io.rc10k.broker.Partner;
import io.rc10k.broker.PartnerStats;
import io.rc10k.mashup.internal.observability.MashupMetrics;
import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each partner-stubs fault × each mode: the faulty part carries its error, the other part is intact,
 * the answer comes by the deadline, and afterwards no connection is busy and nothing is in flight.
 */
class FaultMatrixTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * Long enough that the good part (a cold broker's first call in each mode) is answered within it
     * on a busy machine. Every slow fault lasts at least {@link #SLOW_MILLIS}, so an answer well
     * before that was cut at the deadline, not at the end of the slow call.
     */
    private static final long DEADLINE_MILLIS = 3_000;
    private static final long SLOW_MILLIS = 10_000;
    /** fault mashup → the template of its faulty call, and the part error it must show. */
    private static final Map<String, String[]> FAULTS = new LinkedHashMap<>();

    static {
        FAULTS.put("late", new String[] {"bad", "/stub?delay=" + SLOW_MILLIS, "timeout"});
        FAULTS.put("refused", new String[] {"nobody", "/stub", "connect_failed"});
        FAULTS.put("reset", new String[] {"bad", "/stub?fault=reset", "reset"});
        FAULTS.put("closemid", new String[] {"bad", "/stub?fault=close-mid-body&bytes=1000", "reset"});
        FAULTS.put("stallheaders", new String[] {"bad", "/stub?fault=stall-after-headers", "timeout"});
        FAULTS.put("stall", new String[] {"bad", "/stub?fault=stall", "timeout"});
        FAULTS.put("malformed", new String[] {"bad", "/stub?fault=malformed-json", "malformed_json"});
        FAULTS.put("toolarge", new String[] {"bad", "/stub?bytes=100000", "too_large"});
        FAULTS.put("error", new String[] {"bad", "/stub?status=503", "http_error"});
        // 100 writes of 10 bytes, 100 ms apart: the whole body takes SLOW_MILLIS.
        FAULTS.put("drip", new String[] {"bad",
                "/stub?fault=drip&bytes=1000&dripBytes=10&dripMillis=" + SLOW_MILLIS / 100, "timeout"});
    }

    private static PartnerStubs stubs;
    private static Definitions definitions;

    @BeforeAll
    static void start() throws Exception {
        stubs = PartnerStubs.start(StubOptions.builder().maxStallMillis(SLOW_MILLIS).build());
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        Definitions.Builder b = Definitions.builder()
                .partner(Partner.builder("good", stubs.uri().toString()).build())
                // The faults would open the breaker; this matrix wants to see each one every time.
                .partner(Partner.builder("bad", stubs.uri().toString()).retries(0).maxResponseBytes(1024)
                        .circuitBreaker(CircuitBreakerSettings.DISABLED).build())
                .partner(Partner.builder("nobody", "http://127.0.0.1:" + closedPort).retries(0)
                        .circuitBreaker(CircuitBreakerSettings.DISABLED).build());
        for (Map.Entry<String, String[]> fault : FAULTS.entrySet()) {
            b.mashup(MashupDefinition.builder(fault.getKey()).deadline(Duration.ofMillis(DEADLINE_MILLIS))
                    .call("good", "good", "/weather?city=Paris")
                    .call("bad", fault.getValue()[0], fault.getValue()[1])
                    .build());
        }
        definitions = b.build();
    }

    @AfterAll
    static void stop() {
        stubs.close();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void everyFaultIsContainedInItsPart(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            BrokerClient broker = server.server.getBean(BrokerClient.class);
            MashupMetrics metrics = server.server.getBean(MashupMetrics.class);
            for (Map.Entry<String, String[]> fault : FAULTS.entrySet()) {
                String name = fault.getKey();
                ContentResponse response = server.get("/mashup/" + name);
                assertEquals(200, response.getStatus(), name + ": " + response.getContentAsString());
                assertEquals("false", response.getHeaders().get("Mashup-Complete"), name);
                JsonNode body = JSON.readTree(response.getContent());
                assertEquals("Paris", body.at("/parts/good/body/city").asText(), name + ": the good part is intact");
                assertEquals(fault.getValue()[2], body.at("/parts/bad/error").asText(), name);
                long elapsed = body.get("elapsedMillis").asLong();
                // Not a latency target: a bound between the deadline and the slow call's own end.
                assertTrue(elapsed <= DEADLINE_MILLIS + 3_000, name + " answered after " + elapsed
                        + " ms; the deadline is " + DEADLINE_MILLIS + " ms, a slow call " + SLOW_MILLIS + " ms");

                awaitQuiet(broker, metrics, name);
            }
        }
    }

    /** Bounded wait: connections back to their pools or closed, nothing in flight. */
    private static void awaitQuiet(BrokerClient broker, MashupMetrics metrics, String fault)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            boolean quiet = metrics.inboundInFlight() == 0 && broker.exchangesInFlight() == 0;
            for (Partner p : broker.partners()) {
                PartnerStats stats = broker.stats(p.name());
                quiet &= stats.connectionsActive() == 0 && stats.inFlight() == 0;
            }
            if (quiet) {
                return;
            }
            Thread.sleep(10);
        }
        StringBuilder state = new StringBuilder();
        broker.partners().forEach(p -> state.append(broker.stats(p.name())).append(' '));
        throw new AssertionError("after " + fault + ": inbound " + metrics.inboundInFlight() + ", outbound "
                + broker.exchangesInFlight() + ", " + state);
    }
}
