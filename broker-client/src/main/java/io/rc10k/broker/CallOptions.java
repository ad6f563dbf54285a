package io.rc10k.broker;

import java.time.Duration;

/**
 * How one call of a fan-out (or one exchange) runs beyond its request: whether the fan-out needs it
 * ({@code required}), whether it is hedged, whether its answer may come from the partner's cache.
 * Immutable; {@link #NONE} is a plain call.
 *
 * <pre>{@code
 * CallOptions.NONE.withRequired(true).withHedging(new Hedging(Duration.ofMillis(50), 1))
 * }</pre>
 *
 * @param required when true, the call's failure ends its fan-out at once and cancels the others
 * @param hedging  null, or how the call is hedged (GET and HEAD only)
 * @param caching  null, or how long its answers may be served from the partner's cache (GET and HEAD only)
 * @param timeout  null for the partner's {@code callTimeout}, or a shorter bound for this call alone, retries
 *                 included (a longer one is cut to the partner's)
 */
public record CallOptions(boolean required, Hedging hedging, Caching caching, Duration timeout) {
    public static final CallOptions NONE = new CallOptions(false, null, null, null);

    public CallOptions {
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("timeout: " + timeout.toMillis() + " ms (accepted: > 0)");
        }
    }

    public CallOptions withRequired(boolean required) {
        return new CallOptions(required, hedging, caching, timeout);
    }

    public CallOptions withHedging(Hedging hedging) {
        return new CallOptions(required, hedging, caching, timeout);
    }

    public CallOptions withCaching(Caching caching) {
        return new CallOptions(required, hedging, caching, timeout);
    }

    public CallOptions withTimeout(Duration timeout) {
        return new CallOptions(required, hedging, caching, timeout);
    }
}
