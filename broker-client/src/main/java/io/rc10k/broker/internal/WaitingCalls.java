package io.rc10k.broker.internal;

import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One destination's calls that wait for a connection (HTTP/1.1) or a stream (h2c), in arrival order, and its
 * connections counted against the partner's {@code maxConnections} (connecting ones count). Lock-free; any
 * thread.
 *
 * @param <C> the wire's calls
 */
final class WaitingCalls<C extends LoopCall> {
    private final Queue<C> waiting = new ConcurrentLinkedQueue<>();
    private final AtomicInteger open = new AtomicInteger();
    private final int maxConnections;
    /** What a call that waited past its deadline did not get, for its failure: "connection", "stream". */
    private final String what;
    private final String partner;

    WaitingCalls(String partner, int maxConnections, String what) {
        this.partner = partner;
        this.maxConnections = maxConnections;
        this.what = what;
    }

    void add(C call) {
        waiting.add(call);
    }

    C poll() {
        return waiting.poll();
    }

    boolean isEmpty() {
        return waiting.isEmpty();
    }

    /** False when the call had left the queue already (a connection has it, or it has ended). */
    boolean remove(C call) {
        return waiting.remove(call);
    }

    /**
     * Counts a new connection's place, if one is free. Never counts one it then gives back: a thread that
     * freed a place and came to serve the waiting calls would see it taken and leave, and the one that gave it
     * back would leave too, a call waiting beside a free place until its deadline.
     */
    boolean takePlace() {
        for (int now = open.get(); now < maxConnections; now = open.get()) {
            if (open.compareAndSet(now, now + 1)) {
                return true;
            }
        }
        return false;
    }

    /** A connection closed, failed to open, or was never opened for the place taken. */
    void givePlaceBack() {
        open.decrementAndGet();
    }

    /** Connections counted: open, and connecting. */
    int places() {
        return open.get();
    }

    /** Ends the waiting calls whose deadline has passed. */
    void expire(long now) {
        for (Iterator<C> it = waiting.iterator(); it.hasNext(); ) {
            C call = it.next();
            if (now - call.deadlineNanos >= 0 && waiting.remove(call)) {
                call.complete(0, null, new TimeoutException("no " + what + " to " + partner
                        + " came free within the call's timeout"), false);
            }
        }
    }

    /** Fails every waiting call (the wire stops). */
    void failAll(Throwable cause) {
        for (C call = waiting.poll(); call != null; call = waiting.poll()) {
            call.complete(0, null, cause, false);
        }
    }
}
