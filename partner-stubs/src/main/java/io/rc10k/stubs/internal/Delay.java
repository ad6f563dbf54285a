package io.rc10k.stubs.internal;

import io.rc10k.stubs.StubOptions;
import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * How long a stub waits before answering: {@code delay} milliseconds, drawn from a distribution whose
 * mean is {@code delay}. Thread-safe; immutable.
 *
 * <ul>
 *   <li>{@code fixed} (default): exactly {@code delay};</li>
 *   <li>{@code uniform}: uniform on [0, 2 × delay];</li>
 *   <li>{@code exponential}: exponential with mean {@code delay};</li>
 *   <li>{@code lognormal}: log-normal with mean {@code delay} and shape {@code sigma} (default 0.5).</li>
 * </ul>
 * Draws are capped at {@link StubOptions#MAX_DELAY_MILLIS}.
 */
public record Delay(Distribution distribution, long meanMillis, double sigma) {
    public static final double DEFAULT_SIGMA = 0.5;
    public static final Delay NONE = new Delay(Distribution.FIXED, 0, DEFAULT_SIGMA);

    public enum Distribution {
        FIXED, UNIFORM, EXPONENTIAL, LOGNORMAL;

        String token() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Distribution parse(String value) throws BadParameterException {
            for (Distribution d : values()) {
                if (d.token().equals(value)) {
                    return d;
                }
            }
            throw new BadParameterException("dist", Behaviour.abbreviate(value), "one of fixed, uniform, exponential, lognormal");
        }
    }

    /** Draws one delay in milliseconds from {@code random}. */
    public long sample(RandomGenerator random) {
        if (meanMillis == 0) {
            return 0;
        }
        double millis = switch (distribution) {
            case FIXED -> meanMillis;
            case UNIFORM -> random.nextDouble() * 2 * meanMillis;
            case EXPONENTIAL -> -meanMillis * Math.log(1 - random.nextDouble());
            case LOGNORMAL -> Math.exp(Math.log(meanMillis) - sigma * sigma / 2 + sigma * random.nextGaussian());
        };
        return Math.min(StubOptions.MAX_DELAY_MILLIS, Math.round(millis));
    }
}
