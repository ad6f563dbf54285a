package io.rc10k.broker.internal;

import io.rc10k.broker.Outcome;
import java.io.IOException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;

/** Maps a Jetty client failure to the {@link Outcome.Kind} it means, in one place. */
final class Failures {
    private Failures() {
    }

    /** Thrown (as an abort cause) when a body grows past the partner's {@code maxResponseBytes}. */
    static final class TooLargeException extends IOException {
        TooLargeException(String message) {
            super(message);
        }
    }

    /** The abort cause when the caller cancels. */
    static final class CancelledException extends IOException {
        CancelledException(String message) {
            super(message);
        }
    }

    /**
     * @param connected whether a connection had been obtained for the attempt (request begun)
     */
    static Outcome.Kind classify(Throwable failure, boolean connected) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof TooLargeException) {
                return Outcome.Kind.TOO_LARGE;
            }
            if (t instanceof CancelledException) {
                return Outcome.Kind.CANCELLED;
            }
            if (t instanceof TimeoutException) {
                return Outcome.Kind.TIMEOUT;
            }
            if (t instanceof RejectedExecutionException) {
                return Outcome.Kind.REJECTED;
            }
        }
        // Before a connection was obtained nothing was sent: refused, unreachable, unresolved, connect timeout.
        return connected ? Outcome.Kind.RESET : Outcome.Kind.CONNECT_FAILED;
    }
}
