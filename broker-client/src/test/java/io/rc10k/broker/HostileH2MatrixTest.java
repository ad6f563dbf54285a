package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.H2Misbehaviour;
import io.rc10k.stubs.HostileH2Partner;
import io.rc10k.stubs.Misbehaviour.Expect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every misbehaviour of the {@link HostileH2Partner} over each h2c wire of the client: its own (on the broker's
 * event loops) and Jetty's {@code HttpClient}, the reference.
 *
 * <p>For each: the call ends with an outcome the misbehaviour allows (over Jetty's client, or one
 * {@link KnownDifferences} explains), and a fault ends it as soon as the bytes show it — never at the deadline,
 * which is far away (the partner holds a faulty connection open longer still, so only the client's own verdict
 * can end the call early); a malformed answer is asked for once, never retried; after a fault that breaks the
 * connection ({@link H2Misbehaviour#breaksConnection()}) the next call opens a new connection; the next call is
 * correct; and every connection is then idle in the pool or closed — the partner sees as many open as the
 * client counts ({@link BrokerClient#stats}), so none is left open and forgotten. One partner for the class,
 * one client per wire; what each wire observed is written to {@code target/hostile-h2-matrix.md}.</p>
 */
class HostileH2MatrixTest {
    /** Far past any fault: a call ended by it means the client waited instead of seeing the fault. */
    private static final Duration DEADLINE = Duration.ofSeconds(8);
    /** For the stalls, which can only end at the deadline. */
    private static final Duration STALL_DEADLINE = Duration.ofMillis(300);
    private static final long MAX_RESPONSE_BYTES = 1 << 20;
    /**
     * Far past any bound a client should keep on a header block, yet smaller than the fixture's default: Jetty's
     * client, which keeps no bound, stores a growing block in direct buffers fragment by fragment, and with
     * megabytes of it the allocation can wait for the GC to free direct memory ({@code Bits.reserveMemory}) on an
     * event thread, which the event-thread check here fails.
     */
    private static final int CONTINUATION_FLOOD_BYTES = 256 * 1024;
    private static final Map<String, String> OBSERVED = new ConcurrentHashMap<>();
    private static final Map<H2Wire, BrokerClient> BROKERS = new EnumMap<>(H2Wire.class);

    private static HostileH2Partner hostile;

    enum H2Wire {
        JETTY_H2C("Jetty's client", true, BrokerClient.Builder::jettyForH2c), LOOPS_H2C("own loops", false, b -> b);

        final String column;
        /** Whether Jetty's client carries the calls, so that {@link KnownDifferences} may explain an outcome. */
        final boolean jetty;
        final UnaryOperator<BrokerClient.Builder> wire;

        H2Wire(String column, boolean jetty, UnaryOperator<BrokerClient.Builder> wire) {
            this.column = column;
            this.jetty = jetty;
            this.wire = wire;
        }
    }

    @BeforeAll
    static void startPartner() {
        // The partner holds a faulty connection open longer than any deadline here: a call cannot be ended by it.
        hostile = HostileH2Partner.builder().maxStallMillis(30_000).build().start();
    }

    @AfterAll
    static void stopPartner() throws Exception {
        for (BrokerClient broker : BROKERS.values()) {
            if (broker.isRunning()) {
                broker.stop();
            }
        }
        hostile.close();
        StringBuilder table = new StringBuilder("| misbehaviour | expected |");
        StringBuilder rule = new StringBuilder("|---|---|");
        for (H2Wire wire : H2Wire.values()) {
            table.append(' ').append(wire.column).append(" |");
            rule.append("---|");
        }
        table.append('\n').append(rule).append('\n');
        for (H2Misbehaviour m : H2Misbehaviour.values()) {
            table.append("| `").append(m.token()).append("` | ").append(m.allowed()).append(" |");
            for (H2Wire wire : H2Wire.values()) {
                table.append(' ').append(OBSERVED.get(m.token() + "/" + wire)).append(" |");
            }
            table.append('\n');
        }
        Files.writeString(Path.of("target", "hostile-h2-matrix.md"), table);
    }

    static Stream<Arguments> cases() {
        return Stream.of(H2Wire.values())
                .flatMap(w -> Stream.of(H2Misbehaviour.values()).map(m -> Arguments.of(m, w)));
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("cases")
    void everyMisbehaviourEndsItsCallAsSoonAsItShowsAndTheNextCallIsCorrect(H2Misbehaviour m, H2Wire wire)
            throws Exception {
        BrokerClient broker = broker(wire);
        long requestsBefore = hostile.requests(m);
        boolean waits = wire.jetty && KnownDifferences.WAITS_FOR_DEADLINE.contains(m.token());
        FanOutResult result = call(broker, m, m.expected() == Expect.STALL || waits ? STALL_DEADLINE : DEADLINE);
        Outcome outcome = result.outcomes().get(0);
        Expect observed = HostileMatrixTest.observed(outcome);
        OBSERVED.put(m.token() + "/" + wire, observed == null ? outcome.kind().label() : observed.label());
        assertTrue(m.allows(observed) || wire.jetty && KnownDifferences.allows(m, observed), m + " over " + wire
                + ": " + outcome + " (expected " + m.allowed() + "; a difference of Jetty's client must be explained in"
                + " KnownDifferences)");
        if (m == H2Misbehaviour.PUSH_PROMISE && observed == Expect.OK) {
            assertTrue(hostile.pushEnabledConnections() > 0, m + " over " + wire + ": a promise taken as OK by a"
                    + " client that announced SETTINGS_ENABLE_PUSH=0");
        }
        if (m.expected() != Expect.STALL && !waits) {
            assertFalse(result.deadlineHit(), m + " over " + wire + " was ended by the deadline, not by its fault: "
                    + outcome);
        }
        if (observed == Expect.MALFORMED) {
            assertEquals(requestsBefore + 1, hostile.requests(m), m + ": a malformed answer was asked for again");
        }
        ExchangeTest.awaitCondition(() -> broker.exchangesInFlight() == 0, m + ": the call is still in flight");

        long acceptedBefore = hostile.connectionsAccepted();
        Outcome next = broker.fanOut(DEADLINE).add(Call.to("hostile").path("ok").build()).start()
                .toCompletableFuture().get(60, TimeUnit.SECONDS).outcomes().get(0);
        assertEquals(Outcome.Kind.OK, next.kind(), m + " over " + wire + ": the next call: " + next);
        assertEquals("{\"ok\":true}", next.bodyAsString().trim(), m + ": the next call's body");
        if (m.breaksConnection() && !(wire.jetty && KnownDifferences.REUSES_BROKEN_CONNECTION.contains(m.token()))) {
            assertEquals(1, next.attempts(), m + " over " + wire + ": the next call failed first on the broken"
                    + " connection: " + next);
            assertEquals(acceptedBefore + 1, hostile.connectionsAccepted(), m + " over " + wire + ": the next call"
                    + " must open exactly one new connection (none: the broken connection was used again)");
        }
        ExchangeTest.awaitCondition(() -> connectionsSettled(broker), m + " over " + wire + ": connections open at"
                + " the partner " + hostile.connectionsOpen() + ", the client's " + broker.stats("hostile"));
        assertEquals(0, broker.bufferedBytes(), m + ": buffered bytes not given back");
    }

    /** No connection carries a call, and the partner has as many open as the client counts (idle in its pool). */
    private static boolean connectionsSettled(BrokerClient broker) {
        PartnerStats stats = broker.stats("hostile");
        return stats.connectionsActive() == 0 && stats.connectionsOpen() == hostile.connectionsOpen();
    }

    /**
     * The wire's client, started on first use and kept while the cases of its wire run; the other wire's is stopped
     * then, so that the partner's open connections are this client's alone.
     */
    private static synchronized BrokerClient broker(H2Wire wire) throws Exception {
        BrokerClient broker = BROKERS.get(wire);
        if (broker == null) {
            for (BrokerClient other : BROKERS.values()) {
                if (other.isRunning()) {
                    other.stop();
                }
            }
            ExchangeTest.awaitCondition(() -> hostile.connectionsOpen() == 0, "the other wire's connections stay open");
            Partner partner = Partner.builder("hostile", hostile.uri().toString()).protocol(Protocol.H2C)
                    .maxResponseBytes(MAX_RESPONSE_BYTES).callTimeout(Duration.ofSeconds(20))
                    .circuitBreaker(CircuitBreakerSettings.DISABLED).build();
            broker = wire.wire.apply(BrokerClient.builder().partner(partner)).build();
            broker.start();
            BROKERS.put(wire, broker);
        }
        return broker;
    }

    private static FanOutResult call(BrokerClient broker, H2Misbehaviour m, Duration deadline) throws Exception {
        String path = switch (m) {
            case BODY_OVER_MAX -> m.token() + "?bytes=" + 2 * MAX_RESPONSE_BYTES;
            case CONTINUATION_FLOOD -> m.token() + "?bytes=" + CONTINUATION_FLOOD_BYTES;
            default -> m.token();
        };
        return broker.fanOut(deadline).add(Call.to("hostile").path(path).build()).start().toCompletableFuture()
                .get(60, TimeUnit.SECONDS);
    }

    /**
     * Where Jetty's client, the reference, does something the fixture does not allow, each with why (as this test
     * observes it through the broker's Jetty wire). A new difference goes here, with its reason.
     */
    static final class KnownDifferences {
        private static final Map<String, Expect> JETTY = new TreeMap<>();
        /**
         * Misbehaviours whose call Jetty's client ends only at the deadline, so that they are called with the short
         * one: it ignores DATA before HEADERS, a header block without {@code :status} and HEADERS on a stream id it
         * never opened; it resets a stream whose DATA fall short of its content-length (RST_STREAM PROTOCOL_ERROR
         * goes out) yet the exchange is never failed; it takes CONTINUATION frames without a bound on the header
         * block (see {@link #CONTINUATION_FLOOD_BYTES} for what that costs it).
         */
        static final Set<String> WAITS_FOR_DEADLINE = Set.of("data-before-headers", "missing-status",
                "content-length-mismatch", "streams-on-unopened-ids", "continuation-flood");

        /**
         * Misbehaviours after which Jetty's client keeps the broken connection in its pool: HEADERS on a stream id it
         * never opened are ignored, so the connection carries the next call (which works); after a header block
         * that never ended, the next call goes out on that connection, fails (GOAWAY
         * {@code expected_continuation_frame}) and is retried on a new one.
         */
        static final Set<String> REUSES_BROKEN_CONNECTION = Set.of("streams-on-unopened-ids", "continuation-flood");

        static {
            WAITS_FOR_DEADLINE.forEach(token -> JETTY.put(token, Expect.STALL));
            // A connection error (a frame on stream 0, a frame over SETTINGS_MAX_FRAME_SIZE, a block HPACK cannot
            // decode) fails every stream of the connection with an IOException, and a stream whose block has an
            // uppercase name is reset with an HpackException: the broker cannot tell either from a partner's reset,
            // calls it one, and retries the GET once on a new connection, which fails the same way.
            for (String reset : new String[] {"headers-on-stream-0", "data-on-stream-0", "frame-over-max-frame-size",
                    "bad-hpack", "uppercase-header-name"}) {
                JETTY.put(reset, Expect.RESET);
            }
            // Jetty's h2c client, as the broker configures it, sets no bound on a response's header list: a complete
            // block of 1 MiB is decoded and the answer taken.
            JETTY.put("header-list-huge", Expect.OK);
        }

        static boolean allows(H2Misbehaviour m, Expect observed) {
            return observed != null && JETTY.get(m.token()) == observed;
        }
    }
}
