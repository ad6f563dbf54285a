package io.rc10k.broker;

import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.eclipse.jetty.io.CyclicTimeouts;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * The fan-outs one broker client has in flight: what a stop cancels, and their deadlines. One
 * scheduler task, set for the earliest deadline, wakes to expire the fan-outs that are due and is set
 * again for the next (Jetty's {@link CyclicTimeouts}, as its client keeps its exchanges' timeouts): a
 * fan-out that ends before its deadline leaves the set and touches no timer. The task only hands each
 * expiry to the pool; completions and their dependents never run on the scheduler thread that every
 * deadline shares.
 *
 * <p>Each wake-up reads every fan-out in flight, so deadlines are kept to {@value #TICK_MILLIS} ms
 * ({@link #due}): when thousands of fan-outs time out one after another, the task wakes at most once
 * per tick instead of once per fan-out, and a fan-out expires within a tick after its deadline.</p>
 *
 * <p>Thread-safe.</p>
 */
final class FanOuts extends CyclicTimeouts<FanOutRun> {
    static final long TICK_MILLIS = 5;
    private static final long TICK_NANOS = TICK_MILLIS * 1_000_000;
    private final Set<FanOutRun> running = ConcurrentHashMap.newKeySet();
    private final Executor executor;

    FanOuts(Scheduler scheduler, Executor executor) {
        super(scheduler);
        this.executor = executor;
    }

    /** When a fan-out whose deadline is {@code deadlineNanos} expires: the next tick, never before the deadline. */
    static long due(long deadlineNanos) {
        long past = Math.floorMod(deadlineNanos, TICK_NANOS);
        return past == 0 ? deadlineNanos : deadlineNanos + (TICK_NANOS - past);
    }

    /** A fan-out started: it is cancelled by a stop, and expired at its deadline unless it ended first. */
    void started(FanOutRun run) {
        running.add(run);
        schedule(run);
    }

    void ended(FanOutRun run) {
        running.remove(run);
    }

    /** Cancels every fan-out in flight (the client is stopping). */
    void cancelAll() {
        List.copyOf(running).forEach(FanOutRun::cancel);
    }

    int size() {
        return running.size();
    }

    @Override
    protected Iterator<FanOutRun> iterator() {
        return running.iterator();
    }

    @Override
    protected boolean onExpired(FanOutRun run) {
        executor.execute(run::expire);
        return true;
    }
}
