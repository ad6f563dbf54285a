package io.rc10k.experiments;

import io.rc10k.harness.Prometheus;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The paper's Fig. 5, extended: an open model (requests arrive on schedule whatever the server does)
 * in phases of rising arrival rate against a mashup of C = 6 calls of 5 s each, once per mode with
 * a fresh server. Per phase: requests sent and answered, errors, latency percentiles, throughput,
 * and — sampled from {@code /metrics} once the phase is steady — concurrent inbound and outbound
 * requests and live threads. A phase is stable when every request got a 200, the 99th percentile is
 * within the mashup's deadline, and JMeter kept the schedule (≥ 95 % of the arrivals).
 *
 * <p>Writes {@code open-model.csv}, {@code open-model.md} and the charts
 * {@code open-model-concurrency.svg}, {@code open-model-throughput.svg}.</p>
 */
final class OpenModelExperiment {
    static final String CSV_HEADER = "mode,phase,inter_arrival_s,target_rps,sent,achieved_rps,ok,errors,p50_ms,p99_ms,"
            + "max_ms,throughput_rps,inbound_mean,inbound_max,outbound_mean,outbound_max,live_threads_max,stable";

    /**
     * Settings of one run.
     *
     * @param maxInFlight the server's {@code --max-inflight}; 0 leaves the server's own (derived) limit
     */
    record Settings(List<String> modes, String config, String path, List<Double> interArrivals, int phaseSeconds,
            int maxInFlight) {
    }

    /**
     * One phase of one mode.
     *
     * @param meanMillis the mean response time of the phase's requests, whatever their answer
     * @param shed       the phase's requests answered 503 (the server's admission limit, or a stop)
     */
    record Phase(String mode, int index, double interArrival, long sent, long ok, long p50, long p99, long max,
            double throughput, double inboundMean, double inboundMax, double outboundMean, double outboundMax,
            double liveMax, int phaseSeconds, long deadlineMillis, double meanMillis, long shed) {

        double target() {
            return 1 / interArrival;
        }

        double achieved() {
            return (double) sent / phaseSeconds;
        }

        long errors() {
            return sent - ok;
        }

        boolean stable() {
            return sent > 0 && errors() == 0 && p99 <= deadlineMillis && achieved() >= 0.95 * target();
        }

        String csv() {
            return String.format(Locale.ROOT, "%s,%d,%s,%.2f,%d,%.2f,%d,%d,%d,%d,%d,%.2f,%.0f,%.0f,%.0f,%.0f,%.0f,%s",
                    mode, index + 1, interArrival, target(), sent, achieved(), ok, errors(), p50, p99, max, throughput,
                    inboundMean, inboundMax, outboundMean, outboundMax, liveMax, stable());
        }
    }

    private final Lab lab;
    private final Settings settings;
    private final long deadlineMillis;
    private final List<Phase> phases = new ArrayList<>();

    OpenModelExperiment(Lab lab, Settings settings) throws IOException {
        this.lab = lab;
        this.settings = settings;
        this.deadlineMillis = deadline(lab.config(settings.config()));
    }

    /** The longest {@code deadlineMillis} in a definitions file (default 5 s where none is given). */
    static long deadline(Path config) throws IOException {
        Matcher m = Pattern.compile("\"deadlineMillis\"\\s*:\\s*(\\d+)")
                .matcher(Files.readString(config));
        long deadline = 0;
        while (m.find()) {
            deadline = Math.max(deadline, Long.parseLong(m.group(1)));
        }
        return deadline == 0 ? 5_000 : deadline;
    }

    /** The Open Model Thread Group schedule: one constant phase per inter-arrival, then a pause to drain. */
    String schedule() {
        String phases = settings.interArrivals().stream().map(ia -> {
            String rate = String.format(Locale.ROOT, "rate(%.3f/s)", 1 / ia);
            return rate + " even_arrivals(" + settings.phaseSeconds() + " s) " + rate;
        }).collect(Collectors.joining(" "));
        return phases + " pause(" + (deadlineMillis / 1000 + 5) + " s)";
    }

    List<String> run() throws IOException, InterruptedException {
        Files.createDirectories(lab.out());
        Path csv = lab.out().resolve("open-model.csv");
        Files.writeString(csv, CSV_HEADER + "\n");
        long runSeconds = (long) settings.interArrivals().size() * settings.phaseSeconds() + deadlineMillis / 1000 + 5;
        Progress progress = new Progress(settings.modes().size(), runSeconds + 15);
        try (ServerProcess stubs = lab.startStubs(3)) {
            for (String mode : settings.modes()) {
                progress.begin(mode + " mode, " + settings.interArrivals().size() + " phases of "
                        + settings.phaseSeconds() + " s (" + Progress.clock(runSeconds) + ")");
                List<Phase> measured = measure(mode, runSeconds);
                phases.addAll(measured);
                for (Phase p : measured) {
                    Files.writeString(csv, p.csv() + "\n", StandardOpenOption.APPEND);
                    System.out.printf(Locale.ROOT, "   %s %.4f s: %d sent (%.1f/s), %d errors (%d shed: 503), mean "
                            + "%.0f ms, p99 %d ms, in %.0f / out %.0f max, %s%n", mode, p.interArrival(), p.sent(),
                            p.achieved(), p.errors(), p.shed(), p.meanMillis(), p.p99(), p.inboundMax(),
                            p.outboundMax(), p.stable() ? "stable" : "NOT stable");
                }
                progress.end();
            }
        }
        OpenModelReport report = new OpenModelReport(phases, settings, deadlineMillis);
        report.write(lab.out());
        return report.checks();
    }

    private List<Phase> measure(String mode, long runSeconds) throws IOException, InterruptedException {
        int poolMax = mode.equals("sync") ? 4_000 : 64;
        Path jtl = lab.out().resolve("raw").resolve("open-model-" + mode + ".jtl");
        List<String> options = settings.maxInFlight() > 0
                ? List.of("--max-inflight", Integer.toString(settings.maxInFlight())) : List.of();
        try (ServerProcess server = lab.startMashup(lab.config(settings.config()), mode, poolMax, options)) {
            Lab.Run run = lab.runPlan(server, "open-model.jmx", jtl, Map.of("path", settings.path(),
                    "schedule", schedule(), "timeout", Long.toString(deadlineMillis + 20_000)),
                    Duration.ofSeconds(runSeconds + 180));
            List<Jtl.Sample> samples = run.samples();
            MetricsSampler sampler = run.metrics();
            long first = run.start();
            List<Phase> result = new ArrayList<>();
            long phaseMillis = settings.phaseSeconds() * 1_000L;
            for (int i = 0; i < settings.interArrivals().size(); i++) {
                long from = first + i * phaseMillis;
                long to = from + phaseMillis;
                List<Jtl.Sample> sent = samples.stream().filter(s -> s.start() >= from && s.start() < to).toList();
                long[] elapsed = sent.stream().mapToLong(Jtl.Sample::elapsed).sorted().toArray();
                long answered = sent.stream().filter(Jtl.Sample::ok).count();
                // Concurrency once the phase is steady: requests last about 5 s, so skip its first 10 s.
                List<Prometheus> steady = sampler.between(from + Math.min(10_000, phaseMillis / 2), to);
                result.add(new Phase(mode, i, settings.interArrivals().get(i), sent.size(),
                        sent.stream().filter(Jtl.Sample::ok).count(), percentile(elapsed, 50), percentile(elapsed, 99),
                        // Throughput: the phase's arrivals answered 200 and complete, per second of the phase.
                        elapsed.length == 0 ? 0 : elapsed[elapsed.length - 1], answered / (double) settings.phaseSeconds(),
                        ThreadCountExperiment.mean(steady, "mashup_inbound_inflight"),
                        ThreadCountExperiment.max(steady, "mashup_inbound_inflight"),
                        ThreadCountExperiment.mean(steady, "mashup_outbound_inflight"),
                        ThreadCountExperiment.max(steady, "mashup_outbound_inflight"),
                        ThreadCountExperiment.max(steady, "jvm_threads_live_threads"), settings.phaseSeconds(),
                        deadlineMillis, sent.stream().mapToLong(Jtl.Sample::elapsed).average().orElse(0),
                        sent.stream().filter(s -> "503".equals(s.code())).count()));
            }
            return result;
        }
    }

    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(p / 100 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
