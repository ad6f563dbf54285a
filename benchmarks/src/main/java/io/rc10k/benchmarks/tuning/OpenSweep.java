package io.rc10k.benchmarks.tuning;

import io.rc10k.benchmarks.load.AnswerTally;
import io.rc10k.benchmarks.load.OpenModelLoad;
import io.rc10k.harness.Prometheus;
import io.rc10k.harness.ServerProcess;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * A knob's values under open-model load ({@link OpenModelLoad}: requests sent on schedule whatever the server
 * does, latency from each request's intended time, so no coordinated omission): one mashup server per value,
 * all started at once, then round after round (each starting with the next value) a warm-up phase and a measured
 * phase against each in turn. Per
 * phase: the answers by kind ({@link AnswerTally}), latency percentiles of the admitted answers, the server's
 * CPU per answer from {@code /proc}, and its GC pauses from its own {@code /metrics}.
 */
final class OpenSweep {
    /** The columns {@link #addRows} fills after the knob's own. */
    static final List<String> COLUMNS = List.of("sent", "200 complete", "503", "other", "answer ms p50 / p99 / max",
            "200s/s", "server CPU µs per answer", "GC pauses: count, total ms");
    /** The knob's own columns, then {@link #COLUMNS}. */
    static List<String> columns(List<String> knob) {
        List<String> all = new ArrayList<>(knob);
        all.addAll(COLUMNS);
        return all;
    }

    /** Later rounds warm up this long at most: the JIT is done; pools and caches refill. */
    private static final long LATER_WARMUP_MILLIS = 2_000;

    /**
     * One measured phase.
     *
     * @param cpuMillis     the server's CPU (user + system) over the phase and its drain
     * @param gcPauses      GC pauses the server counted over the phase
     * @param gcPauseMillis their total
     */
    record Phase(AnswerTally.Counts counts, long sent, double seconds, long cpuMillis, double gcPauses,
            double gcPauseMillis) {
        long answers() {
            return counts.answered() - counts.shed();
        }

        double cpuMicrosPerAnswer() {
            return cpuMillis * 1000.0 / Math.max(1, counts.answered());
        }

        double completePerSecond() {
            return counts.complete() / seconds;
        }

        Histogram latency() {
            return counts.fromIntended();
        }
    }

    private OpenSweep() {
    }

    /**
     * Every value's server through the rounds at {@code rate} requests per second of {@link Rig#MASHUP}; each
     * request bounded by the client at {@code deadlineMillis} + 10 s.
     */
    static Map<String, List<Phase>> run(Rig rig, Map<String, Rig.Server> launches, double rate, long deadlineMillis)
            throws Exception {
        Rig.Settings s = rig.settings();
        Map<String, ServerProcess> servers = rig.start(launches);
        Map<String, List<Phase>> phases = new LinkedHashMap<>();
        try {
            for (int round = 0; round < s.rounds(); round++) {
                System.out.println("round " + (round + 1) + " of " + s.rounds());
                long warmup = round == 0 ? s.warmupMillis() : Math.min(s.warmupMillis(), LATER_WARMUP_MILLIS);
                List<Map.Entry<String, ServerProcess>> order = new ArrayList<>(servers.entrySet());
                Collections.rotate(order, -round);
                for (Map.Entry<String, ServerProcess> e : order) {
                    if (warmup > 0) {
                        phase(rig, e.getValue(), rate, warmup, deadlineMillis);
                    }
                    Phase p = phase(rig, e.getValue(), rate, s.measureMillis(), deadlineMillis);
                    System.out.printf(Locale.ROOT, "%s: %s; p99 %.1f ms, %.1f µs CPU per answer%n", e.getKey(),
                            p.counts().line(), p.latency().getValueAtPercentile(99) / 1000.0, p.cpuMicrosPerAnswer());
                    phases.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(p);
                }
            }
            return phases;
        } finally {
            servers.values().forEach(ServerProcess::close);
        }
    }

    /** One phase against one server, waited out (bounded) so that its CPU covers every answer it sent. */
    static Phase phase(Rig rig, ServerProcess server, double rate, long millis, long deadlineMillis) throws Exception {
        URI target = server.uri().resolve(Rig.MASHUP);
        AnswerTally tally = new AnswerTally(deadlineMillis, 50);
        OpenModelLoad load = new OpenModelLoad(rig.client(), i -> target, deadlineMillis + 10_000);
        Prometheus before = rig.metrics(server);
        long[] cpuBefore = server.cpuMillis();
        long start = System.nanoTime();
        load.send(rate, Math.max(1, Math.round(rate * millis / 1000.0)), tally);
        double seconds = (System.nanoTime() - start) / 1e9;
        if (!load.awaitEnds(TimeUnit.MILLISECONDS.toNanos(deadlineMillis + 15_000))) {
            System.out.println(load.outstanding() + " requests still without an end " + (deadlineMillis + 15_000)
                    + " ms after the last was sent");
        }
        long[] cpuAfter = server.cpuMillis();
        Prometheus after = rig.metrics(server);
        return new Phase(tally.counts(), load.sent(), seconds, cpuAfter[0] + cpuAfter[1] - cpuBefore[0] - cpuBefore[1],
                after.sum("jvm_gc_pause_seconds_count", "") - before.sum("jvm_gc_pause_seconds_count", ""),
                1000 * (after.sum("jvm_gc_pause_seconds_sum", "") - before.sum("jvm_gc_pause_seconds_sum", "")));
    }

    /**
     * A row per value: {@code knobCells} first, then {@link #COLUMNS}, each the median over the rounds (counts
     * summed); the p99 with each round's value when there are several.
     */
    static void addRows(Table table, Map<String, List<Phase>> phases, Map<String, List<String>> knobCells) {
        phases.forEach((value, list) -> {
            List<String> cells = new ArrayList<>(knobCells.get(value));
            cells.add(String.format(Locale.ROOT, "%,d", list.stream().mapToLong(Phase::sent).sum()));
            cells.add(String.format(Locale.ROOT, "%,d", list.stream().mapToLong(p -> p.counts().complete()).sum()));
            cells.add(String.format(Locale.ROOT, "%,d", list.stream().mapToLong(p -> p.counts().shed()).sum()));
            cells.add(other(list));
            cells.add(latency(list));
            cells.add(String.format(Locale.ROOT, "%,.0f", ClosedSweep.median(list.stream()
                    .mapToDouble(Phase::completePerSecond).toArray())));
            cells.add(String.format(Locale.ROOT, "%,.0f", ClosedSweep.median(list.stream()
                    .mapToDouble(Phase::cpuMicrosPerAnswer).toArray())));
            cells.add(String.format(Locale.ROOT, "%.0f, %.0f", ClosedSweep.median(list.stream()
                    .mapToDouble(Phase::gcPauses).toArray()), ClosedSweep.median(list.stream()
                    .mapToDouble(Phase::gcPauseMillis).toArray())));
            table.add(cells.toArray(String[]::new));
        });
    }

    /** Answers other than a complete 200 or a 503, by kind, summed over the rounds: {@code 200 partial 3, 504 1}. */
    private static String other(List<Phase> list) {
        long partial = list.stream().mapToLong(p -> p.counts().partial()).sum();
        long badGateway = list.stream().mapToLong(p -> p.counts().badGateway()).sum();
        long timeout = list.stream().mapToLong(p -> p.counts().gatewayTimeout()).sum();
        long status = list.stream().mapToLong(p -> p.counts().otherStatus()).sum();
        long failed = list.stream().mapToLong(p -> p.counts().failed()).sum();
        List<String> kinds = new ArrayList<>();
        if (partial > 0) {
            kinds.add("200 partial " + partial);
        }
        if (badGateway > 0) {
            kinds.add("502 " + badGateway);
        }
        if (timeout > 0) {
            kinds.add("504 " + timeout);
        }
        if (status + failed > 0) {
            kinds.add((status + failed) + " (" + ClosedSweep.shorten(list.stream()
                    .flatMap(p -> p.counts().unexpected().keySet().stream()).findFirst().orElse("?")) + ")");
        }
        return kinds.isEmpty() ? "0" : String.join(", ", kinds);
    }

    /** Median p50, p99 and max over the rounds, in ms; with several rounds the p99 of each after it. */
    private static String latency(List<Phase> list) {
        if (list.stream().allMatch(p -> p.latency().getTotalCount() == 0)) {
            return "—";
        }
        double[] p99s = list.stream().mapToDouble(p -> p.latency().getValueAtPercentile(99) / 1000.0).toArray();
        String each = list.size() < 2 ? "" : " (p99s " + String.join(", ", Arrays.stream(p99s)
                .mapToObj(v -> String.format(Locale.ROOT, "%.0f", v)).toList()) + ")";
        return String.format(Locale.ROOT, "%.0f / %.0f / %.0f%s",
                ClosedSweep.median(list.stream().mapToDouble(p -> p.latency().getValueAtPercentile(50) / 1000.0)
                        .toArray()),
                ClosedSweep.median(p99s),
                ClosedSweep.median(list.stream().mapToDouble(p -> p.latency().getMaxValue() / 1000.0).toArray()),
                each);
    }
}
