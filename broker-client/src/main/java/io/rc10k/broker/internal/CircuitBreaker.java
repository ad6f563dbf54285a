package io.rc10k.broker.internal;

import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Protects one partner: after {@code consecutiveFailures} failures in a row, or a failure ratio of
 * at least {@code failureRatio} over the last {@code window} calls (once {@code minimumCalls} were
 * seen), it opens for {@code coolDown}; calls then end at once as CIRCUIT_OPEN. After the cool-down
 * one call goes through as a probe: success closes the breaker, failure opens it again.
 *
 * <p>Failures are what the partner is responsible for: CONNECT_FAILED, RESET, TIMEOUT and HTTP
 * statuses of 500 and above. REJECTED, CANCELLED, TOO_LARGE and 4xx are not counted.</p>
 *
 * <p>A small state machine under this object's lock; no caller code runs inside it. A call that
 * finds the breaker closed starts without taking the lock: every call of a partner asks, from
 * whichever thread starts it, so the usual case must not make them queue for one another. Opening
 * and closing are logged (WARN, INFO), a line per change, never per call.</p>
 */
final class CircuitBreaker {
    enum State { CLOSED, OPEN, HALF_OPEN }

    private static final Logger LOG = LoggerFactory.getLogger(CircuitBreaker.class);

    private final String partner;
    private final Partner.CircuitBreakerSettings settings;
    private final boolean[] recent;
    private int recentCount;
    private int recentFailures;
    private int next;
    private int consecutive;
    /** Changed under the lock; read without it by {@link #allow()} when closed. */
    private volatile State state = State.CLOSED;
    private long openUntilNanos;
    private boolean probing;

    CircuitBreaker(String partner, Partner.CircuitBreakerSettings settings) {
        this.partner = partner;
        this.settings = settings;
        this.recent = new boolean[Math.max(1, settings.window())];
    }

    /** Whether a call may start now; a half-open breaker lets exactly one probe through. */
    boolean allow() {
        // Closed (or disabled): no lock. A call that races an opening starts, as one a moment earlier would have.
        return !settings.enabled() || state == State.CLOSED || allowLocked();
    }

    private synchronized boolean allowLocked() {
        switch (state) {
            case CLOSED:
                return true;
            case OPEN:
                if (System.nanoTime() - openUntilNanos < 0) {
                    return false;
                }
                state = State.HALF_OPEN;
                probing = true;
                return true;
            default:
                if (probing) {
                    return false;
                }
                probing = true;
                return true;
        }
    }

    /** Records how an allowed call ended. */
    synchronized void record(Outcome.Kind kind, int status) {
        if (!settings.enabled() || kind == Outcome.Kind.CIRCUIT_OPEN) {
            return;
        }
        boolean failure = kind == Outcome.Kind.CONNECT_FAILED || kind == Outcome.Kind.RESET
                || kind == Outcome.Kind.TIMEOUT || (kind == Outcome.Kind.HTTP_ERROR && status >= 500);
        boolean counted = failure || kind == Outcome.Kind.OK || kind == Outcome.Kind.HTTP_ERROR;
        if (!counted) {
            if (state == State.HALF_OPEN) {
                probing = false; // the probe told nothing; let the next call probe
            }
            return;
        }
        if (state == State.HALF_OPEN) {
            probing = false;
            if (failure) {
                open("its probe call failed (" + kind + ")");
            } else {
                close();
            }
            return;
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
            open(consecutive >= settings.consecutiveFailures() ? consecutive + " failures in a row"
                    : recentFailures + " of the last " + recentCount + " calls failed");
        }
    }

    private void open(String why) {
        state = State.OPEN;
        openUntilNanos = System.nanoTime() + settings.coolDown().toNanos();
        LOG.warn("circuit of partner {} opened: {}; its calls end circuit_open for {} ms, then one probes", partner,
                why, settings.coolDown().toMillis());
    }

    private void close() {
        LOG.info("circuit of partner {} closed: its probe call succeeded", partner);
        state = State.CLOSED;
        consecutive = 0;
        recentCount = 0;
        recentFailures = 0;
        next = 0;
    }

    State state() {
        return state;
    }
}
