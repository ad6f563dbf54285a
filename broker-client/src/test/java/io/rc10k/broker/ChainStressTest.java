package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.PartnerStubsExtension;
import io.rc10k.stubs.StubOptions;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Chained fan-outs whose two dependencies end on two event threads at once, many times over: two
 * HTTP/1.1 loops and Jetty's h2c selectors, so that the chained call's readiness is decided by two
 * threads racing. Every fan-out must complete with its chained calls made; a lost publication of an
 * outcome (FanOutLedger) shows here as a fan-out that never completes. The interleavings themselves
 * are checked by jcstress (concurrency-tests); this runs the real code under real I/O.
 */
class ChainStressTest {
    @RegisterExtension
    static final PartnerStubsExtension stubs = new PartnerStubsExtension(StubOptions.builder().h2c(true).build());

    private BrokerClient broker;

    @BeforeEach
    void startBroker() throws Exception {
        broker = BrokerClient.builder()
                .partner(Partner.builder("a", stubs.uri().toString()).maxQueued(10_000).build())
                .partner(Partner.builder("b", stubs.uri().toString()).maxQueued(10_000).build())
                .partner(Partner.builder("c", stubs.uri().toString()).protocol(Protocol.H2C)
                        .maxQueued(10_000).build())
                .selectors(2) // two HTTP/1.1 loops: connections of one partner spread over both
                .build();
        broker.start();
    }

    @AfterEach
    void stopBroker() throws Exception {
        broker.stop();
    }

    @Test
    void everyChainedFanOutCompletesWithItsLaterCallsMadeWhenDependenciesEndOnTwoThreads() throws Exception {
        int fanOuts = 10_000;
        Semaphore window = new Semaphore(64);
        AtomicInteger completed = new AtomicInteger();
        AtomicReference<String> wrong = new AtomicReference<>();
        Set<String> endingThreads = ConcurrentHashMap.newKeySet();
        ExchangeListener threads = new ExchangeListener() {
            @Override
            public void onComplete(Exchange exchange, Outcome outcome) {
                endingThreads.add(Thread.currentThread().getName());
            }
        };
        for (int i = 0; i < fanOuts; i++) {
            assertTrue(window.tryAcquire(60, TimeUnit.SECONDS), "fan-outs stopped completing after " + completed);
            String id = Integer.toString(i);
            broker.fanOut(Duration.ofSeconds(30))
                    .add(Call.to("a").path("stub?id=" + id).listener(threads).build())
                    .add(Call.to(i % 2 == 0 ? "b" : "c").path("stub?id=" + id).listener(threads).build())
                    .add(Call.to("a").after(0, 1).path(in -> "stub?id=" + id + "-after").listener(threads).build())
                    .add(Call.to("c").after(1, 0).path(in -> "stub?id=" + id + "-after2").listener(threads).build())
                    .start()
                    .whenComplete((result, failure) -> {
                        List<Outcome.Kind> kinds = result.outcomes().stream().map(Outcome::kind).toList();
                        if (!kinds.equals(List.of(Outcome.Kind.OK, Outcome.Kind.OK, Outcome.Kind.OK, Outcome.Kind.OK))) {
                            wrong.compareAndSet(null, "fan-out " + id + ": " + result.outcomes());
                        }
                        completed.incrementAndGet();
                        window.release();
                    });
        }
        assertTrue(window.tryAcquire(64, 60, TimeUnit.SECONDS), (fanOuts - completed.get()) + " fan-outs never completed");
        assertEquals(fanOuts, completed.get());
        assertEquals(null, wrong.get());
        assertTrue(endingThreads.size() >= 2, "calls ended on one thread only: " + endingThreads);
        ExchangeTest.awaitCondition(() -> broker.exchangesInFlight() == 0, "exchanges still in flight");
        assertEquals(0, broker.fanOutsInFlight());
    }

    @Test
    void aLaterCallWhoseBuilderThrowsIsSkippedAndTheFanOutStillCompletes() throws Exception {
        FanOutResult result = broker.fanOut(Duration.ofSeconds(30))
                .add(Call.to("a").path("stub").build())
                .add(Call.to("a").after(0).path(in -> {
                    throw new IllegalStateException("a bug in the caller's function");
                }).build())
                .add(Call.to("b").after(0).path(in -> {
                    throw new NullPointerException("another");
                }).build())
                .start().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertEquals(List.of(Outcome.Kind.OK, Outcome.Kind.SKIPPED, Outcome.Kind.SKIPPED),
                result.outcomes().stream().map(Outcome::kind).toList());
        assertTrue(result.outcomes().get(2).failure().getMessage().contains("NullPointerException: another"),
                result.outcomes().get(2).failure().getMessage());
    }

    @Test
    void aLaterCallIsBuiltOnTheLoopFromSmallAnswersAndOnThePoolFromLargeOnes() throws Exception {
        AtomicReference<Boolean> smallOnLoop = new AtomicReference<>();
        AtomicReference<Boolean> largeOnLoop = new AtomicReference<>();
        FanOutResult result = broker.fanOut(Duration.ofSeconds(30))
                .add(Call.to("a").path("stub?bytes=1000").build())
                .add(Call.to("b").path("stub?bytes=" + (FanOutRun.BUILD_INLINE_MAX_BYTES + 1)).build())
                .add(Call.to("a").after(0).path(in -> {
                    smallOnLoop.set(broker.isLoopThread());
                    return "stub";
                }).build())
                .add(Call.to("a").after(1).path(in -> {
                    largeOnLoop.set(broker.isLoopThread());
                    return "stub";
                }).build())
                .start().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertEquals(List.of(Outcome.Kind.OK, Outcome.Kind.OK, Outcome.Kind.OK, Outcome.Kind.OK),
                result.outcomes().stream().map(Outcome::kind).toList());
        assertEquals(Boolean.TRUE, smallOnLoop.get(), "a 1,000-byte input: built where its dependency ended");
        assertEquals(Boolean.FALSE, largeOnLoop.get(), "a large input: built on the pool, not on an event thread");
    }
}
