package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpFields;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What the broker's own h2c wire ({@code H2cWire} on the client's loops) must do that Jetty's HTTP/2 client
 * did for it, against the stubs' h2c: streams multiplexed within {@code maxConnections} ×
 * {@code maxStreamsPerConnection}, calls beyond waiting for a stream; a call that times out or whose body is
 * too large resets its own stream and leaves the connection serving the next; an idle connection closes at
 * the partner's idle timeout; and under calls racing their deadlines every call ends once and every stream is
 * given back. The stream and connection bounds are checked over Jetty's client too, as a differential.
 */
class H2cWireTest {
    enum Path {
        LOOPS, JETTY;

        BrokerClient.Builder client() {
            BrokerClient.Builder builder = BrokerClient.builder();
            return this == JETTY ? builder.jettyForH2c() : builder;
        }
    }

    private static PartnerStubs stubs;

    @BeforeAll
    static void start() {
        stubs = PartnerStubs.start(StubOptions.builder().h2c(true).build());
    }

    /**
     * The tests share one stub and count the connections it holds open; each stops its broker at the end, and
     * the stub sees those connections close a little later. Waits for that, so that one test's closes never
     * land inside the next one's count.
     */
    @BeforeEach
    void noConnectionLeftOpen() throws InterruptedException {
        ExchangeTest.awaitCondition(() -> stubs.stats().connections() == 0, "an earlier test's connections stay open");
    }

    @AfterAll
    static void stop() {
        stubs.close();
    }

    private static Partner.Builder partner() {
        return Partner.builder("p", stubs.uri().toString()).protocol(Protocol.H2C);
    }

    private static Outcome await(Exchange exchange) throws Exception {
        return exchange.outcome().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void callsBeyondTheStreamsWaitAndConnectionsStayWithinTheirBound(Path path) throws Exception {
        BrokerClient broker = path.client().partner(partner().maxConnections(2).maxStreamsPerConnection(4)
                .maxQueued(200).build()).build();
        broker.start();
        try {
            long connectionsBefore = stubs.stats().connections();
            List<Exchange> exchanges = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                exchanges.add(broker.send(Call.to("p").path("/stub?delay=20&id=" + i).build()));
            }
            for (int i = 0; i < exchanges.size(); i++) {
                Outcome outcome = await(exchanges.get(i));
                assertEquals(Outcome.Kind.OK, outcome.kind(), String.valueOf(outcome.failure()));
                assertTrue(outcome.bodyAsString().contains("\"id\":\"" + i + "\""), "each call its own answer: "
                        + outcome.bodyAsString());
            }
            long opened = stubs.stats().connections() - connectionsBefore;
            assertTrue(opened >= 1 && opened <= 2, opened + " connections opened");
            PartnerStats stats = broker.stats("p");
            assertTrue(stats.connectionsOpen() >= 1 && stats.connectionsOpen() <= 2, stats.toString());
            assertEquals(0, stats.connectionsActive(), "every stream given back: " + stats);
        } finally {
            broker.stop();
        }
    }

    @Test
    void aTimedOutCallResetsItsStreamAndTheConnectionServesTheNextCall() throws Exception {
        BrokerClient broker = BrokerClient.builder().partner(partner().maxConnections(1).retries(0)
                .callTimeout(Duration.ofMillis(200)).build()).build();
        broker.start();
        try {
            assertEquals(Outcome.Kind.OK, await(broker.send(Call.to("p").path("/stub").build())).kind());
            long connections = stubs.stats().connections();
            Outcome late = await(broker.send(Call.to("p").path("/stub?delay=5000").build()));
            assertEquals(Outcome.Kind.TIMEOUT, late.kind(), String.valueOf(late.failure()));
            Outcome next = await(broker.send(Call.to("p").path("/stub?id=next").build()));
            assertEquals(Outcome.Kind.OK, next.kind(), String.valueOf(next.failure()));
            assertTrue(next.bodyAsString().contains("\"id\":\"next\""), next.bodyAsString());
            assertEquals(connections, stubs.stats().connections(), "no new connection: the reset kept it");
            assertEquals(1, broker.stats("p").connectionsOpen(), broker.stats("p").toString());
        } finally {
            broker.stop();
        }
    }

    @Test
    void aBodyOverMaxResponseBytesResetsItsStreamAndTheConnectionServesTheNextCall() throws Exception {
        BrokerClient broker = BrokerClient.builder().partner(partner().maxConnections(1).retries(0)
                .maxResponseBytes(10_000).build()).build();
        broker.start();
        try {
            assertEquals(Outcome.Kind.OK, await(broker.send(Call.to("p").path("/stub").build())).kind());
            long connections = stubs.stats().connections();
            Outcome large = await(broker.send(Call.to("p").path("/stub?bytes=2000000").build()));
            assertEquals(Outcome.Kind.TOO_LARGE, large.kind(), String.valueOf(large.failure()));
            Outcome next = await(broker.send(Call.to("p").path("/stub?bytes=5000").build()));
            assertEquals(Outcome.Kind.OK, next.kind(), String.valueOf(next.failure()));
            assertEquals(5000, next.body().length);
            assertEquals(connections, stubs.stats().connections(), "no new connection: the reset kept it");
        } finally {
            broker.stop();
        }
    }

    @Test
    void aConnectionIdleForThePartnersIdleTimeoutClosesAndTheNextCallOpensAnother() throws Exception {
        BrokerClient broker = BrokerClient.builder().partner(partner().idleTimeout(Duration.ofMillis(200)).build())
                .build();
        broker.start();
        try {
            assertEquals(Outcome.Kind.OK, await(broker.send(Call.to("p").path("/stub").build())).kind());
            assertEquals(1, broker.stats("p").connectionsOpen());
            ExchangeTest.awaitCondition(() -> broker.stats("p").connectionsOpen() == 0,
                    "the idle connection is still open: " + broker.stats("p"));
            Outcome again = await(broker.send(Call.to("p").path("/stub").build()));
            assertEquals(Outcome.Kind.OK, again.kind(), String.valueOf(again.failure()));
            assertEquals(1, again.attempts());
        } finally {
            broker.stop();
        }
    }

    @Test
    void callsRacingTheirDeadlinesAndCancelsEachEndOnceAndGiveTheirStreamBack() throws Exception {
        BrokerClient broker = BrokerClient.builder().partner(partner().maxConnections(2).maxStreamsPerConnection(16)
                .maxQueued(2_000).retries(0)
                .circuitBreaker(CircuitBreakerSettings.DISABLED).build()).build();
        broker.start();
        try {
            // A connection open before the race, and every tenth call with time to spare: on a busy machine
            // the 60 ms calls may all time out (a connect alone can take that), and the answered side of the
            // race must still run.
            assertEquals(Outcome.Kind.OK, await(broker.send(Call.to("p").path("/stub").build())).kind());
            List<Exchange> exchanges = new ArrayList<>();
            for (int i = 0; i < 600; i++) {
                Duration timeout = i % 10 == 0 ? Duration.ofSeconds(30) : Duration.ofMillis(60);
                Exchange exchange = broker.send(Call.to("p").path("/stub?delay=" + (i % 120))
                        .timeout(timeout).build());
                if (i % 7 == 0) {
                    exchange.cancel();
                }
                exchanges.add(exchange);
            }
            Map<Outcome.Kind, Integer> kinds = new EnumMap<>(Outcome.Kind.class);
            for (Exchange exchange : exchanges) {
                kinds.merge(await(exchange).kind(), 1, Integer::sum);
            }
            assertEquals(600, kinds.values().stream().mapToInt(Integer::intValue).sum());
            assertTrue(kinds.keySet().stream().allMatch(k -> k == Outcome.Kind.OK || k == Outcome.Kind.TIMEOUT
                    || k == Outcome.Kind.CANCELLED), kinds.toString());
            assertTrue(kinds.getOrDefault(Outcome.Kind.OK, 0) > 0 && kinds.getOrDefault(Outcome.Kind.TIMEOUT, 0) > 0,
                    "both sides of the race were run: " + kinds);
            ExchangeTest.awaitCondition(() -> broker.stats("p").connectionsActive() == 0
                    && broker.stats("p").inFlight() == 0, "streams not given back: " + broker.stats("p"));
            assertTrue(broker.stats("p").connectionsOpen() <= 2, broker.stats("p").toString());
            Outcome after = await(broker.send(Call.to("p").path("/stub").build()));
            assertEquals(Outcome.Kind.OK, after.kind(), String.valueOf(after.failure()));
        } finally {
            broker.stop();
        }
    }

    /**
     * The loops only: over Jetty's client such a field fails its call (its HPACK encoder refuses it), and a header
     * list over the partner's limit closes the whole session, failing the calls after it.
     */
    @Test
    void fieldsHttp2ForbidsAreCleanedAndAHeaderListOverThePartnersLimitFailsOnlyItsCall() throws Exception {
        BrokerClient broker = BrokerClient.builder().partner(partner().maxConnections(1).retries(0).build()).build();
        broker.start();
        try {
            HttpFields odd = HttpFields.build().add("X-Note", "a\r\nX-Injected: 1\tb");
            Outcome cleaned = await(broker.send(Call.to("p").path("/echo").headers(odd).build()));
            assertEquals(Outcome.Kind.OK, cleaned.kind(), String.valueOf(cleaned.failure()));
            assertTrue(cleaned.bodyAsString().contains("\"x-note\":\"a  X-Injected: 1 b\""), cleaned.bodyAsString());
            assertFalse(cleaned.bodyAsString().contains("\"x-injected\""), cleaned.bodyAsString());
            long connections = stubs.stats().connections();

            HttpFields huge = HttpFields.build().add("X-Huge", "x".repeat(100_000));
            Outcome refused = await(broker.send(Call.to("p").path("/echo").headers(huge).build()));
            assertTrue(refused.kind() != Outcome.Kind.OK && refused.failure() != null, refused.toString());

            // The connection's HPACK state is the partner's still: calls with fields go on being understood.
            for (int i = 0; i < 3; i++) {
                HttpFields fields = HttpFields.build().add("X-Request", "r" + i).add("X-Same", "s");
                Outcome next = await(broker.send(Call.to("p").path("/echo").headers(fields).build()));
                assertEquals(Outcome.Kind.OK, next.kind(), String.valueOf(next.failure()));
                assertTrue(next.bodyAsString().contains("\"x-request\":\"r" + i + "\""), next.bodyAsString());
            }
            assertEquals(connections, stubs.stats().connections(), "the refusal left the connection as it was");
        } finally {
            broker.stop();
        }
    }
}
