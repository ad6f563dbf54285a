package io.rc10k.broker;

import java.time.Duration;

/**
 * A hedged call: when no attempt has answered {@code after} the call started, one more attempt goes
 * out (then again after each further {@code after}), up to {@code maxExtra} extra attempts. The first
 * attempt whose response headers arrive answers the call; the others are cancelled at once (their
 * HTTP/1.1 connections closed, their HTTP/2 streams reset). A hedge is sent only while the partner
 * admits another exchange, and never past the call's deadline. For idempotent reads only: GET and
 * HEAD. {@link Outcome#hedges()} and {@link Outcome#hedgeWon()} say what happened.
 *
 * @param after    how long an attempt may go unanswered before the next one goes out: 1 ms to 60 s
 * @param maxExtra extra attempts at most: 1 to 3
 */
public record Hedging(Duration after, int maxExtra) {
    public static final int MAX_EXTRA = 3;

    public Hedging {
        if (after == null || after.isNegative() || after.toMillis() < 1 || after.toMillis() > 60_000) {
            throw new IllegalArgumentException("hedging after " + after + " (accepted: 1 ms to 60 s)");
        }
        if (maxExtra < 1 || maxExtra > MAX_EXTRA) {
            throw new IllegalArgumentException("hedging with " + maxExtra + " extra attempts (accepted: 1 to "
                    + MAX_EXTRA + ")");
        }
    }
}
