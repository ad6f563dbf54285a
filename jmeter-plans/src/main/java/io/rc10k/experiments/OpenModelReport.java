package io.rc10k.experiments;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The files of the open-model experiment: charts, a summary with the last stable phase per mode, and its checks. */
final class OpenModelReport {
    private static final String[][] COLORS = {{"sync", "#c0392b"}, {"async", "#2471a3"}, {"virtual", "#229954"}};

    private final List<OpenModelExperiment.Phase> phases;
    private final OpenModelExperiment.Settings settings;
    private final long deadlineMillis;
    private final Checks checks = new Checks();

    OpenModelReport(List<OpenModelExperiment.Phase> phases, OpenModelExperiment.Settings settings,
            long deadlineMillis) {
        this.phases = phases;
        this.settings = settings;
        this.deadlineMillis = deadlineMillis;
        check();
    }

    List<String> checks() {
        return checks.failures();
    }

    private List<OpenModelExperiment.Phase> of(String mode) {
        return phases.stream().filter(p -> p.mode().equals(mode)).toList();
    }

    /** The last phase of a mode before its first unstable one. */
    Optional<OpenModelExperiment.Phase> lastStable(String mode) {
        OpenModelExperiment.Phase last = null;
        for (OpenModelExperiment.Phase p : of(mode)) {
            if (!p.stable()) {
                break;
            }
            last = p;
        }
        return Optional.ofNullable(last);
    }

    private void check() {
        for (OpenModelExperiment.Phase p : of("async")) {
            checks.add(p.stable(), String.format(Locale.ROOT, "async at %.3f s inter-arrival (%.0f/s): %d sent, %d errors, "
                    + "p99 %,d ms (deadline %,d ms), %.0f/s achieved, at most %.0f inbound and %.0f outbound at once: %s",
                    p.interArrival(), p.target(), p.sent(), p.errors(), p.p99(), deadlineMillis, p.achieved(),
                    p.inboundMax(), p.outboundMax(), p.stable() ? "stable" : "NOT stable"));
        }
    }

    void write(Path out) throws IOException {
        SvgChart concurrency = new SvgChart("Requests held at once against arrival rate (C = 6, calls of 5 s)",
                "arrival rate (requests/s)", "requests in flight (max per phase)", true, true);
        SvgChart throughput = new SvgChart("Throughput against arrival rate (C = 6, calls of 5 s)",
                "arrival rate (requests/s)", "answered with 200 per second", true, true);
        double[] targets = settings.interArrivals().stream().mapToDouble(ia -> 1 / ia).toArray();
        throughput.add(new SvgChart.Series("arrival rate", "#888888", true, targets, targets));
        for (String[] mode : COLORS) {
            List<OpenModelExperiment.Phase> s = of(mode[0]);
            if (s.isEmpty()) {
                continue;
            }
            double[] x = s.stream().mapToDouble(OpenModelExperiment.Phase::target).toArray();
            concurrency.add(new SvgChart.Series(mode[0] + ", outbound", mode[1], false, x,
                    s.stream().mapToDouble(OpenModelExperiment.Phase::outboundMax).toArray()));
            concurrency.add(new SvgChart.Series(mode[0] + ", inbound", mode[1], true, x,
                    s.stream().mapToDouble(OpenModelExperiment.Phase::inboundMax).toArray()));
            throughput.add(new SvgChart.Series(mode[0], mode[1], false, x,
                    s.stream().mapToDouble(OpenModelExperiment.Phase::throughput).toArray()));
        }
        concurrency.write(out.resolve("open-model-concurrency.svg"));
        throughput.write(out.resolve("open-model-throughput.svg"));

        StringBuilder md = new StringBuilder()
                .append(Experiments.provenance())
                .append(String.format(Locale.ROOT, "%nMashup `%s` from `%s` (deadline %,d ms); phases of %d s. "
                        + "Charts: [concurrency](open-model-concurrency.svg), [throughput](open-model-throughput.svg); "
                        + "every number: [open-model.csv](open-model.csv).%n%n", settings.path(), settings.config(),
                        deadlineMillis, settings.phaseSeconds()))
                .append("| mode | inter-arrival (s) | target/s | sent | achieved/s | errors | p50 / p99 / max (ms) "
                        + "| 200s/s | inbound (mean / max) | outbound (mean / max) | live threads (max) | stable |\n"
                        + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (OpenModelExperiment.Phase p : phases) {
            md.append(String.format(Locale.ROOT, "| %s | %.3f | %.1f | %,d | %.1f | %,d | %,d / %,d / %,d | %.1f | "
                    + "%.0f / %.0f | %.0f / %.0f | %.0f | %s |%n", p.mode(), p.interArrival(), p.target(), p.sent(),
                    p.achieved(), p.errors(), p.p50(), p.p99(), p.max(), p.throughput(), p.inboundMean(),
                    p.inboundMax(), p.outboundMean(), p.outboundMax(), p.liveMax(), p.stable() ? "yes" : "**no**"));
        }
        md.append("\n## Last stable phase per mode\n\n");
        for (String[] mode : COLORS) {
            if (of(mode[0]).isEmpty()) {
                continue;
            }
            md.append("- ").append(mode[0]).append(": ").append(lastStable(mode[0]).map(p -> String.format(Locale.ROOT,
                    "%.3f s inter-arrival (%.0f/s), %.0f inbound and %.0f outbound requests at once", p.interArrival(),
                    p.target(), p.inboundMax(), p.outboundMax())).orElse("none")).append('\n');
        }
        md.append(checks.markdown());
        ResultsPage.write(out.resolve("open-model.md"), "Open model: arrival rate against stability (the paper's Fig. 5)", md.toString());
    }
}
