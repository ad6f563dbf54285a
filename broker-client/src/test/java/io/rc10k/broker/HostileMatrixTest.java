package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.HostilePartner;
import io.rc10k.stubs.Misbehaviour;
import io.rc10k.stubs.Misbehaviour.Expect;
import io.rc10k.stubs.StubCertificate;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every misbehaviour of the {@link HostilePartner}, over the client's own HTTP/1.1 loops, as a
 * differential over Jetty's {@code HttpClient} ({@link BrokerClient.Builder#jettyForHttp1()}), and over
 * TLS: an https partner (HTTP/1.1 over TLS, which only Jetty's client speaks) whose misbehaviours reach
 * the client inside TLS unchanged ({@link HostilePartner.Builder#tls}).
 *
 * <p>For each: the call ends with an outcome the misbehaviour allows (over Jetty's client, or one
 * {@link KnownDifferences} explains; over TLS, the very outcome Jetty's client gave in cleartext, or one
 * {@link TlsDifferences} explains), and a fault ends it as soon as the bytes show it — never at the
 * deadline, which is far away (the partner holds a faulty connection open longer still, so only the
 * client's own verdict can end the call early); a malformed answer is asked for once, never retried;
 * after a fault the connection is not reused (the next call opens a new one) and that next call is
 * correct. What each wire observed is written to {@code target/hostile-matrix.md}
 * (docs/results/hostile-partners.md holds the table and the why of every difference).</p>
 */
class HostileMatrixTest {
    /** Far past any fault: a call ended by it means the client waited instead of seeing the fault. */
    private static final Duration DEADLINE = Duration.ofSeconds(8);
    /** For the stalls, which can only end at the deadline. */
    private static final Duration STALL_DEADLINE = Duration.ofMillis(300);
    private static final Map<String, String> OBSERVED = new ConcurrentHashMap<>();

    @TempDir
    static Path files;
    private static HostilePartner hostile;
    /** The same misbehaviours behind a TLS front. */
    private static HostilePartner hostileTls;
    private static Path trusted;

    enum WireKind {
        LOOPS("own loops"), JETTY("Jetty's client"), JETTY_TLS("Jetty's client over TLS");

        final String column;

        WireKind(String column) {
            this.column = column;
        }
    }

    @BeforeAll
    static void startPartner() throws IOException {
        // The partner holds a faulty connection open longer than any deadline here: a call cannot be ended by it.
        hostile = HostilePartner.builder().maxStallMillis(30_000).build().start();
        StubCertificate certificate = StubCertificate.generate("localhost", "127.0.0.1");
        trusted = certificate.writePem(files.resolve("hostile.pem"));
        hostileTls = HostilePartner.builder().maxStallMillis(30_000).tls(certificate).build().start();
    }

    @AfterAll
    static void stopPartner() throws IOException {
        hostile.close();
        hostileTls.close();
        StringBuilder table = new StringBuilder("| misbehaviour | expected |");
        StringBuilder rule = new StringBuilder("|---|---|");
        for (WireKind wire : WireKind.values()) {
            table.append(' ').append(wire.column).append(" |");
            rule.append("---|");
        }
        table.append('\n').append(rule).append('\n');
        for (Misbehaviour m : Misbehaviour.values()) {
            table.append("| `").append(m.token()).append("` | ").append(m.allowed()).append(" |");
            for (WireKind wire : WireKind.values()) {
                table.append(' ').append(OBSERVED.get(key(m, wire))).append(" |");
            }
            table.append('\n');
        }
        Files.writeString(Path.of("target", "hostile-matrix.md"), table);
    }

    private static String key(Misbehaviour m, WireKind wire) {
        return m.token() + "/" + wire;
    }

    static Stream<Arguments> cases() {
        return Stream.of(WireKind.values()).flatMap(w -> Stream.of(Misbehaviour.values()).map(m -> Arguments.of(m, w)));
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("cases")
    void everyMisbehaviourEndsItsCallAsSoonAsItShowsAndTheNextCallIsCorrect(Misbehaviour m, WireKind wire)
            throws Exception {
        HostilePartner partner = wire == WireKind.JETTY_TLS ? hostileTls : hostile;
        BrokerClient broker = broker(wire);
        broker.start();
        try {
            long requestsBefore = partner.requests(m);
            FanOutResult result = call(broker, m);
            Outcome outcome = result.outcomes().get(0);
            Expect observed = observed(outcome);
            OBSERVED.put(key(m, wire), label(outcome));
            switch (wire) {
                case LOOPS -> {
                    assertNotNull(observed, m + ": " + outcome);
                    assertTrue(m.allows(observed), m + ": " + outcome + " (expected " + m.allowed() + ")");
                }
                case JETTY -> assertTrue(m.allows(observed) || KnownDifferences.allows(m, observed), m
                        + " over Jetty's client: " + outcome + " (expected " + m.allowed() + "; a new difference must"
                        + " be explained in docs/results/hostile-partners.md)");
                case JETTY_TLS -> {
                    String cleartext = cleartextOverJetty(m);
                    assertEquals(TlsDifferences.expected(m, cleartext), label(outcome), m + " over TLS: " + outcome
                            + " (Jetty's client in cleartext: " + cleartext + "; a new difference must be explained in"
                            + " docs/results/hostile-partners.md)");
                }
            }
            if (m.expected() != Expect.STALL) {
                assertFalse(result.deadlineHit(), m + " over " + wire + " was ended by the deadline, not by its fault: "
                        + outcome);
            }
            if (observed == Expect.MALFORMED) {
                assertEquals(requestsBefore + 1, partner.requests(m), m + ": a malformed answer was asked for again");
            }
            ExchangeTest.awaitCondition(() -> broker.exchangesInFlight() == 0, m + ": the call is still in flight");

            long acceptedBefore = partner.connectionsAccepted();
            if (wire != WireKind.LOOPS && KnownDifferences.NEXT_CALL_HANGS.contains(m.token())) {
                // The reference's own flaw, documented: it keeps the connection, and the partner never answers on it.
                Outcome hangs = broker.fanOut(STALL_DEADLINE).add(Call.to("hostile").path("ok").build()).start()
                        .toCompletableFuture()
                        .get(60, TimeUnit.SECONDS).outcomes().get(0);
                assertEquals(Outcome.Kind.TIMEOUT, hangs.kind(), m + " over " + wire + ": the next call, on the kept"
                        + " connection: " + hangs);
                assertEquals(acceptedBefore, partner.connectionsAccepted(), m + " over " + wire + ": no new connection");
                return;
            }
            Outcome next = broker.fanOut(DEADLINE).add(Call.to("hostile").path("ok").build()).start()
                    .toCompletableFuture()
                    .get(60, TimeUnit.SECONDS).outcomes().get(0);
            assertEquals(Outcome.Kind.OK, next.kind(), m + " over " + wire + ": the next call: " + next);
            assertEquals("{\"ok\":true}", next.bodyAsString().trim(), m + ": the next call's body");
            if (observed != Expect.OK) {
                assertEquals(acceptedBefore + 1, partner.connectionsAccepted(),
                        m + " over " + wire + ": the next call must open exactly one new connection (none: the"
                        + " connection that saw the fault was used again; two: one more than the call needed)");
            }
            assertEquals(0, broker.bufferedBytes(), m + ": buffered bytes not given back");
        } finally {
            broker.stop();
        }
    }

    private static BrokerClient broker(WireKind wire) {
        Partner.Builder partner = wire == WireKind.JETTY_TLS
                ? Partner.builder("hostile", hostileTls.uri().toString()).tls(PartnerTls.DEFAULT.withCaFile(trusted))
                : Partner.builder("hostile", hostile.uri().toString());
        if (wire != WireKind.LOOPS) {
            // Jetty's pool may open one connection more than a call needs whenever it opens one (the thread that
            // asked for it can take it while the thread that opened it looks for the request it was opened for, and
            // finding it still queued, opens another): an idle spare that would let the next call open none, or open
            // two. With one connection allowed it cannot, and the count of accepted connections says exactly whether
            // the connection that saw the fault was used again. The loops open what a call needs, no more.
            partner.maxConnections(1);
        }
        BrokerClient.Builder builder = BrokerClient.builder().partner(partner.maxResponseBytes(1 << 20)
                .callTimeout(Duration.ofSeconds(20)).circuitBreaker(CircuitBreakerSettings.DISABLED).build());
        if (wire == WireKind.JETTY) {
            builder.jettyForHttp1();
        }
        return builder.build();
    }

    private static FanOutResult call(BrokerClient broker, Misbehaviour m) throws Exception {
        Duration deadline = m.expected() == Expect.STALL ? STALL_DEADLINE : DEADLINE;
        return broker.fanOut(deadline).add(Call.to("hostile").path(path(m)).build()).start().toCompletableFuture()
                .get(60, TimeUnit.SECONDS);
    }

    /** What Jetty's client made of {@code m} in cleartext: as this run observed it, or asked now when it was not run. */
    private static String cleartextOverJetty(Misbehaviour m) throws Exception {
        String seen = OBSERVED.get(key(m, WireKind.JETTY));
        if (seen != null) {
            return seen;
        }
        BrokerClient broker = broker(WireKind.JETTY);
        broker.start();
        try {
            return label(call(broker, m).outcomes().get(0));
        } finally {
            broker.stop();
        }
    }

    /** The fixture's name for what an outcome means, or the outcome's own when no misbehaviour should cause it. */
    private static String label(Outcome outcome) {
        Expect observed = observed(outcome);
        return observed == null ? outcome.kind().label() : observed.label();
    }

    private static String path(Misbehaviour m) {
        // Trickles and repeated interim answers fast enough that they end well inside the deadline.
        return switch (m) {
            case TRICKLE_HEAD, TRICKLE_BODY, PROCESSING_FOREVER -> m.token() + "?every=1";
            case CONTENT_LENGTH_HUGE -> m.token() + "?every=10";
            default -> m.token();
        };
    }

    /** What an outcome means in the fixture's terms; null for an outcome no misbehaviour should cause. */
    static Expect observed(Outcome outcome) {
        return switch (outcome.kind()) {
            case OK, HTTP_ERROR -> Expect.OK;
            case MALFORMED -> Expect.MALFORMED;
            case RESET -> Expect.RESET;
            case TIMEOUT -> Expect.STALL;
            case TOO_LARGE -> Expect.TOO_LARGE;
            default -> null;
        };
    }

    /**
     * Where Jetty's client over TLS observes something other than it does in cleartext on the same bytes, by
     * token, each with why (docs/results/hostile-partners.md holds the TLS column). None: the relay passes
     * every byte, close and reset through, and below TLS Jetty's endpoint reads a reset as the same EOF it
     * reads in cleartext, and its {@code SslConnection} takes an EOF without {@code close_notify} after the
     * handshake as an EOF ({@code requireCloseMessage} is off); no TLS error reaches the call. A difference
     * that appears goes here, with its reason, and into the docs.
     */
    static final class TlsDifferences {
        private static final Map<String, Expect> TLS = Map.of();

        /** What Jetty's client should observe over TLS, given what it observed in cleartext. */
        static String expected(Misbehaviour m, String cleartext) {
            Expect differs = TLS.get(m.token());
            return differs == null ? cleartext : differs.label();
        }
    }

    /** Where Jetty's client, the reference, observes something the fixture does not allow (docs say why). */
    static final class KnownDifferences {
        private static final Map<String, Expect> JETTY = new TreeMap<>();
        /**
         * Jetty's client keeps the connection that carried an HTTP/2.0 or a 999 answer, and the next request
         * on it never gets its answer: that call waits for its deadline.
         */
        static final Set<String> NEXT_CALL_HANGS = Set.of("version-2-0", "status-code-999");

        static {
            // Jetty's parser gives up on a broken chunk and its client reports that as an early EOF: the call
            // ends at once, as ours does, but named a reset (and, as a reset of a GET, retried once).
            for (String chunk : new String[] {"chunk-size-invalid", "chunk-extension-garbage", "chunk-size-overflow",
                    "chunk-data-missing-crlf"}) {
                JETTY.put(chunk, Expect.RESET);
            }
            // Jetty's parser takes any version it knows and any three digits as a status; the loops check both.
            JETTY.put("version-2-0", Expect.OK);
            JETTY.put("status-code-999", Expect.OK);
            // Jetty's client sets no bound on a response head by default; the loops stop at 64 KiB.
            JETTY.put("header-line-huge", Expect.OK);
            JETTY.put("head-just-over-64k", Expect.OK);
            // Jetty's client takes an unasked-for 101 as the final answer (no body) and closes the connection.
            JETTY.put("switching-protocols", Expect.OK);
            // An EOF inside the head: Jetty's parser reports "Early EOF" as an HttpException carrying the status it
            // had parsed (200), and its client calls the answer malformed. Under -ea, as here, that exception's own
            // assert (4xx or 5xx only) throws an AssertionError instead, which ends the call as a reset: production
            // (no -ea) gives malformed, this run gives reset (allowed), and either passes.
            JETTY.put("close-mid-head", Expect.MALFORMED);
        }

        static boolean allows(Misbehaviour m, Expect observed) {
            return observed != null && JETTY.get(m.token()) == observed;
        }
    }
}
