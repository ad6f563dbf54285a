package io.rc10k.broker.internal;

import io.rc10k.broker.Outcome;
import java.io.IOException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.eclipse.jetty.client.HttpResponseException;
import org.eclipse.jetty.http.HttpException;

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

    /** The partner's bytes broke HTTP/1.1: a bad status line, header, chunk or length, an unasked-for 101. */
    static final class MalformedResponseException extends IOException {
        MalformedResponseException(String message) {
            super(message);
        }

        MalformedResponseException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The abort cause when the client's budget of buffered response bytes is spent. */
    static final class MemoryBudgetException extends IOException {
        MemoryBudgetException(String message) {
            super(message);
        }
    }

    /** The abort cause when the caller cancels. */
    static final class CancelledException extends IOException {
        CancelledException(String message) {
            super(message);
        }
    }

    /** Why the attempts of an exchange aborted with {@code kind} (TIMEOUT or CANCELLED) end. */
    static Throwable abortCause(Outcome.Kind kind, long elapsedNanos) {
        return kind == Outcome.Kind.TIMEOUT
                ? new TimeoutException("fan-out deadline passed after " + TimeUnit.NANOSECONDS.toMillis(elapsedNanos)
                        + " ms")
                : new CancelledException("cancelled");
    }

    /**
     * @param connected whether a connection had been obtained for the attempt (request begun)
     */
    static Outcome.Kind classify(Throwable failure, boolean connected) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof TooLargeException) {
                return Outcome.Kind.TOO_LARGE;
            }
            if (t instanceof MemoryBudgetException) {
                return Outcome.Kind.MEMORY_BUDGET;
            }
            // Ours, and Jetty's client's for what its parser refused (an HttpResponseException, a BadMessageException).
            if (t instanceof MalformedResponseException || t instanceof HttpException
                    || t instanceof HttpResponseException) {
                return Outcome.Kind.MALFORMED;
            }
            // Any TLS failure before a connection carried the request is the handshake's; after, it is a broken stream.
            if (t instanceof SSLHandshakeException || (t instanceof SSLException && !connected)) {
                return Outcome.Kind.TLS_FAILED;
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

    /** Why a TLS handshake failed, in words an operator can act on, then the JDK's own message. */
    static String tlsReason(Throwable failure) {
        String message = null;
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null && (t instanceof SSLException || message == null)) {
                message = t.getMessage();
            }
        }
        if (message == null) {
            return String.valueOf(failure);
        }
        if (message.contains("PKIX") || message.contains("certification path")) {
            return "the partner's certificate is not trusted (" + message + ")";
        }
        if (message.contains("subject alternative") || message.contains("No name matching")) {
            return "the partner's certificate is not for this host (" + message + ")";
        }
        return message;
    }
}
