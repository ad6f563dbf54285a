package io.rc10k.broker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.broker.Exchange;
import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link ExchangeEvents}, driven directly: the order a listener hears, one call at a time, nothing after the end. */
class ExchangeEventsTest {
    private static final Outcome OK = Outcome.response("p", 200, "text/plain", new byte[] {'o', 'k'}, 0, 1);

    private final Exchange exchange = new Named();
    private final CompletableFuture<Outcome> future = new CompletableFuture<>();

    @Test
    void anAttemptsEventsArriveInTableOneOrderThenOnCompleteThenTheOutcome() {
        EventLog listener = new EventLog(future);
        ExchangeEvents events = ExchangeEvents.of(exchange, listener);
        ExchangeEvents.AttemptEvents attempt = events.attempt();
        attempt.connectionEstablished();
        attempt.headersCompleted(200); // the response overtook the request's own success callback
        attempt.sent();
        attempt.bodyCompleted(2);
        attempt.connectionIdle();
        events.complete(OK, future);
        assertEquals(List.of("established", "waiting", "headers 200", "body 2", "idle",
                "complete OK, future done false"), listener.heard);
        assertSame(OK, future.getNow(null));
    }

    @Test
    void eachAttemptReportsItsOwnWaitingOnceAndTheExchangeItsFailureAndExpiry() {
        EventLog listener = new EventLog(future);
        ExchangeEvents events = ExchangeEvents.of(exchange, listener);
        ExchangeEvents.AttemptEvents first = events.attempt();
        ExchangeEvents.AttemptEvents hedge = events.attempt();
        first.sent();
        first.sent();
        hedge.sent();
        events.connectionFailed(new java.net.ConnectException("refused"));
        events.expired();
        assertEquals(List.of("waiting", "waiting", "failed refused", "expired"), listener.heard);
    }

    @Test
    void nothingIsDeliveredAfterOnComplete() {
        EventLog listener = new EventLog(future);
        ExchangeEvents events = ExchangeEvents.of(exchange, listener);
        ExchangeEvents.AttemptEvents attempt = events.attempt();
        events.complete(OK, future);
        attempt.connectionIdle();
        events.expired();
        assertEquals(List.of("complete OK, future done false"), listener.heard);
    }

    @Test
    void aListenerThatThrowsIsIgnoredAndTheOutcomeStillCompletes() {
        ExchangeEvents events = ExchangeEvents.of(exchange, new ExchangeListener() {
            @Override
            public void onConnectionEstablished(Exchange exchange) {
                throw new IllegalStateException("a listener's bug (expected by the test)");
            }

            @Override
            public void onComplete(Exchange exchange, Outcome outcome) {
                throw new IllegalStateException("a listener's bug (expected by the test)");
            }
        });
        events.attempt().connectionEstablished();
        events.complete(OK, future);
        assertSame(OK, future.getNow(null));
    }

    @Test
    void withoutAListenerNothingIsMadeAndTheOutcomeCompletesAtOnce() {
        ExchangeEvents events = ExchangeEvents.of(exchange, ExchangeListener.NONE);
        assertSame(events, ExchangeEvents.of(new Named(), null), "one shared object for every such exchange");
        assertSame(events.attempt(), events.attempt());
        events.attempt().sent();
        events.complete(OK, future);
        assertSame(OK, future.getNow(null));
    }

    @Test
    void eventsOfferedFromTwoThreadsAreDeliveredOneAtATimeAndAllBeforeTheEnd() throws Exception {
        int each = 20_000;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger delivered = new AtomicInteger();
        AtomicInteger deliveredAtEnd = new AtomicInteger(-1);
        ExchangeEvents events = ExchangeEvents.of(exchange, new ExchangeListener() {
            @Override
            public void onBodyCompleted(Exchange exchange, int bodyBytes) {
                if (inside.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                delivered.incrementAndGet();
                inside.decrementAndGet();
            }

            @Override
            public void onComplete(Exchange exchange, Outcome outcome) {
                deliveredAtEnd.set(delivered.get());
            }
        });
        CountDownLatch go = new CountDownLatch(1);
        Thread[] threads = new Thread[2];
        for (int t = 0; t < threads.length; t++) {
            ExchangeEvents.AttemptEvents attempt = events.attempt();
            threads[t] = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    attempt.bodyCompleted(i);
                }
            }, "events-" + t);
            threads[t].start();
        }
        go.countDown();
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(thread.isAlive(), thread.getName() + " still offering");
        }
        events.complete(OK, future);
        assertTrue(future.isDone());
        assertEquals(0, overlaps.get());
        assertEquals(2 * each, deliveredAtEnd.get());
    }

    /** An exchange as a listener sees it: only its name matters here, nothing is sent. */
    private static final class Named implements Exchange {
        private static final Partner PARTNER = Partner.builder("p", "http://p.invalid:1").build();

        @Override
        public Partner partner() {
            return PARTNER;
        }

        @Override
        public String method() {
            return "GET";
        }

        @Override
        public URI uri() {
            return URI.create("http://p.invalid:1/weather");
        }

        @Override
        public long elapsedNanos() {
            return 0;
        }

        @Override
        public CompletionStage<Outcome> outcome() {
            return new CompletableFuture<>();
        }

        @Override
        public boolean isDone() {
            return false;
        }

        @Override
        public void cancel() {
        }

        @Override
        public void expire() {
        }
    }
}
