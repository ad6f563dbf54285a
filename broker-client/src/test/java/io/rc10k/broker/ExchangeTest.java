package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.PartnerStubsExtension;
import io.rc10k.stubs.StubOptions;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** Each partner-stubs fault, over each protocol, ends in its Outcome with its events in order. */
class ExchangeTest {
    @RegisterExtension
    static final PartnerStubsExtension stubs = new PartnerStubsExtension(
            StubOptions.builder().h2c(true).maxStallMillis(15_000).build());
    /**
     * A new broker per test opens its connections anew; 5 s lets a busy machine finish the calls that
     * must end OK, RESET or HTTP_ERROR within it. What must time out (stalls, a 15 s delay) lasts 3x as long.
     */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

    private BrokerClient broker;
    private final RecordingListener recorder = new RecordingListener();
    private int closedPort;

    @BeforeEach
    void startBroker() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        broker = BrokerClient.builder()
                .partner(partner("h1", Protocol.HTTP_1_1).build())
                .partner(partner("h2c", Protocol.H2C).build())
                .partner(Partner.builder("nobody", "http://127.0.0.1:" + closedPort).retries(2).build())
                .partner(partner("small", Protocol.HTTP_1_1).maxResponseBytes(1024).build())
                .partner(partner("h2c-small", Protocol.H2C).maxResponseBytes(1024).build())
                .partner(partner("noretry", Protocol.HTTP_1_1).retries(0).build())
                .build();
        broker.start();
    }

    private static Partner.Builder partner(String name, Protocol protocol) {
        return Partner.builder(name, stubs.uri().toString()).protocol(protocol).callTimeout(CALL_TIMEOUT);
    }

    @AfterEach
    void stopBroker() throws Exception {
        broker.stop();
    }

    private Outcome call(String partner, String method, String path) throws Exception {
        Exchange exchange = broker.send(Call.to(partner).method(method).path(path).listener(recorder).build());
        Outcome outcome = exchange.outcome().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertNull(recorder.violation(exchange));
        return outcome;
    }

    @ParameterizedTest(name = "{0} over {1}")
    @CsvSource({
        "stub,                                      h1,  OK",
        "stub?status=503,                           h1,  HTTP_ERROR",
        "stub?fault=reset,                          h1,  RESET",
        "stub?fault=close-mid-body&bytes=100000,    h1,  RESET",
        "stub?fault=stall-after-headers,            h1,  TIMEOUT",
        "stub?fault=stall,                          h1,  TIMEOUT",
        "stub?fault=malformed-json,                 h1,  OK",
        "stub?fault=drip&bytes=64,                  h1,  OK",
        "stub?delay=15000,                          h1,  TIMEOUT",
        "stub,                                      h2c, OK",
        "stub?status=503,                           h2c, HTTP_ERROR",
        "stub?fault=reset,                          h2c, RESET",
        "stub?fault=close-mid-body&bytes=100000,    h2c, RESET",
        "stub?fault=stall-after-headers,            h2c, TIMEOUT",
        "stub?fault=stall,                          h2c, TIMEOUT",
        "stub?fault=malformed-json,                 h2c, OK",
        "stub?fault=drip&bytes=64,                  h2c, OK",
        "stub?delay=15000,                          h2c, TIMEOUT",
    })
    void eachStubFaultEndsInItsOutcome(String path, String partner, Outcome.Kind expected) throws Exception {
        Outcome outcome = call(partner, "GET", path);
        assertEquals(expected, outcome.kind(), outcome.toString());
    }

    @Test
    void okOutcomeCarriesStatusTypeAndWholeBody() throws Exception {
        Outcome outcome = call("h1", "GET", "stub?bytes=5000&status=201");
        assertEquals(Outcome.Kind.OK, outcome.kind());
        assertEquals(201, outcome.status());
        assertEquals("application/json", outcome.contentType());
        assertEquals(5_000, outcome.body().length);
        assertTrue(outcome.bodyAsString().startsWith("{\"stub\":\"ok\""));
    }

    @Test
    void completeExchangeReportsEveryEventInOrder() throws Exception {
        Exchange exchange = broker.send(Call.to("h1").path("stub").listener(recorder).build());
        exchange.outcome().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals("EWHBIC", recorder.sequence(exchange));
    }

    @Test
    void timeoutReportsExpiredBeforeComplete() throws Exception {
        Exchange exchange = broker.send(Call.to("h1").path("stub?delay=15000").listener(recorder).build());
        exchange.outcome().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertEquals("EWXC", recorder.sequence(exchange));
    }

    @Test
    void bodyOverMaxResponseBytesIsRefusedOnItsContentLength() throws Exception {
        Exchange small = broker.send(Call.to("small").path("stub?bytes=2048").listener(recorder).build());
        Outcome outcome = small.outcome().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(Outcome.Kind.TOO_LARGE, outcome.kind(), outcome.toString());
        assertEquals(200, outcome.status(), "headers arrived; the body was refused");
        assertEquals("EWHC", recorder.sequence(small));
        // 64 MiB over h2c against the default 1 MiB bound: refused before a byte of body.
        assertEquals(Outcome.Kind.TOO_LARGE, call("h2c", "GET", "stub?bytes=67108864").kind());
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void chunkedBodyGrowingPastTheBoundIsCutOffWhileTheRestIsStillComing(Protocol protocol)
            throws Exception {
        // Stubs of its own, so that their in-flight count is this exchange alone.
        try (PartnerStubs own = PartnerStubs.start(StubOptions.builder().h2c(true).build())) {
            BrokerClient client = BrokerClient.builder().partner(Partner.builder("p", own.uri().toString())
                    .protocol(protocol).maxResponseBytes(1024).build()).build();
            client.start();
            try {
                // 4,096 writes of 256 B, 100 ms apart: the 1 KiB bound is passed on the 5th, some 7 minutes
                // before the body would end, and the 10 s call timeout would end a broker that waited for it
                // as TIMEOUT. (Reading the stub's in-flight count when the outcome arrives raced the reset:
                // over h2c the stub ends the request as soon as the reset reaches it.)
                Exchange exchange = client.send(Call.to("p")
                        .path("stub?bytes=1048576&chunked=true&fault=drip&dripBytes=256&dripMillis=100")
                        .listener(recorder).build());
                Outcome outcome = exchange.outcome().toCompletableFuture().get(30, TimeUnit.SECONDS);
                assertEquals(Outcome.Kind.TOO_LARGE, outcome.kind(),
                        "cut off while the rest was still coming: " + outcome);
                assertTrue(!recorder.sequence(exchange).contains("B"), recorder.sequence(exchange));
                // And the partner is told: its request ends, rather than dripping on to nobody.
                awaitCondition(() -> own.stats().inFlight() == 0, "the stub still sends to an exchange that ended: "
                        + own.stats());
            } finally {
                client.stop();
            }
        }
    }

    @Test
    void connectFailureIsRetriedThenEndsConnectFailed() throws Exception {
        Exchange exchange = broker.send(Call.to("nobody").path("x").listener(recorder).build());
        Outcome outcome = exchange.outcome().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(Outcome.Kind.CONNECT_FAILED, outcome.kind(), outcome.toString());
        assertEquals(3, outcome.attempts(), "one attempt plus two retries");
        assertEquals("FFFC", recorder.sequence(exchange));
    }

    @Test
    void resetIsRetriedForGetButNotForPost() throws Exception {
        Outcome get = call("h1", "GET", "stub?fault=reset");
        assertEquals(2, get.attempts(), "GET is idempotent: retried once (the default)");
        Outcome post = call("h1", "POST", "stub?fault=reset");
        assertEquals(Outcome.Kind.RESET, post.kind());
        assertEquals(1, post.attempts(), "POST may have reached the partner: never re-sent");
        assertEquals(1, call("noretry", "GET", "stub?fault=reset").attempts());
    }

    @Test
    void cancelEndsTheExchangeCancelledAndClosesItsConnection() throws Exception {
        Exchange exchange = broker.send(Call.to("h1").path("stub?delay=15000").listener(recorder).build());
        // On the wire, so that it has a connection to close (the class's stub may still hold earlier
        // tests' stalls, so its in-flight count does not tell).
        awaitCondition(() -> recorder.sequence(exchange).contains("W"), "the request was never sent");
        exchange.cancel();
        Outcome outcome = exchange.outcome().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(Outcome.Kind.CANCELLED, outcome.kind());
        // Closed, not merely idle in the pool: a connection cancelled half-read is never reused.
        awaitCondition(() -> broker.stats("h1").connectionsOpen() == 0, "connection still open after cancel: "
                + broker.stats("h1"));
    }

    static void awaitCondition(BooleanSupplier condition, String message)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, message);
            Thread.sleep(10);
        }
    }
}
