package io.rc10k.broker.internal;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.http.HttpFields;

/**
 * A call on the broker's own loops, HTTP/1.1 ({@link Http1Call}) or h2c ({@link H2cCall}): its events and
 * deadline, an abort flag set once, and a completion told once, whichever of the response, a failure, its
 * deadline or an abort comes first.
 *
 * <p>Threading: any thread; the abort flag is set before the call looks for where it is, and whoever gives the
 * call a connection reads the flag after, so an abort is never lost between the two.</p>
 */
abstract class LoopCall implements Wire.Call {
    final Wire.Events events;
    final long deadlineNanos;
    private final AtomicBoolean done = new AtomicBoolean();
    private final AtomicReference<Throwable> aborted = new AtomicReference<>();

    LoopCall(long timeoutNanos, Wire.Events events) {
        this.deadlineNanos = System.nanoTime() + timeoutNanos;
        this.events = events;
    }

    @Override
    public final void abort(Throwable cause) {
        if (done.get() || !aborted.compareAndSet(null, cause)) {
            return;
        }
        abortWhereItIs(cause);
    }

    /**
     * The abort flag is set: ends the call on its connection, or in its destination's queue; between the two,
     * whoever gives it a connection reads the flag and ends it.
     */
    abstract void abortWhereItIs(Throwable cause);

    /** Why it was aborted, or null. */
    final Throwable aborted() {
        return aborted.get();
    }

    final boolean isDone() {
        return done.get();
    }

    /** Ends the call once; false when it had already ended. */
    final boolean complete(int status, HttpFields headers, Throwable failure, boolean kept) {
        if (!done.compareAndSet(false, true)) {
            return false;
        }
        events.onComplete(status, headers, failure, kept);
        return true;
    }
}
