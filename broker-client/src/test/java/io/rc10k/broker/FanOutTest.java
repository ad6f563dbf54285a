package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.PartnerStubsExtension;
import io.rc10k.stubs.StubOptions;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class FanOutTest {
    @RegisterExtension
    static final PartnerStubsExtension stubs = new PartnerStubsExtension(StubOptions.builder().h2c(true).build());

    private BrokerClient broker;

    @BeforeEach
    void startBroker() throws Exception {
        broker = BrokerClient.builder()
                // These tests time calls out on purpose; a breaker would (rightly) start refusing them.
                .partner(Partner.builder("h1", stubs.uri().toString()).maxQueued(10_000)
                        .circuitBreaker(CircuitBreakerSettings.DISABLED).build())
                .partner(Partner.builder("h2c", stubs.uri().toString()).protocol(Protocol.H2C)
                        .maxQueued(10_000).circuitBreaker(CircuitBreakerSettings.DISABLED).build())
                .build();
        broker.start();
    }

    @AfterEach
    void stopBroker() throws Exception {
        broker.stop();
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void deadlineEndsTheSlowCallAndFreesItsConnection(Protocol protocol) throws Exception {
        String p = protocol == Protocol.H2C ? "h2c" : "h1";
        // Connections open before (three, for HTTP/1.1's one call per connection), so that the 100 ms and
        // 200 ms calls need not connect on a fresh broker within the 2.5 s deadline on a busy machine.
        Call stub = Call.to(p).path("stub").build();
        broker.fanOut(Duration.ofSeconds(30)).add(stub).add(stub).add(stub).start()
                .toCompletableFuture().get(60, TimeUnit.SECONDS);
        FanOutResult result = broker.fanOut(Duration.ofMillis(2_500))
                .add(Call.to(p).path("stub?delay=100").build())
                .add(Call.to(p).path("stub?delay=200").build())
                .add(Call.to(p).path("stub?delay=5000").build())
                .start().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(List.of(Outcome.Kind.OK, Outcome.Kind.OK, Outcome.Kind.TIMEOUT),
                result.outcomes().stream().map(Outcome::kind).toList());
        assertTrue(result.deadlineHit());
        // Timing belongs to the benchmark (docs/results/broker-client.md); here: cut at the deadline, not the 5 s call.
        assertTrue(result.elapsedMillis() >= 2_500 && result.elapsedMillis() < 5_000, result.elapsedMillis() + " ms");
        ExchangeTest.awaitCondition(() -> broker.stats(p).connectionsActive() == 0,
                "the timed-out call's connection is still busy: " + broker.stats(p));
        ExchangeTest.awaitCondition(() -> stubs.stats().inFlight() == 0, "the partner still holds the call");
        assertEquals(0, broker.exchangesInFlight());
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void aFailedRequiredCallEndsTheFanOutAndCancelsTheOthers(Protocol protocol) throws Exception {
        String p = protocol == Protocol.H2C ? "h2c" : "h1";
        // The slow calls would hold the fan-out for its whole 60 s deadline; the test's own bound is 30 s.
        FanOutResult result = broker.fanOut(Duration.ofSeconds(60))
                .add(Call.to(p).path("stub?delay=60000").build())
                .add(Call.to(p).path("stub?status=503").required().build())
                .add(Call.to(p).path("stub?delay=60000").required().build())
                .start().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertEquals(List.of(Outcome.Kind.CANCELLED, Outcome.Kind.HTTP_ERROR, Outcome.Kind.CANCELLED),
                result.outcomes().stream().map(Outcome::kind).toList());
        assertEquals(1, result.failedRequired());
        assertFalse(result.deadlineHit());
        ExchangeTest.awaitCondition(() -> broker.stats(p).connectionsActive() == 0,
                "a cancelled call's connection is still busy: " + broker.stats(p));
        assertEquals(0, broker.exchangesInFlight());
    }

    @Test
    void aRequiredCallThatSucceedsChangesNothing() throws Exception {
        FanOutResult result = broker.fanOut(Duration.ofSeconds(30))
                .add(Call.to("h1").path("stub?status=500").build())
                .add(Call.to("h2c").path("stub?delay=200").required().build())
                .start().toCompletableFuture().get(30, TimeUnit.SECONDS);
        // The optional call's failure does not end anything; the required one answered.
        assertEquals(List.of(Outcome.Kind.HTTP_ERROR, Outcome.Kind.OK),
                result.outcomes().stream().map(Outcome::kind).toList());
        assertEquals(-1, result.failedRequired());
    }

    @Test
    void aRequiredCallRefusedAtStartCancelsCallsNotYetStarted() throws Exception {
        // "nowhere" refuses connections: the first call fails at connect; the second must not outlive it.
        try (var closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = closed.getLocalPort();
            closed.close();
            BrokerClient refusing = BrokerClient.builder()
                    .partner(Partner.builder("nowhere", "http://127.0.0.1:" + port).retries(0)
                            .circuitBreaker(CircuitBreakerSettings.DISABLED).build())
                    .partner(Partner.builder("stub", stubs.uri().toString())
                            .circuitBreaker(CircuitBreakerSettings.DISABLED).build())
                    .build();
            refusing.start();
            try {
                FanOutResult result = refusing.fanOut(Duration.ofSeconds(60))
                        .add(Call.to("nowhere").path("stub").required().build())
                        .add(Call.to("stub").path("stub?delay=60000").build())
                        .start().toCompletableFuture().get(30, TimeUnit.SECONDS);
                assertEquals(List.of(Outcome.Kind.CONNECT_FAILED, Outcome.Kind.CANCELLED),
                        result.outcomes().stream().map(Outcome::kind).toList());
                assertEquals(0, result.failedRequired());
                assertEquals(0, refusing.exchangesInFlight());
            } finally {
                refusing.stop();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void aHedgeWinsWhenOnlyTheFirstAttemptIsSlow(Protocol protocol) throws Exception {
        String p = protocol == Protocol.H2C ? "h2c" : "h1";
        // The stub holds the first request of this id for 60 s and answers later ones at once. Unhedged,
        // the call would end TIMEOUT at its 10 s call timeout; the test waits at most 30 s.
        String id = "hedge-" + protocol + "-" + System.nanoTime();
        FanOutResult result = broker.fanOut(Duration.ofSeconds(60))
                .add(Call.to(p).path("stub?firstDelay=60000&id=" + id).hedging(new Hedging(Duration.ofMillis(50), 2))
                        .build())
                .start().toCompletableFuture().get(30, TimeUnit.SECONDS);
        Outcome outcome = result.outcomes().get(0);
        assertEquals(Outcome.Kind.OK, outcome.kind(), outcome.toString());
        assertTrue(outcome.hedgeWon(), outcome.toString());
        assertTrue(outcome.hedges() >= 1, outcome.toString());
        assertTrue(outcome.bodyAsString().contains(id), outcome.bodyAsString());
        // The slow first attempt was cancelled: its connection closed (HTTP/1.1) or stream reset (h2c), and
        // the hedge's admission given back.
        ExchangeTest.awaitCondition(() -> broker.stats(p).connectionsActive() == 0,
                "the first attempt still holds a connection: " + broker.stats(p));
        ExchangeTest.awaitCondition(() -> broker.stats(p).inFlight() == 0, "admissions not given back: " + broker.stats(p));
        assertEquals(0, broker.exchangesInFlight());
    }

    @Test
    void aCallThatAnswersBeforeTheHedgeDelaySendsNoHedge() throws Exception {
        Exchange exchange = broker.send(Call.to("h1").path("stub?id=prompt")
                .hedging(new Hedging(Duration.ofSeconds(20), 1)).build());
        Outcome outcome = exchange.outcome().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertEquals(Outcome.Kind.OK, outcome.kind());
        assertEquals(0, outcome.hedges());
        assertFalse(outcome.hedgeWon());
        assertEquals(1, outcome.attempts());
    }

    @Test
    void onlyReadsMayBeHedged() {
        IllegalArgumentException e = Assertions.assertThrows(IllegalArgumentException.class,
                () -> Call.to("h1").method("POST").path("stub").hedging(new Hedging(Duration.ofMillis(50), 1)).build());
        assertTrue(e.getMessage().contains("cannot be hedged"), e.getMessage());
        assertEquals(0, broker.exchangesInFlight());
    }

    @Test
    void aLaterCallToAnUnknownPartnerIsRefusedNamingTheKnownOnes() {
        FanOut fanOut = broker.fanOut(Duration.ofSeconds(5)).add(Call.to("h1").path("stub").build());
        IllegalArgumentException e = Assertions.assertThrows(IllegalArgumentException.class,
                () -> fanOut.add(Call.to("nobody").after(0).path(in -> "stub").build()));
        assertTrue(e.getMessage().startsWith("unknown partner \"nobody\" (known: "), e.getMessage());
        assertTrue(e.getMessage().contains("h1"), e.getMessage());
    }

    @Test
    void aLaterCallIsMadeFromWhatItsDependencyAnswered() throws Exception {
        FanOutResult result = broker.fanOut(Duration.ofSeconds(30))
                .add(Call.to("h1").path("stub?delay=100&id=Lyon").build())
                .add(Call.to("h2c").path("stub?delay=300&id=slow").build())
                .add(Call.to("h1").after(0).path(in -> "echo?city=" + idOf(in.get(0))).build())
                .start().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertEquals(List.of(Outcome.Kind.OK, Outcome.Kind.OK, Outcome.Kind.OK),
                result.outcomes().stream().map(Outcome::kind).toList());
        assertTrue(result.outcomes().get(2).bodyAsString().contains("\"query\":\"city=Lyon\""),
                result.outcomes().get(2).bodyAsString());
    }

    @Test
    void aLaterCallWhoseDependencyFailedIsSkippedUnsent() throws Exception {
        FanOutResult result = broker.fanOut(Duration.ofSeconds(30))
                .add(Call.to("h1").path("stub?status=500").build())
                .add(Call.to("h1").after(0).path(in -> {
                    if (in.get(0).kind() != Outcome.Kind.OK) {
                        throw new IllegalArgumentException("call 0 gave no value: " + in.get(0).kind().label());
                    }
                    return "stub";
                }).build())
                .start().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertEquals(List.of(Outcome.Kind.HTTP_ERROR, Outcome.Kind.SKIPPED),
                result.outcomes().stream().map(Outcome::kind).toList());
        assertTrue(result.outcomes().get(1).failure().getMessage().contains("gave no value"));
        assertEquals(0, broker.exchangesInFlight());
    }

    @Test
    void theDeadlineCoversTheWholeChain() throws Exception {
        FanOutResult result = broker.fanOut(Duration.ofMillis(300))
                .add(Call.to("h1").path("stub?delay=5000").build())
                .add(Call.to("h1").after(0).path(in -> "stub").build())
                .start().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertEquals(List.of(Outcome.Kind.TIMEOUT, Outcome.Kind.TIMEOUT),
                result.outcomes().stream().map(Outcome::kind).toList());
        assertEquals(0, result.outcomes().get(1).attempts(), "the later call was never sent");
        assertTrue(result.deadlineHit());
    }

    @Test
    void aShorterDeadlineStartedAfterALongerOneFiresFirst() throws Exception {
        // One timer serves every fan-out's deadline: a later, earlier deadline must bring it forward.
        Call slow = Call.to("h1").path("stub?delay=60000").build();
        CompletableFuture<FanOutResult> longer = broker.fanOut(Duration.ofSeconds(120)).add(slow)
                .start().toCompletableFuture();
        FanOutResult shorter = broker.fanOut(Duration.ofMillis(300)).add(slow).start()
                .toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertEquals(Outcome.Kind.TIMEOUT, shorter.outcomes().get(0).kind());
        assertTrue(shorter.deadlineHit());
        assertFalse(longer.isDone(), "the longer deadline fired with the shorter one");
        assertEquals(1, broker.fanOutsInFlight());
    }

    @Test
    void stoppingTheClientCancelsAChainsLaterCallUnsent() throws Exception {
        CompletableFuture<FanOutResult> chain = broker.fanOut(Duration.ofSeconds(60))
                .add(Call.to("h1").path("stub?delay=60000").build())
                .add(Call.to("h1").after(0).path(in -> "stub").build())
                .start().toCompletableFuture();
        ExchangeTest.awaitCondition(() -> stubs.stats().inFlight() >= 1, "the first call never reached the partner");
        broker.stop();
        FanOutResult result = chain.get(30, TimeUnit.SECONDS);
        assertEquals(List.of(Outcome.Kind.CANCELLED, Outcome.Kind.CANCELLED),
                result.outcomes().stream().map(Outcome::kind).toList());
        assertEquals(0, result.outcomes().get(1).attempts(), "the later call was made on a stopping client");
        assertEquals(0, broker.fanOutsInFlight());
    }

    private static String idOf(Outcome outcome) {
        Matcher m = Pattern.compile("\"id\":\"([^\"]*)\"").matcher(outcome.bodyAsString());
        if (!m.find()) {
            throw new IllegalArgumentException("no id in " + outcome.bodyAsString());
        }
        return m.group(1);
    }

    @Test
    void deadlineCompletionsRunOnThePoolNotTheSchedulerThread() throws Exception {
        String[] thread = new String[1];
        broker.fanOut(Duration.ofMillis(200)).add(Call.to("h1").path("stub?delay=5000").build()).start()
                .thenAccept(result -> thread[0] = Thread.currentThread().getName())
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertTrue(thread[0].startsWith("broker-") && !thread[0].contains("scheduler"), thread[0]);
    }

    @Test
    void fanOutWithoutDeadlineHitReportsSo() throws Exception {
        FanOutResult result = broker.fanOut(Duration.ofSeconds(5))
                .add(Call.to("h1").path("weather?city=Paris").build())
                .add(Call.to("h2c").path("hotels?city=Paris").build())
                .add(Call.to("h1").path("flights?city=Paris").build())
                .start().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertFalse(result.deadlineHit());
        assertEquals(3, result.count(Outcome.Kind.OK));
        assertTrue(result.outcomes().get(1).bodyAsString().contains("Hotel"));
    }

    @Test
    void emptyFanOutCompletesAtOnce() throws Exception {
        FanOutResult result = broker.fanOut(Duration.ofSeconds(1)).start().toCompletableFuture().get(1,
                TimeUnit.SECONDS);
        assertTrue(result.outcomes().isEmpty());
    }

    @Test
    void racingCompletionsAndDeadlinesCompleteEveryFanOutOnceWithEventsInOrder() throws Exception {
        int fanOuts = 400;
        int width = 4;
        RecordingListener recorder = new RecordingListener();
        SplittableRandom random = new SplittableRandom(7);
        AtomicInteger[] completions = new AtomicInteger[fanOuts];
        List<FanOutResult> results = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(fanOuts);
        // Connections open before the race, so that it is completions against deadlines, not connects.
        broker.fanOut(Duration.ofSeconds(30)).add(Call.to("h1").path("stub").build())
                .add(Call.to("h2c").path("stub").build()).start().toCompletableFuture()
                .get(60, TimeUnit.SECONDS);
        for (int i = 0; i < fanOuts; i++) {
            completions[i] = new AtomicInteger();
            AtomicInteger count = completions[i];
            // Most delays straddle the 1 s deadline so that completions and the deadline race; a quarter
            // answer at once, so that the race has answers in it even on a machine too busy to keep time.
            FanOut fanOut = broker.fanOut(Duration.ofSeconds(1));
            for (int c = 0; c < width; c++) {
                int delay = random.nextInt(4) == 0 ? 0 : 800 + random.nextInt(400);
                fanOut.add(Call.to(random.nextBoolean() ? "h1" : "h2c").path("stub?delay=" + delay).listener(recorder)
                        .build());
            }
            fanOut.start().whenComplete((result, failure) -> {
                assertNull(failure);
                count.incrementAndGet();
                results.add(result);
                done.countDown();
            });
        }
        assertTrue(done.await(60, TimeUnit.SECONDS), done.getCount() + " fan-outs never completed");
        ExchangeTest.awaitCondition(() -> broker.exchangesInFlight() == 0, "exchanges still in flight");
        ExchangeTest.awaitCondition(() -> stubs.stats().inFlight() == 0, "partner still holds calls");
        assertEquals(0, broker.fanOutsInFlight(), "completed fan-outs left in the deadlines' set");
        for (AtomicInteger count : completions) {
            assertEquals(1, count.get(), "a fan-out completed more than once");
        }
        long ok = 0;
        long timeouts = 0;
        for (FanOutResult result : results) {
            assertEquals(width, result.outcomes().size());
            for (Outcome o : result.outcomes()) {
                assertTrue(o.kind() == Outcome.Kind.OK || o.kind() == Outcome.Kind.TIMEOUT, o.toString());
                ok += o.kind() == Outcome.Kind.OK ? 1 : 0;
                timeouts += o.kind() == Outcome.Kind.TIMEOUT ? 1 : 0;
            }
        }
        assertTrue(ok > 0 && timeouts > 0, "the race needs both outcomes: ok=" + ok + " timeouts=" + timeouts);
        assertEquals(fanOuts * width, recorder.events.size());
        for (Exchange exchange : recorder.events.keySet()) {
            assertNull(recorder.violation(exchange));
        }
    }
}
