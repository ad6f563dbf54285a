package io.rc10k.broker;

import java.time.Duration;

/**
 * When a partner's circuit breaker opens and for how long; see docs/broker-client.md.
 *
 * <pre>{@code
 * builder.circuitBreaker(new CircuitBreakerSettings(true, 5, 0.5, 20, 100, Duration.ofSeconds(10)));
 * }</pre>
 *
 * @param enabled             false turns the breaker off
 * @param consecutiveFailures this many failures in a row open it
 * @param failureRatio        or this share of failures over the last {@code window} calls…
 * @param minimumCalls        …once at least this many calls were seen
 * @param window              the number of recent calls the ratio is taken over
 * @param coolDown            how long it stays open before one probe may go through
 */
public record CircuitBreakerSettings(boolean enabled, int consecutiveFailures, double failureRatio,
        int minimumCalls, int window, Duration coolDown) {
    public static final CircuitBreakerSettings DEFAULT = new CircuitBreakerSettings(true, 10, 0.5, 20, 100,
            Duration.ofSeconds(5));
    public static final CircuitBreakerSettings DISABLED = new CircuitBreakerSettings(false, 1, 1, 1, 1,
            Duration.ofSeconds(1));

    public CircuitBreakerSettings {
        if (consecutiveFailures < 1 || !(failureRatio > 0 && failureRatio <= 1) || minimumCalls < 1 || window < 1
                || minimumCalls > window || coolDown == null || coolDown.isNegative() || coolDown.isZero()) {
            throw new IllegalArgumentException("circuitBreaker: consecutiveFailures " + consecutiveFailures
                    + ", failureRatio " + failureRatio + ", minimumCalls " + minimumCalls + ", window " + window
                    + ", coolDown " + coolDown + " (accepted: consecutiveFailures >= 1, 0 < failureRatio <= 1, "
                    + "1 <= minimumCalls <= window, coolDown > 0)");
        }
    }
}
