package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.PartnerStubsExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The per-partner circuit breaker against a real stub: it opens, sheds at once, and a probe closes it. */
class CircuitBreakerTest {
    @RegisterExtension
    final PartnerStubsExtension stubs = new PartnerStubsExtension();

    /**
     * Long enough that the calls a test makes while the circuit must be open all arrive within it on a
     * busy machine; the tests that need it over sleep past it (a sleep lasts at least as long as asked).
     */
    private static final Duration COOL_DOWN = Duration.ofSeconds(3);

    private BrokerClient broker;

    @BeforeEach
    void startBroker() throws Exception {
        broker = BrokerClient.builder()
                .partner(Partner.builder("p", stubs.uri().toString()).retries(0)
                        .circuitBreaker(new CircuitBreakerSettings(true, 5, 0.5, 10, 20, COOL_DOWN))
                        .build())
                .build();
        broker.start();
    }

    @AfterEach
    void stopBroker() throws Exception {
        broker.stop();
    }

    private Outcome call(String path) throws Exception {
        return broker.send(Call.to("p").path(path).build()).outcome().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void consecutiveFailuresOpenTheCircuitAndCallsEndAtOnceWithoutReachingThePartner() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertEquals(Outcome.Kind.HTTP_ERROR, call("stub?status=503").kind());
        }
        // The stub counts a request as served when its stream completes, just after the client has it.
        ExchangeTest.awaitCondition(() -> stubs.stats().inFlight() == 0, "the stub's counters never settled");
        long served = stubs.stats().served();
        Exchange shed = broker.send(Call.to("p").path("stub").build());
        assertTrue(shed.isDone(), "an open circuit ends the call before it starts");
        assertEquals(Outcome.Kind.CIRCUIT_OPEN, shed.outcome().toCompletableFuture().get().kind());
        assertEquals(served, stubs.stats().served(), "the partner saw nothing while the circuit was open");
        assertEquals("open", broker.stats("p").circuit());
        assertEquals(1L, broker.stats("p").outcomes().get(Outcome.Kind.CIRCUIT_OPEN));
    }

    @Test
    void aSuccessfulProbeAfterTheCoolDownClosesIt() throws Exception {
        for (int i = 0; i < 5; i++) {
            call("stub?status=500");
        }
        assertEquals(Outcome.Kind.CIRCUIT_OPEN, call("stub").kind());
        Thread.sleep(COOL_DOWN.toMillis() + 100); // past the cool-down: the next call is the probe
        assertEquals(Outcome.Kind.OK, call("stub").kind());
        assertEquals("closed", broker.stats("p").circuit());
        assertEquals(Outcome.Kind.OK, call("stub").kind());
    }

    @Test
    void aFailedProbeOpensItAgain() throws Exception {
        for (int i = 0; i < 5; i++) {
            call("stub?status=502");
        }
        Thread.sleep(COOL_DOWN.toMillis() + 100);
        assertEquals(Outcome.Kind.HTTP_ERROR, call("stub?status=502").kind(), "the probe went through and failed");
        assertEquals("open", broker.stats("p").circuit());
        assertEquals(Outcome.Kind.CIRCUIT_OPEN, call("stub").kind());
    }

    @Test
    void aFailureRatioOpensItEvenWithoutARun() throws Exception {
        // Alternate: failure, success — never 5 in a row, but half of the last 10 fail.
        for (int i = 0; i < 10; i++) {
            call(i % 2 == 0 ? "stub?status=500" : "stub");
        }
        assertEquals("open", broker.stats("p").circuit());
    }

    @Test
    void clientErrorsAreNotThePartnersFault() throws Exception {
        for (int i = 0; i < 20; i++) {
            assertEquals(Outcome.Kind.HTTP_ERROR, call("stub?status=404").kind());
        }
        assertEquals("closed", broker.stats("p").circuit());
    }
}
