package io.rc10k.broker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.broker.Hedging;
import io.rc10k.broker.Outcome.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;
import org.junit.jupiter.api.Test;

/** {@link Hedges}, driven directly: racers that record what the race did to them, a timer fired by hand. */
class HedgesTest {
    private final HandTimer timer = new HandTimer();
    private final AtomicInteger hedgesRun = new AtomicInteger();
    private final Hedges hedges = new Hedges(new Hedging(Duration.ofMillis(10), 2), timer, Runnable::run,
            hedgesRun::incrementAndGet);
    private final Attempts attempts = new Attempts("GET", 0, TimeUnit.MINUTES.toNanos(1));

    @Test
    void theTimerFiresTheHedgeOnTheExecutorAndIsSetAgainUpToMaxExtra() {
        hedges.startTimer();
        hedges.startTimer();
        assertEquals(1, timer.scheduled.size(), "a retry's attempt does not restart the timer");
        assertEquals(TimeUnit.MILLISECONDS.toNanos(10), timer.lastDelayNanos);
        timer.fire();
        assertEquals(1, hedgesRun.get());
        assertEquals(1, hedges.hedgeSent());
        assertEquals(1, timer.scheduled.size(), "set again for the second hedge");
        timer.fire();
        assertEquals(2, hedgesRun.get());
        assertEquals(2, hedges.hedgeSent());
        assertEquals(0, timer.scheduled.size(), "maxExtra 2: no timer for a third");
        assertEquals(2, hedges.sent());
    }

    @Test
    void theFirstAnswerSupersedesTheOthersAndStopsTheTimer() {
        Racer first = launch();
        Racer hedge = launch();
        hedges.startTimer();
        assertTrue(hedges.mayHedge());
        assertTrue(hedges.answer(hedge));
        assertEquals(1, first.superseded);
        assertEquals(0, hedge.superseded);
        assertEquals(1, timer.cancelled.get());
        assertFalse(hedges.mayHedge(), "one answered: no more hedges");
        assertFalse(hedges.answer(first), "a later answer loses");
        assertEquals(2, first.superseded, "and supersedes itself");
    }

    @Test
    void aFailureWhileAnotherAttemptIsOutIsDroppedAndTheLastOneDecides() {
        Racer first = launch();
        Racer hedge = launch();
        assertTrue(hedges.dropsFailure(first, hedges.ended(first), attempts), "the hedge may still answer");
        assertFalse(hedges.dropsFailure(hedge, hedges.ended(hedge), attempts), "none left: its failure decides");
        assertFalse(hedges.mayHedge(), "nothing out");
    }

    @Test
    void theAnsweringAttemptsFailureDecidesAndAnotherFailureIsDroppedMeanwhile() {
        Racer first = launch();
        Racer hedge = launch();
        hedges.answer(first);
        assertTrue(hedges.dropsFailure(hedge, hedges.ended(hedge), attempts), "one answered: not the verdict");
        assertFalse(hedges.dropsFailure(first, hedges.ended(first), attempts), "the answer's own failure decides");
        Racer retry = launch();
        assertTrue(hedges.answer(retry), "a retry may answer in its turn");
    }

    @Test
    void anAbortedExchangesFailureIsNeverDropped() {
        Racer first = launch();
        launch();
        attempts.abort(Kind.TIMEOUT);
        assertFalse(hedges.dropsFailure(first, hedges.ended(first), attempts));
    }

    @Test
    void theAttemptsOutAreTheLiveOnes() {
        Racer first = launch();
        Racer hedge = launch();
        hedges.ended(first);
        List<Hedges.Racer> live = new ArrayList<>();
        hedges.live().forEach(live::add);
        assertEquals(List.of(hedge), live);
    }

    private Racer launch() {
        Racer racer = new Racer();
        hedges.launched(racer);
        return racer;
    }

    private static final class Racer implements Hedges.Racer {
        int superseded;

        @Override
        public void supersede() {
            superseded++;
        }

        @Override
        public void abort(Throwable cause) {
        }
    }

    /** Keeps what is scheduled; {@link #fire()} runs the oldest on the caller. */
    private static final class HandTimer extends AbstractLifeCycle implements Scheduler {
        final List<Runnable> scheduled = new ArrayList<>();
        final AtomicInteger cancelled = new AtomicInteger();
        long lastDelayNanos;

        @Override
        public Task schedule(Runnable task, long delay, TimeUnit units) {
            scheduled.add(task);
            lastDelayNanos = units.toNanos(delay);
            return () -> {
                cancelled.incrementAndGet();
                return scheduled.remove(task);
            };
        }

        void fire() {
            scheduled.remove(0).run();
        }
    }
}
