package io.rc10k.benchmarks.tuning;

import io.rc10k.benchmarks.efficiency.Efficiency.Window;
import io.rc10k.benchmarks.efficiency.Load;
import io.rc10k.benchmarks.peers.InterleavedRounds;
import io.rc10k.benchmarks.peers.Rounds;
import io.rc10k.harness.Prometheus;
import io.rc10k.harness.ServerProcess;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * A knob's values under closed-loop load: one mashup server per value, all started at once and measured in
 * interleaved rounds, each starting with the next value ({@link InterleavedRounds}: kept-alive connections, one
 * request in flight on each, the server's CPU from {@code /proc}), so that the machine's drift falls on every value
 * alike. Each value is compared with the baseline (the server's default) of the same round: the ratios, not the
 * absolute figures, are what a noisy machine can tell.
 */
final class ClosedSweep {
    /** The columns {@link #addRows} fills after the knob's own. */
    static final List<String> COLUMNS = List.of("mashups/s", "÷ baseline", "server CPU µs per answer", "÷ baseline",
            "failed");

    private ClosedSweep() {
    }

    /**
     * What a sweep saw.
     *
     * @param windows each value's windows, one per round
     * @param end     each value's server's {@code /metrics} after the last round
     */
    record Result(Map<String, List<Window>> windows, Map<String, Prometheus> end) {
    }

    /** The knob's own columns, then {@link #COLUMNS}. */
    static List<String> columns(List<String> knob) {
        List<String> all = new ArrayList<>(knob);
        all.addAll(COLUMNS);
        return all;
    }

    /** Runs every value's server through the rounds, then scrapes each once more. */
    static Result run(Rig rig, Map<String, Rig.Server> launches, int calls, int connections) throws Exception {
        Rig.Settings s = rig.settings();
        Map<String, ServerProcess> servers = rig.start(launches);
        try {
            Map<String, InterleavedRounds.Target> targets = new LinkedHashMap<>();
            for (Map.Entry<String, ServerProcess> e : servers.entrySet()) {
                targets.put(e.getKey(), new InterleavedRounds.Target(e.getValue(), rig.stubProcess(),
                        e.getValue().uri().resolve(Rig.MASHUP), calls));
            }
            Map<String, List<Window>> windows = new InterleavedRounds(new Rounds(calls, s.rounds(),
                    new Load(connections, s.warmupMillis(), s.measureMillis()), s.launch())).rotating()
                    .measure(targets, new LinkedHashMap<>(), round -> "");
            Map<String, Prometheus> end = new LinkedHashMap<>();
            for (Map.Entry<String, ServerProcess> e : servers.entrySet()) {
                end.put(e.getKey(), rig.metrics(e.getValue()));
            }
            return new Result(windows, end);
        } finally {
            servers.values().forEach(ServerProcess::close);
        }
    }

    /**
     * A row per value: {@code knobCells} first (the value as the knob shows it), then {@link #COLUMNS}:
     * medians over the rounds, and the median of each round's ratio to {@code baseline} with its range.
     */
    static void addRows(Table table, Map<String, List<Window>> windows, String baseline,
            Map<String, List<String>> knobCells) {
        addRows(table, windows, baseline, knobCells, Map.of());
    }

    /** As {@link #addRows(Table, Map, String, Map)}, with {@code moreCells} of a value (if any) at the row's end. */
    static void addRows(Table table, Map<String, List<Window>> windows, String baseline,
            Map<String, List<String>> knobCells, Map<String, List<String>> moreCells) {
        List<Window> base = windows.get(baseline);
        windows.forEach((value, list) -> {
            List<String> cells = new ArrayList<>(knobCells.get(value));
            long failed = list.stream().mapToLong(Window::failed).sum();
            String firstFailure = list.stream().map(Window::firstFailure).filter(f -> f != null).findFirst()
                    .orElse(null);
            cells.add(String.format(Locale.ROOT, "%,.0f", median(list, Window::perSecond)));
            cells.add(value.equals(baseline) || base == null ? "1" : ratio(list, base, Window::perSecond));
            cells.add(String.format(Locale.ROOT, "%,.1f", median(list, ClosedSweep::cpuMicrosPerAnswer)));
            cells.add(value.equals(baseline) || base == null ? "1"
                    : ratio(list, base, ClosedSweep::cpuMicrosPerAnswer));
            cells.add(String.format(Locale.ROOT, "%,d", failed) + (firstFailure == null ? ""
                    : " (" + shorten(firstFailure) + ")"));
            cells.addAll(moreCells.getOrDefault(value, List.of()));
            table.add(cells.toArray(String[]::new));
        });
    }

    /** The median of each round's {@code of(value) ÷ of(baseline)}, with its range when there are several rounds. */
    static String ratio(List<Window> value, List<Window> baseline, ToDoubleFunction<Window> of) {
        int rounds = Math.min(value.size(), baseline.size());
        double[] ratios = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            ratios[r] = of.applyAsDouble(value.get(r)) / of.applyAsDouble(baseline.get(r));
        }
        Arrays.sort(ratios);
        if (!Double.isFinite(ratios[0]) || !Double.isFinite(ratios[rounds - 1])) {
            return "—";
        }
        String median = String.format(Locale.ROOT, "%.2f", median(ratios));
        return rounds < 2 ? median : median + String.format(Locale.ROOT, " (%.2f–%.2f)", ratios[0],
                ratios[rounds - 1]);
    }

    /**
     * The server's CPU per answer, complete or not: a mashup that failed (a part {@code too_large}, say) cost CPU
     * too, and a window of nothing but failures still has a cost per answer.
     */
    static double cpuMicrosPerAnswer(Window w) {
        return w.cpuMillis() * 1000.0 / Math.max(1, w.requests() + w.failed());
    }

    static double median(List<Window> windows, ToDoubleFunction<Window> of) {
        return median(windows.stream().mapToDouble(of).toArray());
    }

    /** The median of {@code values} (the mean of the middle two for an even count); NaN for none. */
    static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    /** A failure's first words, so that a table row stays one line. */
    static String shorten(String text) {
        String flat = text.replace('|', '/').replace('\n', ' ');
        return flat.length() <= 90 ? flat : flat.substring(0, 90) + "…";
    }
}
