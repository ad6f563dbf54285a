package io.rc10k.benchmarks.peers;

import io.rc10k.benchmarks.efficiency.Efficiency.Window;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * The Markdown table of a {@link Peers} run: one round's windows, or the median of every figure over
 * all rounds (each figure's own median; the ratios and the efficiency are taken between medians).
 * The hello floor's row is its requests; every other row is mashups of C calls. A row is divided by the best
 * peer of its protocol: h2c rows (named {@code … h2c}) by the best h2c peer, the others by the best HTTP/1.1 one
 * (nginx's included).
 */
final class PeersTable {
    private final int calls;
    private final Map<String, List<Window>> windows;
    private final int round;

    /** {@code round}: 0-based, or -1 for the medians over every round. */
    PeersTable(int calls, Map<String, List<Window>> windows, int round) {
        this.calls = calls;
        this.windows = windows;
        this.round = round;
    }

    double perSecond(String server) {
        return figure(server, Window::perSecond);
    }

    double cpuMicros(String server) {
        return figure(server, Window::cpuMicrosPerRequest);
    }

    /** (1 + C) × CPU per hello ÷ CPU per mashup. */
    double efficiency(String server) {
        return (1 + calls) * cpuMicros("hello") / cpuMicros(server);
    }

    /**
     * The rival peer measured with the most mashups/s among those whose calls go over the protocol of {@code server};
     * null when no such peer was measured (a run of chosen rows).
     */
    String bestPeer(String server) {
        boolean h2c = server.endsWith(Peers.H2C);
        return Stream.concat(Peers.PEERS.stream().filter(Peers.Peer::rival).map(Peers.Peer::name),
                        Stream.of(NginxSsiPeer.NAME))
                .filter(p -> windows.containsKey(p) && p.endsWith(Peers.H2C) == h2c)
                .max(Comparator.comparingDouble(this::perSecond)).orElse(null);
    }

    String render() {
        String bests = Objects.requireNonNullElse(bestPeer(""), "none measured") + " (HTTP/1.1), "
                + Objects.requireNonNullElse(bestPeer(Peers.H2C), "none measured") + " (h2c)";
        StringBuilder out = new StringBuilder(round < 0
                ? String.format(Locale.ROOT, "medians over %d rounds, C = %d; best peer: %s%n", rounds(), calls, bests)
                : String.format(Locale.ROOT, "round %d, C = %d; best peer: %s%n", round + 1, calls, bests));
        out.append("| server | mashups/s | ").append(round < 0 ? "rounds' range" : "warm-up s")
                .append(" | server CPU µs per mashup | of which system | efficiency | mashups/s ÷ best peer's "
                        + "| CPU ÷ best peer's | stub CPU µs per call | failed |\n")
                .append("|---|---|---|---|---|---|---|---|---|---|\n");
        for (String server : windows.keySet()) {
            boolean hello = server.equals("hello");
            String best = hello ? null : bestPeer(server);
            List<Window> taken = round < 0 ? windows.get(server) : List.of(windows.get(server).get(round));
            String second = round < 0
                    ? String.format(Locale.ROOT, "%,.0f–%,.0f", min(taken, Window::perSecond),
                            max(taken, Window::perSecond))
                    : String.format(Locale.ROOT, "%.0f%s", taken.get(0).warmupMillis() / 1000.0,
                            taken.get(0).steady() || taken.get(0).warmupMillis() == 0 ? "" : " (not steady)");
            out.append(String.format(Locale.ROOT, "| %s | %,.0f | %s | %.1f | %.0f %% | %s | %s | %s | %s | %,d |%n",
                    hello ? "hello (floor, per request)" : server, perSecond(server), second, cpuMicros(server),
                    figure(server, Window::systemPercent),
                    hello ? "—" : String.format(Locale.ROOT, "%.2f", efficiency(server)),
                    hello || best == null ? "—" : String.format(Locale.ROOT, "%.2f", perSecond(server) / perSecond(best)),
                    hello || best == null ? "—" : String.format(Locale.ROOT, "%.2f", cpuMicros(server) / cpuMicros(best)),
                    hello ? "—" : String.format(Locale.ROOT, "%.1f", figure(server,
                            w -> w.stubCpuMillis() * 1000.0 / (w.requests() * (double) w.calls()))),
                    taken.stream().mapToLong(Window::failed).sum()));
            for (Window w : taken) {
                if (w.firstFailure() != null) {
                    out.append("  first failure of ").append(server).append(": ").append(w.firstFailure()).append('\n');
                }
            }
        }
        return out.toString();
    }

    private int rounds() {
        return windows.values().iterator().next().size();
    }

    /** The figure in this table's round, or its median over the rounds. */
    private double figure(String server, ToDoubleFunction<Window> figure) {
        List<Window> all = windows.get(server);
        if (round >= 0) {
            return figure.applyAsDouble(all.get(round));
        }
        double[] sorted = all.stream().mapToDouble(figure).sorted().toArray();
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private static double min(List<Window> taken, ToDoubleFunction<Window> figure) {
        return taken.stream().mapToDouble(figure).min().orElse(Double.NaN);
    }

    private static double max(List<Window> taken, ToDoubleFunction<Window> figure) {
        return taken.stream().mapToDouble(figure).max().orElse(Double.NaN);
    }
}
