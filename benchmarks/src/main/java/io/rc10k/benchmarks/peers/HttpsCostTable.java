package io.rc10k.benchmarks.peers;

import io.rc10k.benchmarks.efficiency.Efficiency.Window;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.IntStream;

/**
 * The Markdown table of an {@link HttpsCost} run: one round's windows, or medians over every round. A ratio
 * is taken within a round — a variant's figure over the cleartext HTTP/1.1 row's in the same round, or over
 * its twin's (the same row without TLS) — and its median over the rounds is shown with its range, so drift
 * between rounds cancels.
 */
final class HttpsCostTable {
    private final int calls;
    private final Map<String, List<Window>> windows;
    private final int round;

    /** {@code round}: 0-based, or -1 for the medians over every round. */
    HttpsCostTable(int calls, Map<String, List<Window>> windows, int round) {
        this.calls = calls;
        this.windows = windows;
        this.round = round;
    }

    String render() {
        StringBuilder out = new StringBuilder(round < 0
                ? String.format(Locale.ROOT, "medians over %d rounds, C = %d; ratios: each round's to its %s row, "
                        + "median (range)%n", rounds(), calls, HttpsVariant.BASELINE)
                : String.format(Locale.ROOT, "round %d, C = %d%n", round + 1, calls));
        out.append("| partner calls | mashups/s | server CPU µs per mashup | of which system | CPU ÷ ")
                .append(HttpsVariant.BASELINE).append(" | mashups/s ÷ ").append(HttpsVariant.BASELINE)
                .append(" | CPU ÷ the same without TLS | stub CPU µs per call | failed |\n")
                .append("|---|---|---|---|---|---|---|---|---|\n");
        for (String variant : windows.keySet()) {
            List<Window> taken = round < 0 ? windows.get(variant) : List.of(windows.get(variant).get(round));
            String twin = windows.containsKey(HttpsVariant.twinOf(variant)) ? HttpsVariant.twinOf(variant) : null;
            out.append(String.format(Locale.ROOT, "| %s | %,.0f | %.1f | %.0f %% | %s | %s | %s | %.1f | %,d |%n",
                    variant, figure(variant, Window::perSecond), figure(variant, Window::cpuMicrosPerRequest),
                    figure(variant, Window::systemPercent), ratio(variant, HttpsVariant.BASELINE,
                            Window::cpuMicrosPerRequest), ratio(variant, HttpsVariant.BASELINE, Window::perSecond),
                    twin == null ? "—" : ratio(variant, twin, Window::cpuMicrosPerRequest),
                    figure(variant, w -> w.stubCpuMillis() * 1000.0 / (w.requests() * (double) w.calls())),
                    taken.stream().mapToLong(Window::failed).sum()));
            for (Window w : taken) {
                if (w.firstFailure() != null) {
                    out.append("  first failure of ").append(variant).append(": ").append(w.firstFailure())
                            .append('\n');
                }
            }
        }
        return out.toString();
    }

    /** The figure in this table's round, or its median over the rounds. */
    private double figure(String variant, ToDoubleFunction<Window> figure) {
        List<Window> all = windows.get(variant);
        return round >= 0 ? figure.applyAsDouble(all.get(round)) : median(all.stream().mapToDouble(figure).toArray());
    }

    /** The variant's figure over {@code yardstick}'s in the same round: this round's, or the median over rounds (range). */
    private String ratio(String variant, String yardstick, ToDoubleFunction<Window> figure) {
        List<Window> mine = windows.get(variant);
        List<Window> base = windows.get(yardstick);
        double[] ratios = IntStream.range(0, mine.size())
                .mapToDouble(r -> figure.applyAsDouble(mine.get(r)) / figure.applyAsDouble(base.get(r))).toArray();
        if (round >= 0) {
            return String.format(Locale.ROOT, "%.2f", ratios[round]);
        }
        double[] sorted = ratios.clone();
        Arrays.sort(sorted);
        return sorted.length == 1 ? String.format(Locale.ROOT, "%.2f", sorted[0])
                : String.format(Locale.ROOT, "%.2f (%.2f–%.2f)", median(sorted), sorted[0],
                        sorted[sorted.length - 1]);
    }

    private int rounds() {
        return windows.values().iterator().next().size();
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
