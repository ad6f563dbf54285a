package io.rc10k.benchmarks.peers;

import io.rc10k.benchmarks.efficiency.Load;
import io.rc10k.benchmarks.launch.Launch;
import io.rc10k.harness.CommandLine;

/**
 * What the comparisons in interleaved rounds share ({@link Peers}, {@link HttpsCost}): C, how many times every
 * server is measured, how each window is taken, and how the servers are launched — with the options that set them,
 * {@code --calls C --rounds R}, the {@link Load} options and the {@link Launch} options ({@link Reader}).
 *
 * @param calls  C, the partner calls of every mashup
 * @param rounds how many times every server is measured, in turn ({@link InterleavedRounds})
 * @param load   each window's load; its warm-up is the first round's longest
 */
public record Rounds(int calls, int rounds, Load load, Launch launch) {
    public Rounds {
        if (calls < 1 || calls > 64) {
            throw new IllegalArgumentException("--calls: " + calls + " (accepted: 1 to 64)");
        }
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds: " + rounds + " (accepted: at least 1)");
        }
    }

    /** C = 6, 3 rounds, 64 connections (as {@code wrk -c64}), warm-up at most 15 s, 10 s measured. */
    public static Rounds defaults() {
        return new Rounds(6, 3, new Load(64, 15_000, 10_000), Launch.defaults());
    }

    /** The same rounds with another launch. */
    public Rounds with(Launch other) {
        return new Rounds(calls, rounds, load, other);
    }

    /**
     * The usage of these options, for a tool's one-line usage: {@code --calls C (6) --rounds R (3) …}; {@code java}
     * says what the servers' java runs.
     */
    static String usage(String java) {
        return "--calls C (6) --rounds R (3) --connections N (64) --warmup MS (15000; round 1 at least half of it, "
                + "later rounds at most " + InterleavedRounds.LATER_WARMUP_MILLIS + ") --measure MS (10000) "
                + "--mashup-jar PATH --stub-jar PATH --benchmarks-jar PATH --java PATH (" + java + ") "
                + "--jvm-arg ARG (repeatable)";
    }

    static Reader reader(Rounds defaults) {
        return new Reader(defaults);
    }

    /** The options of a command line that set the rounds, read as the cursor reaches them. Not thread-safe. */
    static final class Reader {
        private int calls;
        private int rounds;
        private final Load.Reader load;
        private final Launch.Reader launch;

        private Reader(Rounds defaults) {
            this.calls = defaults.calls();
            this.rounds = defaults.rounds();
            this.load = Load.reader(defaults.load());
            this.launch = Launch.reader(defaults.launch(), true);
        }

        /** Takes the option the line stands on if it is one of these; any other option is unknown: a bad line. */
        void readOrUnknown(CommandLine line) {
            switch (line.option()) {
                case "--calls" -> calls = line.intValue();
                case "--rounds" -> rounds = line.intValue();
                default -> {
                    if (!load.read(line)) {
                        launch.readOrUnknown(line);
                    }
                }
            }
        }

        /** The rounds read; an {@link IllegalArgumentException} naming the option when a value is out of range. */
        Rounds get() {
            return new Rounds(calls, rounds, load.get(), launch.get());
        }
    }
}
