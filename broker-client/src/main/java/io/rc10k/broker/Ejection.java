package io.rc10k.broker;

import java.time.Duration;

/**
 * Passive outlier ejection over a partner's hosts: a host whose calls fail this many times in a row
 * (as the circuit breaker counts failures) takes no calls for the cool-down, then takes them again.
 * The last host that is not ejected never is: calls always have somewhere to go.
 *
 * <pre>{@code
 * builder.ejection(new Ejection(3, Duration.ofSeconds(30)));
 * }</pre>
 */
public record Ejection(int consecutiveFailures, Duration coolDown) {
    public static final Ejection DEFAULT = new Ejection(5, Duration.ofSeconds(10));

    public Ejection {
        if (consecutiveFailures < 1 || coolDown == null || coolDown.isNegative() || coolDown.isZero()) {
            throw new IllegalArgumentException("ejection: consecutiveFailures " + consecutiveFailures
                    + ", coolDown " + coolDown + " (accepted: consecutiveFailures >= 1, coolDown > 0)");
        }
    }
}
