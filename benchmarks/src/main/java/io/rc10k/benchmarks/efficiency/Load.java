package io.rc10k.benchmarks.efficiency;

import io.rc10k.harness.CommandLine;

/**
 * The load every measured window of the CPU experiments runs under ({@link Measurement}): kept-alive connections
 * with one request in flight on each, the longest warm-up before a window (it ends sooner once steady), and the
 * measured window itself. The options that set it — {@code --connections N --warmup MS --measure MS} — are read
 * here ({@link Reader}) for {@link Efficiency} and the peers comparisons alike.
 */
public record Load(int connections, long warmupMillis, long measureMillis) {
    public Load {
        if (connections < 1) {
            throw new IllegalArgumentException("--connections: " + connections + " (accepted: at least 1)");
        }
        if (warmupMillis < 0 || measureMillis < 100) {
            throw new IllegalArgumentException("--warmup " + warmupMillis + ", --measure " + measureMillis
                    + " (accepted: warm-up at least 0 ms, measure at least 100 ms)");
        }
    }

    /** The windows as {@code defaults} takes them; the options the line gives change them. */
    public static Reader reader(Load defaults) {
        return new Reader(defaults);
    }

    /** The load options of a command line, read as the cursor reaches them. Not thread-safe. */
    public static final class Reader {
        private int connections;
        private long warmupMillis;
        private long measureMillis;

        private Reader(Load defaults) {
            this.connections = defaults.connections();
            this.warmupMillis = defaults.warmupMillis();
            this.measureMillis = defaults.measureMillis();
        }

        /** Takes the load option the line stands on, with its value; false for any other option. */
        public boolean read(CommandLine line) {
            switch (line.option()) {
                case "--connections" -> connections = line.intValue();
                case "--warmup" -> warmupMillis = line.longValue();
                case "--measure" -> measureMillis = line.longValue();
                default -> {
                    return false;
                }
            }
            return true;
        }

        /** The load read; an {@link IllegalArgumentException} naming the option when a value is out of range. */
        public Load get() {
            return new Load(connections, warmupMillis, measureMillis);
        }
    }
}
