package io.rc10k.broker.fuzz;

import java.util.Random;

/**
 * How long a fuzz run goes, from its system properties: {@code -Dfuzz.seed=S}, {@code -Dfuzz.tries=N} or
 * {@code -Dfuzz.minutes=M} (a random seed when minutes come without one), {@code -Dfuzz.try=I} (the one try I).
 * By default a fixed seed and the test's quick number of tries.
 */
record FuzzRun(long seed, long deadlineNanos, int tries, Integer only, String minutes) {
    static FuzzRun fromProperties(long defaultSeed, int defaultTries) {
        String minutes = System.getProperty("fuzz.minutes");
        Long seed = Long.getLong("fuzz.seed");
        return new FuzzRun(seed != null ? seed : minutes != null ? new Random().nextLong() : defaultSeed,
                minutes == null ? Long.MAX_VALUE : System.nanoTime() + (long) (Double.parseDouble(minutes) * 60e9),
                minutes != null ? Integer.MAX_VALUE : Integer.getInteger("fuzz.tries", defaultTries),
                Integer.getInteger("fuzz.try"), minutes);
    }
}
