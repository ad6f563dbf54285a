package io.rc10k.benchmarks.capacity;

import io.rc10k.benchmarks.load.AnswerTally;
import io.rc10k.benchmarks.load.CpuMeter;
import io.rc10k.benchmarks.load.MashupProcess;
import io.rc10k.benchmarks.load.OpenModelLoad;
import io.rc10k.benchmarks.load.ServerMetrics;
import io.rc10k.harness.CommandLine;
import io.rc10k.harness.Prometheus;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.DoubleAccumulator;
import org.HdrHistogram.Histogram;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The open model over h2c partners without JMeter: requests arrive on schedule whatever the answers (latency from
 * each request's intended time), sent over kept-alive connections by one Jetty client in this JVM, so that the
 * generator keeps its schedule at rates where JMeter's thread per request falls behind on a small box. The
 * definitions are the open-model experiment's ({@code jmeter-plans/configs/c6-h2c-2000.json}: C = 6 calls of 5 s
 * to three partners, 192 h2c connections × 128 streams each), the partners one partner-stubs process.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.OpenModelH2c --rate 2000 --seconds 10
 * </pre>
 *
 * <p>Per phase (a warm-up, then the measured one): sent and the rate kept, complete 200s, other answers, 503s
 * (shed), failures, mean / p99 / max answer time, the most inbound and outbound requests at once from the
 * server's {@code /metrics}, and the server's CPU. Exit status: 0 when the measured phase met the targets given
 * ({@code --mean-ms}, {@code --p99-ms}, no error, nothing shed, at least 95 % of the schedule kept), 1
 * otherwise, 2 for a bad command line.</p>
 */
public final class OpenModelH2c {
    private static final String USAGE = """
            [options]   (run as java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.OpenModelH2c)
              --rate N            arrivals per second of the measured phase (default 2000)
              --seconds S         the measured phase (default 10)
              --warmup-rate N     arrivals per second of the warm-up phase (default 500; 0: none)
              --warmup-seconds S  (default 10)
              --config FILE       definitions (default jmeter-plans/configs/c6-h2c-2000.json); every partner's
                                  127.0.0.1:91NN is replaced by the stubs' port
              --path PATH         the mashup (default /mashup/c6)
              --max-inflight N    the server's admission limit (default 20000)
              --max-threads N     the server's pool (default 64)
              --mean-ms MS --p99-ms MS   the targets of the measured phase (default 5300, 6000)
            Exit status: 0 the measured phase met them with no error, nothing shed and >= 95 % of the schedule
            kept; 1 otherwise; 2 for a bad command line.
              --mashup-jar PATH --stub-jar PATH
              --help --version
            """;

    /** Settings of one run. */
    public record Settings(double rate, int seconds, double warmupRate, int warmupSeconds, Path config, String path,
            int maxInflight, int maxThreads, long meanTargetMillis, long p99TargetMillis, Path mashupJar,
            Path stubJar) {
        public Settings {
            if (rate <= 0 || seconds < 1 || warmupRate < 0 || warmupSeconds < 0) {
                throw new IllegalArgumentException("--rate " + rate + ", --seconds " + seconds + ", --warmup-rate "
                        + warmupRate + ", --warmup-seconds " + warmupSeconds + " (accepted: rate > 0, seconds >= 1, "
                        + "warm-up >= 0)");
            }
            if (meanTargetMillis < 1 || p99TargetMillis < 1) {
                throw new IllegalArgumentException("--mean-ms " + meanTargetMillis + ", --p99-ms " + p99TargetMillis
                        + " (accepted: at least 1)");
            }
            if (!Files.isReadable(config)) {
                throw new IllegalArgumentException("--config: cannot read " + config.toAbsolutePath());
            }
        }
    }

    /** One phase as measured; times in ms. */
    public record Phase(double rate, long sent, double keptPerSecond, AnswerTally.Counts counts, long outstanding,
            double meanMillis, double p99Millis, double maxMillis, double inboundPeak, double outboundPeak,
            double serverCpuPercentOfCore) {
        public long errors() {
            return counts.partial() + counts.badGateway() + counts.gatewayTimeout() + counts.otherStatus()
                    + counts.failed() + outstanding;
        }

        public String line() {
            return String.format(Locale.ROOT, "%,.0f/s: %,d sent (%,.0f/s kept), %,d complete 200s, %,d errors, "
                    + "%,d shed (503); answer ms mean %,.0f, p99 %,.0f, max %,.0f; most at once: %,.0f inbound, "
                    + "%,.0f outbound; server CPU %.0f %% of a core", rate, sent, keptPerSecond, counts.complete(),
                    errors(), counts.shed(), meanMillis, p99Millis, maxMillis, inboundPeak, outboundPeak,
                    serverCpuPercentOfCore);
        }
    }

    private OpenModelH2c() {
    }

    public static List<Phase> run(Settings s) throws Exception {
        try (StubProcess stubs = StubProcess.start(s.stubJar(), List.of(), List.of("--h2c", "--max-streams", "1024"))) {
            String definitions = Files.readString(s.config()).replaceAll("http://127\\.0\\.0\\.1:91\\d\\d",
                    "http://127.0.0.1:" + stubs.uri().getPort());
            Path config = Files.createTempFile("open-model-h2c-", ".json");
            try (MashupProcess server = MashupProcess.start(s.mashupJar(), List.of(), List.of("--config",
                    Files.writeString(config, definitions).toString(), "--mode", "async",
                    "--max-inflight", Integer.toString(s.maxInflight()),
                    "--max-threads", Integer.toString(s.maxThreads())))) {
                HttpClient client = client();
                try {
                    URI target = server.uri().resolve(s.path());
                    ServerMetrics metrics = new ServerMetrics(client, server.uri().resolve("/metrics"));
                    Phase warm = s.warmupRate() > 0 && s.warmupSeconds() > 0
                            ? phase(client, target, metrics, server, s.warmupRate(), s.warmupSeconds()) : null;
                    if (warm != null) {
                        System.out.println("warm-up  " + warm.line());
                    }
                    Phase measured = phase(client, target, metrics, server, s.rate(), s.seconds());
                    System.out.println("measured " + measured.line());
                    return warm == null ? List.of(measured) : List.of(warm, measured);
                } finally {
                    client.stop();
                }
            } finally {
                Files.deleteIfExists(config);
            }
        }
    }

    /** Kept-alive connections, as many as the requests in flight need; one selector. */
    private static HttpClient client() throws Exception {
        QueuedThreadPool pool = new QueuedThreadPool(16, 4);
        pool.setName("open-model-load");
        HttpClient client = new HttpClient();
        client.setExecutor(pool);
        client.setMaxConnectionsPerDestination(16_000);
        client.setMaxRequestsQueuedPerDestination(200_000);
        client.setIdleTimeout(60_000);
        client.start();
        return client;
    }

    private static Phase phase(HttpClient client, URI target, ServerMetrics metrics, MashupProcess server, double rate,
            int seconds) throws Exception {
        AnswerTally tally = new AnswerTally(10_000, 1_000);
        OpenModelLoad load = new OpenModelLoad(client, i -> target, 30_000);
        DoubleAccumulator inbound = new DoubleAccumulator(Math::max, 0);
        DoubleAccumulator outbound = new DoubleAccumulator(Math::max, 0);
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "open-model-metrics");
            thread.setDaemon(true);
            return thread;
        });
        double sendSeconds;
        CpuMeter.Use use;
        try {
            sampler.scheduleWithFixedDelay(() -> {
                try {
                    Prometheus p = metrics.scrape();
                    inbound.accumulate(ServerMetrics.inbound(p));
                    outbound.accumulate(ServerMetrics.outbound(p));
                } catch (Exception e) {
                    System.out.println("scrape: " + e);
                }
            }, 0, 500, TimeUnit.MILLISECONDS);
            CpuMeter cpu = CpuMeter.start(server.pid(), List.of());
            long start = System.nanoTime();
            load.send(rate, Math.round(rate * seconds), tally);
            sendSeconds = (System.nanoTime() - start) / 1e9;
            load.awaitEnds(TimeUnit.SECONDS.toNanos(40));
            use = cpu.stop();
        } finally {
            sampler.shutdownNow();
        }
        AnswerTally.Counts counts = tally.counts();
        Histogram latency = counts.fromIntended();
        return new Phase(rate, load.sent(), load.sent() / sendSeconds, counts, load.outstanding(),
                latency.getMean() / 1000, latency.getValueAtPercentile(99) / 1000.0, latency.getMaxValue() / 1000.0,
                inbound.get(), outbound.get(), use.serverPercentOfCore());
    }

    public static void main(String[] args) throws Exception {
        double rate = 2_000;
        int seconds = 10;
        double warmupRate = 500;
        int warmupSeconds = 10;
        Path config = Path.of("jmeter-plans", "configs", "c6-h2c-2000.json");
        String path = "/mashup/c6";
        int maxInflight = 20_000;
        int maxThreads = 64;
        long mean = 5_300;
        long p99 = 6_000;
        Path mashupJar = MashupProcess.DEFAULT_JAR;
        Path stubJar = StubProcess.DEFAULT_JAR;
        CommandLine line = new CommandLine("open-model-h2c", USAGE, args);
        while (line.next()) {
            switch (line.option()) {
                case "--rate" -> rate = line.doubleValue();
                case "--seconds" -> seconds = line.intValue();
                case "--warmup-rate" -> warmupRate = line.doubleValue();
                case "--warmup-seconds" -> warmupSeconds = line.intValue();
                case "--config" -> config = line.path();
                case "--path" -> path = line.value();
                case "--max-inflight" -> maxInflight = line.intValue();
                case "--max-threads" -> maxThreads = line.intValue();
                case "--mean-ms" -> mean = line.longValue();
                case "--p99-ms" -> p99 = line.longValue();
                case "--mashup-jar" -> mashupJar = line.path();
                case "--stub-jar" -> stubJar = line.path();
                default -> throw line.unknown();
            }
        }
        Settings settings;
        try {
            settings = new Settings(rate, seconds, warmupRate, warmupSeconds, config, path, maxInflight, maxThreads,
                    mean, p99, mashupJar, stubJar);
        } catch (IllegalArgumentException e) {
            throw line.fail(e.getMessage());
        }
        List<Phase> phases = run(settings);
        Phase measured = phases.get(phases.size() - 1);
        boolean met = measured.meanMillis() <= mean && measured.p99Millis() <= p99 && measured.errors() == 0
                && measured.counts().shed() == 0 && measured.keptPerSecond() >= 0.95 * rate;
        System.out.printf(Locale.ROOT, "targets at %,.0f/s: mean ≤ %,d ms, p99 ≤ %,d ms, 0 errors, 0 shed, "
                + "≥ 95 %% of the schedule kept: %s%n", rate, mean, p99, met ? "met" : "NOT met");
        System.exit(met ? 0 : 1);
    }
}
