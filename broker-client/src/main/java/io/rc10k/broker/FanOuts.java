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
 * <p>Thread-safe.</p>
 */
final class FanOuts extends CyclicTimeouts<FanOut.Run> {
    private final Set<FanOut.Run> running = ConcurrentHashMap.newKeySet();
    private final Executor executor;

    FanOuts(Scheduler scheduler, Executor executor) {
        super(scheduler);
        this.executor = executor;
    }

    /** A fan-out started: it is cancelled by a stop, and expired at its deadline unless it ended first. */
    void started(FanOut.Run run) {
        running.add(run);
        schedule(run);
    }

    void ended(FanOut.Run run) {
        running.remove(run);
    }

    /** Cancels every fan-out in flight (the client is stopping). */
    void cancelAll() {
        List.copyOf(running).forEach(FanOut.Run::cancel);
    }

    int size() {
        return running.size();
    }

    @Override
    protected Iterator<FanOut.Run> iterator() {
        return running.iterator();
    }

    @Override
    protected boolean onExpired(FanOut.Run run) {
        executor.execute(run::expire);
        return true;
    }
}
