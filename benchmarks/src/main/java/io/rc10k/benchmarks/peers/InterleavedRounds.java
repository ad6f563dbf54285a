package io.rc10k.benchmarks.peers;

import io.rc10k.benchmarks.capacity.StubProcess;
import io.rc10k.benchmarks.efficiency.Efficiency.Window;
import io.rc10k.benchmarks.efficiency.Measurement;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * How {@link Peers} and {@link HttpsCost} measure their servers: every server in turn, round after round
 * (round 1 every server, round 2 every server, …), because the machine is noisy and its noise drifts; a
 * window per server and round, taken by {@link Measurement}. Round 1 warms every server for at least half
 * the longest warm-up; later rounds only refill pools and caches, for at most {@value #LATER_WARMUP_MILLIS} ms.
 *
 * <pre>
 * Map&lt;String, List&lt;Window&gt;&gt; windows = new LinkedHashMap&lt;&gt;();
 * new InterleavedRounds(rounds).measure(targets, windows, round -&gt; new PeersTable(6, windows, round).render());
 * </pre>
 */
public final class InterleavedRounds {
    /** After the first round the JIT is done; a short warm-up only refills connection pools and caches. */
    static final long LATER_WARMUP_MILLIS = 4_000;

    /**
     * What one server is measured against.
     *
     * @param stubs the partner stubs it calls (their CPU is shown per call), or null for a server that calls none
     * @param calls C, the partner calls per request (0 for a server that calls none)
     */
    public record Target(ServerProcess server, StubProcess stubs, URI uri, int calls) {
    }

    private final int connections;
    private final long warmupMillis;
    private final long measureMillis;
    private final int rounds;
    private final boolean rotating;

    /** {@code rounds} rounds, each window under the rounds' load (whose warm-up is the first round's longest). */
    public InterleavedRounds(Rounds rounds) {
        this(rounds.load().connections(), rounds.load().warmupMillis(), rounds.load().measureMillis(),
                rounds.rounds(), false);
    }

    private InterleavedRounds(int connections, long warmupMillis, long measureMillis, int rounds, boolean rotating) {
        this.connections = connections;
        this.warmupMillis = warmupMillis;
        this.measureMillis = measureMillis;
        this.rounds = rounds;
        this.rotating = rotating;
    }

    /**
     * The same rounds, each starting one target later than the one before (round 2 with the map's second, …), so
     * that no target is always the one measured first, or right after the same neighbour.
     */
    public InterleavedRounds rotating() {
        return new InterleavedRounds(connections, warmupMillis, measureMillis, rounds, true);
    }

    /** Whether every window of every server counts: each request answered, the server's CPU seen. */
    static boolean clean(Map<String, List<Window>> windows) {
        return windows.values().stream().flatMap(List::stream).allMatch(Window::clean);
    }

    /**
     * Measures every target once per round, in the map's order (rotated, if {@link #rotating()}), adding each
     * window to {@code windows} (server → its windows, one per round so far); after each round prints
     * {@code roundTable} of it (0-based), which may read them.
     */
    public Map<String, List<Window>> measure(Map<String, Target> targets, Map<String, List<Window>> windows,
            IntFunction<String> roundTable) throws IOException {
        for (int round = 0; round < rounds; round++) {
            // Round 1 warms every server for at least half its longest warm-up: a fresh server can look
            // steady for two windows while still compiling (docs/results/peers.md, 2fdc2e5's round 1).
            Measurement measurement = round == 0
                    ? new Measurement(connections, warmupMillis / 2, warmupMillis, measureMillis)
                    : new Measurement(connections, Math.min(warmupMillis, LATER_WARMUP_MILLIS), measureMillis);
            System.out.println("round " + (round + 1) + " of " + rounds);
            List<Map.Entry<String, Target>> order = new ArrayList<>(targets.entrySet());
            if (rotating) {
                Collections.rotate(order, -round);
            }
            for (Map.Entry<String, Target> e : order) {
                Target t = e.getValue();
                windows.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(measurement.measure(t.server(),
                        t.stubs(), t.uri(), e.getKey(), "—", t.calls()));
            }
            System.out.println();
            System.out.print(roundTable.apply(round));
            System.out.println();
        }
        return windows;
    }
}
