package io.rc10k.benchmarks.load;

import com.sun.management.OperatingSystemMXBean;
import io.rc10k.benchmarks.capacity.StubProcess;
import io.rc10k.harness.CommandLine;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Open-model load against a mashup server in a process of its own: requests are sent at a fixed
 * arrival rate whatever the server does, and each latency is taken from the request's intended send
 * time (no coordinated omission).
 *
 * <pre>
 * # overload: phases at 2x and 10x of what --max-inflight admits
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.load.LoadExperiment overload
 * # soak: half of capacity with a mix of partner faults, 30 minutes
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.load.LoadExperiment soak --minutes 30
 * </pre>
 *
 * Run from the repository root after {@code ./mvnw -q package -DskipTests} (or name the jars with
 * {@code -Drc10k.stubs.jar=…} and {@code -Drc10k.mashup.jar=…}). Partner stubs and the server run as
 * their own processes; the server's capacity is
 * {@code --max-inflight} / 1 s (its mashup waits on partners of 0.5 s and 1 s). Exit 0 when every
 * check of every phase held.
 */
public final class LoadExperiment {
    private static final long DEADLINE_MILLIS = 2_000;
    /** The phase that only warms the server up: printed, never checked. */
    private static final String WARM_UP = "warm-up";
    private static final Pattern METRIC = Pattern.compile("(?m)^([a-z_]+)(\\{[^}]*})? ([0-9.eE+-]+)$");

    /**
     * The bounds a phase must keep besides its counts (no status other than 200 or 503, no failure).
     * {@link #TARGETS} are the experiment's documented targets (docs/results/overload.md); a quick run
     * on a shared machine checks the same behaviour with looser bounds.
     *
     * @param maxShedP99Millis  the p99 of the 503s, from the intended send time, or from the actual send
     *                          time when {@code shedFromSend}
     * @param maxOkMillis       the slowest 200, from the intended send time
     * @param maxRecoveryMillis from the end of the load until a fresh request is answered 200 within its deadline
     * @param mustShed          whether the phase must have shed at least one request (it is past capacity)
     * @param shedFromSend      whether the 503s are timed from the moment each request was sent rather than
     *                          from its intended time: a starved load generator sends late, and that
     *                          lateness is the generator's, not the server's
     */
    public record Checks(long maxShedP99Millis, long maxOkMillis, long maxRecoveryMillis, boolean mustShed,
            boolean shedFromSend) {
        /** 503s within 100 ms at p99, every 200 within deadline + 1 s, back to normal within 5 s. */
        public static final Checks TARGETS = new Checks(100, DEADLINE_MILLIS + 1_000, 5_000, false, false);

        public Checks {
            if (maxShedP99Millis < 1 || maxOkMillis < 1 || maxRecoveryMillis < 1) {
                throw new IllegalArgumentException("bounds must be >= 1 ms: shed p99 " + maxShedP99Millis
                        + ", ok " + maxOkMillis + ", recovery " + maxRecoveryMillis);
            }
        }
    }

    /** What one phase saw. Latencies in microseconds, from the intended send time. */
    record Phase(String name, double rate, long seconds, long sent, long ok, long shed, long other, long failed,
            Histogram okLatency, Histogram shedLatency, Histogram shedFromSend, double maxInbound, double maxHeapMiB,
            long recoveryMillis,
            Checks checks) {

        boolean passed() {
            return other == 0 && failed == 0 && (shed > 0 || !checks.mustShed())
                    && okLatency.getMaxValue() <= checks.maxOkMillis() * 1_000
                    && (shed == 0 || (checks.shedFromSend() ? shedFromSend : shedLatency).getValueAtPercentile(99)
                            <= checks.maxShedP99Millis() * 1_000)
                    && recoveryMillis <= checks.maxRecoveryMillis();
        }

        String row() {
            return String.format("| %s | %.0f/s × %d s | %,d | %,d | %,d | %d / %d | %s | %s | %.0f | %.0f MiB | %,d ms | %s |",
                    name, rate, seconds, sent, ok, shed, other, failed, percentiles(okLatency),
                    shed == 0 ? "—" : percentiles(shedLatency), maxInbound, maxHeapMiB, recoveryMillis,
                    name.equals(WARM_UP) ? "not checked" : passed() ? "pass" : "FAIL");
        }

        private static String percentiles(Histogram h) {
            return h.getTotalCount() == 0 ? "—" : String.format("%.0f / %.0f / %.0f ms",
                    h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0);
        }
    }

    private LoadExperiment() {
    }

    public static void main(String[] args) throws Exception {
        String usage = "[overload|soak] --max-inflight N --phase-seconds N --factors 2,10 --minutes M --help --version";
        String mode = "overload";
        int maxInFlight = 100;
        int phaseSeconds = 20;
        double minutes = 30;
        List<Double> factors = List.of(2.0, 10.0);
        CommandLine line = new CommandLine("load-experiment", usage, args);
        while (line.next()) {
            switch (line.option()) {
                case "overload", "soak" -> mode = line.option();
                case "--max-inflight" -> maxInFlight = line.intValue();
                case "--phase-seconds" -> phaseSeconds = line.intValue();
                case "--minutes" -> minutes = line.doubleValue();
                case "--factors" -> factors = line.doubleList();
                default -> line.unknown("overload, soak");
            }
        }
        System.out.println("machine: " + Runtime.getRuntime().availableProcessors() + " cores, "
                + ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                        .getTotalMemorySize() / (1L << 30) + " GiB, JDK " + Runtime.version());
        boolean passed = "soak".equals(mode)
                ? soak(maxInFlight, minutes)
                : overload(maxInFlight, phaseSeconds, factors);
        System.exit(passed ? 0 : 1);
    }

    /** Warm-up at half capacity, then one phase per factor; recovery measured after each; the documented targets. */
    public static boolean overload(int maxInFlight, int phaseSeconds, List<Double> factors) throws Exception {
        return overload(maxInFlight, phaseSeconds, factors, Checks.TARGETS);
    }

    /** As {@link #overload(int, int, List)}, with the phases held to {@code checks} (the warm-up is not checked). */
    public static boolean overload(int maxInFlight, int phaseSeconds, List<Double> factors, Checks checks)
            throws Exception {
        try (Setup setup = Setup.start(maxInFlight, checks)) {
            double capacity = maxInFlight; // requests per second: max-inflight over a 1 s mashup
            List<Phase> phases = new ArrayList<>();
            setup.run(WARM_UP, capacity / 2, 10, false);
            for (double factor : factors) {
                phases.add(setup.run(String.format("%.0f× capacity", factor), capacity * factor, phaseSeconds, false));
            }
            printTable(phases);
            return phases.stream().allMatch(Phase::passed);
        }
    }

    /** Half of capacity, with partner faults mixed in, for {@code minutes}; heap after a forced GC at both ends. */
    static boolean soak(int maxInFlight, double minutes) throws Exception {
        try (Setup setup = Setup.start(maxInFlight, Checks.TARGETS)) {
            setup.run(WARM_UP, maxInFlight / 2.0, 20, true);
            setup.quiesce();
            setup.server.gc();
            double heapStart = setup.heapMiB();
            long seconds = Math.round(minutes * 60);
            Phase soak = setup.run("soak", maxInFlight / 2.0, seconds, true);
            setup.quiesce();
            setup.server.gc();
            double heapEnd = setup.heapMiB();
            Map<String, Double> end = setup.metrics();
            printTable(List.of(soak));
            System.out.printf("heap after a full GC: %.1f MiB at start, %.1f MiB at end%n", heapStart, heapEnd);
            // The server's own account of every outcome: what a failed request's parts ended as.
            end.entrySet().stream().filter(e -> e.getKey().startsWith("mashup_requests_total")
                    || e.getKey().startsWith("mashup_partner_calls_total")).sorted(Map.Entry.comparingByKey())
                    .forEach(e -> System.out.printf("  %s %.0f%n", e.getKey(), e.getValue()));
            System.out.printf("after the soak: inbound in flight %.0f, outbound in flight %.0f, outbound connections "
                    + "open %.0f%n", end.getOrDefault("mashup_inbound_inflight", -1.0),
                    end.getOrDefault("mashup_outbound_inflight", -1.0), sum(end, "mashup_outbound_connections"));
            return soak.passed() && end.getOrDefault("mashup_inbound_inflight", 1.0) == 0
                    && end.getOrDefault("mashup_outbound_inflight", 1.0) == 0;
        }
    }

    private static void printTable(List<Phase> phases) {
        System.out.println("| phase | load | sent | 200 | 503 | other / failed | 200 latency p50 / p99 / max | "
                + "503 latency p50 / p99 / max | max inbound in flight | max heap used | back to normal after | checks |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
        phases.forEach(p -> System.out.println(p.row()));
    }

    private static double sum(Map<String, Double> metrics, String prefix) {
        return metrics.entrySet().stream().filter(e -> e.getKey().startsWith(prefix)).mapToDouble(Map.Entry::getValue)
                .sum();
    }

    /** The processes, the definitions and the load client of one experiment. */
    private static final class Setup implements AutoCloseable {
        final StubProcess stubs;
        final MashupProcess server;
        final HttpClient client;
        final int maxInFlight;
        final Checks checks;

        private Setup(StubProcess stubs, MashupProcess server, HttpClient client, int maxInFlight, Checks checks) {
            this.stubs = stubs;
            this.server = server;
            this.client = client;
            this.maxInFlight = maxInFlight;
            this.checks = checks;
        }

        static Setup start(int maxInFlight, Checks checks) throws Exception {
            StubProcess stubs = StubProcess.start(Path.of(System.getProperty("rc10k.stubs.jar",
                    StubProcess.DEFAULT_JAR.toString())), List.of("-Xmx512m"),
                    List.of("--max-stall", "5000"));
            Path definitions = Files.createTempFile("rc10k-load", ".json");
            definitions.toFile().deleteOnExit();
            String base = stubs.uri().toString();
            Files.writeString(definitions, """
                    {"partners": {
                       "p1": {"baseUri": "%s", "maxConnections": 4096, "maxQueued": 8192},
                       "p2": {"baseUri": "%s", "maxConnections": 4096, "maxQueued": 8192},
                       "flaky": {"baseUri": "%s", "maxConnections": 4096, "maxQueued": 8192, "retries": 0,
                                 "maxResponseBytes": 4096, "circuitBreaker": {"enabled": false}}},
                     "mashups": {
                       "paper": {"deadlineMillis": %d, "calls": [
                         {"partner": "p1", "template": "/stub?delay=500"},
                         {"partner": "p2", "template": "/stub?delay=1000"}]},
                       "mix": {"deadlineMillis": %d, "parameters": {"f": {"required": true}},
                         "calls": [{"partner": "p1", "template": "/stub?delay=500"},
                                   {"partner": "flaky", "template": "/stub?delay=300&fault={f}&bytes=1000"}]}}}
                    """.formatted(base, base, base, DEADLINE_MILLIS, DEADLINE_MILLIS));
            MashupProcess server = MashupProcess.start(Path.of(System.getProperty("rc10k.mashup.jar",
                    MashupProcess.DEFAULT_JAR.toString())), List.of("-Xmx512m"),
                    List.of("--config", definitions.toString(), "--max-inflight", Integer.toString(maxInFlight)));
            QueuedThreadPool pool = new QueuedThreadPool(32, 8);
            pool.setName("load");
            HttpClient client = new HttpClient();
            client.setExecutor(pool);
            client.setMaxConnectionsPerDestination(8_000);
            client.setMaxRequestsQueuedPerDestination(100_000);
            client.setIdleTimeout(30_000);
            client.start();
            return new Setup(stubs, server, client, maxInFlight, checks);
        }

        /** Sends at {@code rate} per second for {@code seconds}; then measures how soon the server answers normally. */
        Phase run(String name, double rate, long seconds, boolean faults) throws Exception {
            System.out.printf("phase %s: %.0f requests/s for %d s%n", name, rate, seconds);
            URI paper = server.uri().resolve("/mashup/paper");
            String[] faultMix = {"reset", "stall", "malformed-json", "close-mid-body", "drip"};
            Recorder ok = new Recorder(3);
            Recorder shed = new Recorder(3);
            Recorder shedSent = new Recorder(3);
            LongAdder okCount = new LongAdder();
            LongAdder shedCount = new LongAdder();
            LongAdder other = new LongAdder();
            LongAdder failed = new LongAdder();
            Map<String, LongAdder> firstOthers = new ConcurrentHashMap<>();
            AtomicLong maxInbound = new AtomicLong();
            AtomicLong maxHeap = new AtomicLong();
            Thread sampler = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    try {
                        Map<String, Double> m = metrics();
                        maxInbound.accumulateAndGet(m.getOrDefault("mashup_inbound_inflight", 0.0).longValue(), Math::max);
                        maxHeap.accumulateAndGet((long) sum(m, "jvm_memory_used_bytes{area=\"heap\""), Math::max);
                        Thread.sleep(500);
                    } catch (InterruptedException e) {
                        return;
                    } catch (Exception e) {
                        // A missed sample; the next one counts.
                    }
                }
            }, "metrics-sampler");
            sampler.setDaemon(true);
            sampler.start();

            SplittableRandom random = new SplittableRandom(1);
            long total = Math.round(rate * seconds);
            long intervalNanos = (long) (1e9 / rate);
            long start = System.nanoTime();
            AtomicLong outstanding = new AtomicLong();
            for (long i = 0; i < total; i++) {
                long intended = start + i * intervalNanos;
                long wait = intended - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                URI target = faults && random.nextInt(5) == 0
                        ? server.uri().resolve("/mashup/mix?f=" + faultMix[random.nextInt(faultMix.length)])
                        : paper;
                outstanding.incrementAndGet();
                long sent = System.nanoTime();
                client.newRequest(target).timeout(DEADLINE_MILLIS + 10_000, TimeUnit.MILLISECONDS).send(result -> {
                    long micros = (System.nanoTime() - intended) / 1_000;
                    if (result.isFailed()) {
                        failed.increment();
                        firstOthers.computeIfAbsent(String.valueOf(result.getFailure()), k -> new LongAdder()).increment();
                    } else if (result.getResponse().getStatus() == 200) {
                        okCount.increment();
                        ok.recordValue(micros);
                    } else if (result.getResponse().getStatus() == 503) {
                        shedCount.increment();
                        shed.recordValue(micros);
                        shedSent.recordValue((System.nanoTime() - sent) / 1_000);
                    } else {
                        other.increment();
                        firstOthers.computeIfAbsent("status " + result.getResponse().getStatus(),
                                k -> new LongAdder()).increment();
                    }
                    outstanding.decrementAndGet();
                });
            }
            long loadEnd = System.nanoTime();
            long deadline = loadEnd + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MILLIS + 15_000);
            while (outstanding.get() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            long recovery = recovery(paper, loadEnd);
            sampler.interrupt();
            if (!firstOthers.isEmpty()) {
                System.out.println("  unexpected: " + firstOthers);
            }
            Phase phase = new Phase(name, rate, seconds, total, okCount.sum(), shedCount.sum(), other.sum(),
                    failed.sum() + outstanding.get(), ok.getIntervalHistogram(), shed.getIntervalHistogram(),
                    shedSent.getIntervalHistogram(),
                    maxInbound.get(), maxHeap.get() / (double) (1 << 20), recovery, checks);
            System.out.println("  " + phase.row());
            return phase;
        }

        /** Milliseconds from the end of the load until a fresh request is answered 200 within its deadline. */
        private long recovery(URI paper, long loadEnd) throws InterruptedException {
            long limit = loadEnd + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < limit) {
                try {
                    long t = System.nanoTime();
                    ContentResponse r = client.newRequest(paper).timeout(DEADLINE_MILLIS + 1_000, TimeUnit.MILLISECONDS)
                            .send();
                    if (r.getStatus() == 200 && System.nanoTime() - t < TimeUnit.MILLISECONDS.toNanos(DEADLINE_MILLIS)) {
                        return Math.max(0, (t - loadEnd) / 1_000_000);
                    }
                } catch (Exception e) {
                    // Not yet normal; try again.
                }
                Thread.sleep(100);
            }
            return Long.MAX_VALUE / 1_000_000;
        }

        void quiesce() throws Exception {
            long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < limit) {
                Map<String, Double> m = metrics();
                if (m.getOrDefault("mashup_inbound_inflight", 1.0) == 0 && m.getOrDefault("mashup_outbound_inflight", 1.0) == 0) {
                    return;
                }
                Thread.sleep(100);
            }
        }

        double heapMiB() throws Exception {
            return sum(metrics(), "jvm_memory_used_bytes{area=\"heap\"") / (1 << 20);
        }

        Map<String, Double> metrics() throws Exception {
            String text = client.newRequest(server.uri().resolve("/metrics")).timeout(10, TimeUnit.SECONDS).send()
                    .getContentAsString();
            Map<String, Double> values = new ConcurrentHashMap<>();
            Matcher m = METRIC.matcher(text);
            while (m.find()) {
                values.merge(m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.parseDouble(m.group(3)),
                        Double::sum);
            }
            return values;
        }

        @Override
        public void close() throws Exception {
            client.stop();
            server.close();
            stubs.close();
        }
    }
}
