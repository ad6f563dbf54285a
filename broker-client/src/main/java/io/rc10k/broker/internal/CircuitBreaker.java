package io.rc10k.broker.internal;

import io.rc10k.broker.CircuitBreakerSettings;
import io.rc10k.broker.Outcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Protects one partner: after {@code consecutiveFailures} failures in a row, or a failure ratio of
 * at least {@code failureRatio} over the last {@code window} calls (once {@code minimumCalls} were
 * seen), it opens for {@code coolDown}; calls then end at once as CIRCUIT_OPEN. After the cool-down
 * one call goes through as a probe: success closes the breaker, failure opens it again. Only the probe
 * decides: the outcome of a call that started before the breaker opened is not its verdict.
 *
 * <p>Failures are what the partner is responsible for: CONNECT_FAILED, TLS_FAILED, RESET, TIMEOUT and HTTP
 * statuses of 500 and above, and MALFORMED answers. REJECTED, CANCELLED, TOO_LARGE, MEMORY_BUDGET and
 * 4xx are not counted.</p>
 *
 * <p>A small state machine under this object's lock; no caller code runs inside it. A call that
 * finds the breaker closed starts without taking the lock: every call of a partner asks, from
 * whichever thread starts it, so the usual case must not make them queue for one another. Opening
 * and closing are logged (WARN, INFO) once the lock is released, a line per change, never per call.</p>
 */
final class CircuitBreaker {
    enum State { CLOSED, OPEN, HALF_OPEN }

    /** {@link #allow()}: the call may not start. */
    static final long REFUSED = -1;
    /** {@link #allow()}: the call may start, and is no probe. */
    static final long ALLOWED = 0;

    private static final Logger LOG = LoggerFactory.getLogger(CircuitBreaker.class);

    private final String partner;
    private final CircuitBreakerSettings settings;
    private final boolean[] recent;
    private int recentCount;
    private int recentFailures;
    private int next;
    private int consecutive;
    /** Changed under the lock; read without it by {@link #allow()} when closed. */
    private volatile State state = State.CLOSED;
    private long openUntilNanos;
    /** Permits given to probes so far; the one out now, or 0 when no probe is out. */
    private long probes;
    private long probe;

    CircuitBreaker(String partner, CircuitBreakerSettings settings) {
        this.partner = partner;
        this.settings = settings;
        this.recent = new boolean[Math.max(1, settings.window())];
    }

    /**
     * Whether a call may start now: {@link #REFUSED}, {@link #ALLOWED}, or the permit of the one probe a
     * half-open breaker lets through (positive). The call gives it back to {@link #record}.
     */
    long allow() {
        // Closed (or disabled): no lock. A call that races an opening starts, as one a moment earlier would have.
        return !settings.enabled() || state == State.CLOSED ? ALLOWED : allowLocked();
    }

    private synchronized long allowLocked() {
        switch (state) {
            case CLOSED:
                return ALLOWED;
            case OPEN:
                if (System.nanoTime() - openUntilNanos < 0) {
                    return REFUSED;
                }
                state = State.HALF_OPEN;
                probe = ++probes;
                return probe;
            default:
                if (probe != 0) {
                    return REFUSED;
                }
                probe = ++probes;
                return probe;
        }
    }

    /**
     * Records how an allowed call ended; {@code permit} is what {@link #allow()} gave it. Half-open, only the
     * probe's outcome counts: a call allowed before the breaker opened may end meanwhile, and says nothing of
     * the partner now.
     */
    void record(Outcome.Kind kind, int status, long permit) {
        if (!settings.enabled() || kind == Outcome.Kind.CIRCUIT_OPEN) {
            return;
        }
        // Decided under the lock, logged after it: no thread waits for an appender while holding the breaker.
        String opened = null;
        boolean closed = false;
        synchronized (this) {
            Change change = change(kind, status, permit);
            if (change != null) {
                opened = change.openedBecause;
                closed = opened == null;
            }
        }
        if (opened != null) {
            LOG.warn("circuit of partner {} opened: {}; its calls end circuit_open for {} ms, then one probes", partner,
                    opened, settings.coolDown().toMillis());
        } else if (closed) {
            LOG.info("circuit of partner {} closed: its probe call succeeded", partner);
        }
    }

    /** A change of state: opened (and why), or closed (null). */
    private record Change(String openedBecause) {
    }

    /** Under the lock: counts the outcome; the change it made, or null. */
    private Change change(Outcome.Kind kind, int status, long permit) {
        boolean failure = isFailure(kind, status);
        boolean counted = isCounted(kind, status);
        if (state == State.HALF_OPEN) {
            if (permit <= 0 || permit != probe) {
                return null; // not the probe's outcome (there may be no probe out: the last one told nothing)
            }
            probe = 0;
            if (!counted) {
                return null; // the probe told nothing; let the next call probe
            }
            if (failure) {
                return open("its probe call failed (" + kind + ")");
            }
            close();
            return new Change(null);
        }
        if (!counted) {
            return null;
        }
        consecutive = failure ? consecutive + 1 : 0;
        if (recentCount == recent.length) {
            recentFailures -= recent[next] ? 1 : 0;
        } else {
            recentCount++;
        }
        recent[next] = failure;
        recentFailures += failure ? 1 : 0;
        next = (next + 1) % recent.length;
        if (state == State.CLOSED && (consecutive >= settings.consecutiveFailures()
                || (recentCount >= settings.minimumCalls()
                        && recentFailures >= settings.failureRatio() * recentCount))) {
            return open(consecutive >= settings.consecutiveFailures() ? consecutive + " failures in a row"
                    : recentFailures + " of the last " + recentCount + " calls failed");
        }
        return null;
    }

    private Change open(String why) {
        state = State.OPEN;
        openUntilNanos = System.nanoTime() + settings.coolDown().toNanos();
        return new Change(why);
    }

    private void close() {
        state = State.CLOSED;
        consecutive = 0;
        recentCount = 0;
        recentFailures = 0;
        next = 0;
    }

    State state() {
        return state;
    }

    /** What the partner is responsible for: the failures the breaker (and host ejection) count. */
    static boolean isFailure(Outcome.Kind kind, int status) {
        return kind == Outcome.Kind.CONNECT_FAILED || kind == Outcome.Kind.TLS_FAILED || kind == Outcome.Kind.RESET
                || kind == Outcome.Kind.MALFORMED || kind == Outcome.Kind.TIMEOUT
                || (kind == Outcome.Kind.HTTP_ERROR && status >= 500);
    }

    /** An outcome that tells something about the partner: a failure, or an answer. */
    static boolean isCounted(Outcome.Kind kind, int status) {
        return isFailure(kind, status) || kind == Outcome.Kind.OK || kind == Outcome.Kind.HTTP_ERROR;
    }
}
