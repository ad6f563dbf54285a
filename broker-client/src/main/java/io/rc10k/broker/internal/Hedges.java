package io.rc10k.broker.internal;

import io.rc10k.broker.Hedging;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * The race of a hedged exchange's attempts ({@link Hedging}): the timer that sends one more attempt while
 * none has answered, the attempts out, the one that answers, and which attempt's end decides the exchange.
 *
 * <pre>{@code
 * Hedges hedges = new Hedges(hedging, scheduler, executor, exchange::hedge);
 * hedges.startTimer();                     // with the first attempt
 * hedges.launched(attempt);                // each attempt, the first and every hedge
 * if (!hedges.answer(attempt)) return;     // its response headers: the first answers, the others are superseded
 * int left = hedges.ended(attempt);        // its end, first thing
 * if (failed && hedges.dropsFailure(attempt, left, attempts)) return;
 * }</pre>
 *
 * <p>The first attempt whose response headers arrive answers the exchange and supersedes the others
 * (aborted, their ends dropped). A failure decides the exchange only when it is the answering attempt's,
 * or the exchange was aborted, or no attempt answers and none is left out: any other attempt's failure is
 * dropped while another may still answer. Thread-safe and lock-free: attempts end on their connections'
 * threads, the timer fires on the executor.</p>
 */
final class Hedges {
    /** An attempt, as the race sees it. */
    interface Racer {
        /** Another attempt answered first: this one is aborted, and its end will not decide. */
        void supersede();

        /** The exchange was aborted (expired, cancelled): this attempt ends with {@code cause}. */
        void abort(Throwable cause);
    }

    private final Hedging hedging;
    private final Scheduler scheduler;
    /** The timer's task: the hedge itself runs on the executor, never on the scheduler's thread. */
    private final Runnable fire;
    private final Set<Racer> live = ConcurrentHashMap.newKeySet();
    /**
     * Attempts launched whose end has not been taken yet: each launch adds one, each end takes one off
     * first thing, so exactly one failing attempt sees none left (the verdict, if none answered).
     */
    private final AtomicInteger out = new AtomicInteger();
    private final AtomicReference<Racer> answering = new AtomicReference<>();
    private final AtomicInteger sent = new AtomicInteger();
    private volatile Scheduler.Task timer;

    /** @param hedge what the timer runs (on {@code executor}) to send one more attempt */
    Hedges(Hedging hedging, Scheduler scheduler, Executor executor, Runnable hedge) {
        this.hedging = hedging;
        this.scheduler = scheduler;
        this.fire = () -> executor.execute(hedge);
    }

    /** With the exchange's first attempt: the timer for the first hedge (a retry does not restart it). */
    void startTimer() {
        if (timer == null) {
            schedule();
        }
    }

    private void schedule() {
        timer = scheduler.schedule(fire, hedging.after().toNanos(), TimeUnit.NANOSECONDS);
    }

    void cancelTimer() {
        Scheduler.Task task = timer;
        if (task != null) {
            task.cancel();
        }
    }

    /** When the timer fires: whether a hedge may go, no attempt having answered and one being out. */
    boolean mayHedge() {
        return answering.get() == null && !live.isEmpty();
    }

    /** A hedge goes out: counted, and the timer set again while more are allowed; the hedges sent so far. */
    int hedgeSent() {
        int count = sent.incrementAndGet();
        if (count < hedging.maxExtra()) {
            schedule();
        }
        return count;
    }

    /** How long an attempt may go unanswered before the next one goes out. */
    long afterMillis() {
        return hedging.after().toMillis();
    }

    /** Hedges sent so far. */
    int sent() {
        return sent.get();
    }

    /** An attempt went out (the first, a retry, or a hedge). */
    void launched(Racer attempt) {
        out.incrementAndGet();
        live.add(attempt);
    }

    /** The attempts out, for an abort of the exchange to end. */
    Iterable<Racer> live() {
        return live;
    }

    /**
     * {@code attempt}'s response headers came: true when it answers the exchange (the first to, or the one that
     * already does), the timer cancelled and the others superseded; false for a later one, itself superseded.
     */
    boolean answer(Racer attempt) {
        if (!answering.compareAndSet(null, attempt) && answering.get() != attempt) {
            attempt.supersede();
            return false;
        }
        cancelTimer();
        for (Racer other : live) {
            if (other != attempt) {
                other.supersede();
            }
        }
        return true;
    }

    /**
     * {@code attempt} ended, whatever way: taken off first thing, before it leaves the live set, so that an
     * attempt answering after that (and so not superseding this one) began before this end, and this one
     * finds it still out. The attempts still out, this one not counted.
     */
    int ended(Racer attempt) {
        int left = out.decrementAndGet();
        live.remove(attempt);
        return left;
    }

    /**
     * Whether {@code attempt}'s failure is dropped instead of deciding the exchange: when it did not answer, the
     * exchange is not aborted, and another attempt answered or is still out ({@code left} from {@link #ended}).
     * The answering attempt's failure decides, and gives the answer up: a retry may answer in its turn.
     */
    boolean dropsFailure(Racer attempt, int left, Attempts attempts) {
        return !answering.compareAndSet(attempt, null) && attempts.aborted() == null
                && (answering.get() != null || left > 0);
    }
}
