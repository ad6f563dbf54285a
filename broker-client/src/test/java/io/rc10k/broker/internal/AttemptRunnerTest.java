package io.rc10k.broker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.broker.Balancing;
import io.rc10k.broker.Exchange;
import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.Hedging;
import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link AttemptRunner} on real sockets: retries, hedges and aborts of an exchange's attempts, and what it
 * decides as each ends. Partner stubs on loopback, the broker's HTTP/1.1 wire.
 */
class AttemptRunnerTest {
    @RegisterExtension
    static final LoopbackExchanges LOOPBACK = new LoopbackExchanges();

    @Test
    void aFailedConnectIsReportedAndRetriedOnTheOtherHostWhichAnswers() throws Exception {
        // Round robin, the down host first: the first attempt fails to connect, the retry avoids that host.
        List<String> upAndDown = LOOPBACK.upAndDown();
        Partner partner = LOOPBACK.partner().hosts(List.of(upAndDown.get(1), upAndDown.get(0)))
                .balancing(Balancing.ROUND_ROBIN).retries(1).build();
        PartnerState state = LOOPBACK.state(partner);
        AtomicInteger failedConnects = new AtomicInteger();
        Outcome outcome = LOOPBACK.run(state, "stub", null, new ExchangeListener() {
            @Override
            public void onConnectionFailed(Exchange exchange, Throwable failure) {
                failedConnects.incrementAndGet();
            }
        });
        assertEquals(Outcome.Kind.OK, outcome.kind(), outcome.toString());
        assertEquals(2, outcome.attempts());
        assertEquals(1, failedConnects.get(), "the failed connect reported, though a retry followed");
        assertEquals(0, state.inFlight());
    }

    @Test
    void aResetOfAnIdempotentCallIsRetriedWithinTheRetriesAllowedThenEndsTheExchange() throws Exception {
        PartnerState state = LOOPBACK.state(LOOPBACK.partner().retries(1).build());
        Outcome outcome = LOOPBACK.run(state, "stub?fault=reset", null, ExchangeListener.NONE);
        assertEquals(Outcome.Kind.RESET, outcome.kind(), outcome.toString());
        assertEquals(2, outcome.attempts());
        assertEquals(0, state.inFlight());
        assertEquals(1L, state.outcomes().get(Outcome.Kind.RESET), "one exchange, counted once");
    }

    @Test
    void aHedgeAnswersWhenTheFirstAttemptIsSlowAndTheFirstIsAbortedAndGivenBack() throws Exception {
        PartnerState state = LOOPBACK.state(LOOPBACK.partner().build());
        String id = "runner-hedge-" + System.nanoTime();
        Outcome outcome = LOOPBACK.run(state, "stub?firstDelay=60000&id=" + id, new Hedging(Duration.ofMillis(20), 1),
                ExchangeListener.NONE);
        assertEquals(Outcome.Kind.OK, outcome.kind(), outcome.toString());
        assertTrue(outcome.hedgeWon(), outcome.toString());
        assertEquals(1, outcome.hedges());
        // The first attempt, superseded, ends on its loop just after; its wire stopped with the run.
        LoopbackExchanges.await(() -> state.inFlight() == 0, "admissions held: " + state.inFlight());
    }

    @Test
    void anExpiryAbortsTheAttemptOutAndEndsTheExchangeAsTimeoutOnce() throws Exception {
        PartnerState state = LOOPBACK.state(LOOPBACK.partner().build());
        CountDownLatch sent = new CountDownLatch(1);
        AtomicInteger expired = new AtomicInteger();
        Http1Wire wire = LOOPBACK.wire(state.partner());
        try {
            RealExchange exchange = LOOPBACK.start(wire, state, "stub?delay=60000", null, new ExchangeListener() {
                @Override
                public void onWaitingForResponse(Exchange exchange) {
                    sent.countDown();
                }

                @Override
                public void onExpired(Exchange exchange) {
                    expired.incrementAndGet();
                }
            });
            assertTrue(sent.await(30, TimeUnit.SECONDS), "the request never went out");
            exchange.expire();
            exchange.cancel();
            Outcome outcome = exchange.outcome().toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertEquals(Outcome.Kind.TIMEOUT, outcome.kind(), "the first abort decides: " + outcome);
            assertEquals(1, expired.get());
            assertEquals(0, state.inFlight());
            assertFalse(outcome.hasResponse());
        } finally {
            wire.stop();
        }
    }
}
