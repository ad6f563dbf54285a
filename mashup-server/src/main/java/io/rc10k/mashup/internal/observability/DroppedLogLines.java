package io.rc10k.mashup.internal.observability;

import java.util.concurrent.atomic.LongAdder;

/**
 * Log lines the standalone server dropped rather than block a thread ({@link CountingAsyncAppender}),
 * since the JVM started; {@link MashupMetrics} serves them as {@code mashup_log_dropped_lines_total}.
 * Free of Logback types, so that the metrics load in a WAR, which has no Logback (and drops nothing).
 */
final class DroppedLogLines {
    private static final LongAdder DROPPED = new LongAdder();

    private DroppedLogLines() {
    }

    static void add() {
        DROPPED.increment();
    }

    static long count() {
        return DROPPED.sum();
    }
}
