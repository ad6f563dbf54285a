package io.rc10k.broker.internal;

import io.rc10k.broker.Outcome;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Set;

/**
 * The attempts of one exchange: how many went out, the deadline they share, the abort that stops them,
 * where the next one goes and whether a failed one is retried. A state machine without I/O or clocks of
 * its own: the caller passes the time.
 *
 * <pre>{@code
 * Attempts attempts = new Attempts("GET", partner.retries(), timeoutNanos);
 * attempts.start(System.nanoTime());
 * Outcome.Kind refused = attempts.next(now);        // null: counted, it may go
 * ...
 * if (attempts.mayRetry(kind, now, wire.isRunning())) { ... another attempt ... }
 * }</pre>
 *
 * <p>Threading: {@link #abort} and {@link #aborted} from any thread (one compare-and-set decides); the
 * rest on the thread that drives the attempts, one at a time (the one that starts the exchange, then the
 * one that ends its last attempt), or the hedge timer's for {@link #nextHost}.</p>
 */
final class Attempts {
    private static final Set<String> IDEMPOTENT = Set.of("GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE");
    private static final VarHandle ABORTED;

    static {
        try {
            ABORTED = MethodHandles.lookup().findVarHandle(Attempts.class, "aborted", Outcome.Kind.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final boolean idempotent;
    private final int retries;
    /** The exchange's own bound, retries included. */
    private final long timeoutNanos;
    private long deadlineNanos;
    private int count;
    /** The first of cancel, expire or stop; null until one comes. */
    private volatile Outcome.Kind aborted;
    /** The host of the attempt launched last: the one a retry or hedge avoids. */
    private volatile PartnerHosts.Host lastHost;

    /**
     * @param method       the request's method: only an idempotent one is retried after a reset
     * @param retries      retries allowed after the first attempt
     * @param timeoutNanos the exchange's bound, from {@link #start}, shared by all its attempts
     */
    Attempts(String method, int retries, long timeoutNanos) {
        this.idempotent = IDEMPOTENT.contains(method);
        this.retries = retries;
        this.timeoutNanos = timeoutNanos;
    }

    /** The exchange starts at {@code nowNanos}: its deadline is set. */
    void start(long nowNanos) {
        deadlineNanos = nowNanos + timeoutNanos;
    }

    long remainingNanos(long nowNanos) {
        return deadlineNanos - nowNanos;
    }

    /**
     * Another attempt is about to go: null, and it is counted, when it may; otherwise why not (the abort's kind,
     * or TIMEOUT when no time is left), and nothing is counted.
     */
    Outcome.Kind next(long nowNanos) {
        Outcome.Kind abort = aborted;
        if (abort != null) {
            return abort;
        }
        if (remainingNanos(nowNanos) <= 0) {
            return Outcome.Kind.TIMEOUT;
        }
        count++;
        return null;
    }

    /** Attempts counted (hedges aside). */
    int count() {
        return count;
    }

    /** A retry or a hedge goes to another host than the last attempt's when there is one. */
    PartnerHosts.Host nextHost(PartnerHosts hosts) {
        PartnerHosts.Host host = hosts.pick(lastHost);
        lastHost = host;
        return host;
    }

    /** Records the first abort: true for it, false when one came before (the first decides kind and cause). */
    boolean abort(Outcome.Kind kind) {
        return ABORTED.compareAndSet(this, null, kind);
    }

    /** The first abort's kind, or null. */
    Outcome.Kind aborted() {
        return aborted;
    }

    /**
     * Whether an attempt that failed with {@code kind} is tried again: within the retries allowed, not aborted,
     * the wire still running, time left, and the failure one that sent nothing twice (a failed connect) or, for
     * an idempotent method, a reset.
     */
    boolean mayRetry(Outcome.Kind kind, long nowNanos, boolean wireRunning) {
        if (count > retries || aborted != null || !wireRunning || remainingNanos(nowNanos) <= 0) {
            return false;
        }
        return kind == Outcome.Kind.CONNECT_FAILED || (kind == Outcome.Kind.RESET && idempotent);
    }
}
