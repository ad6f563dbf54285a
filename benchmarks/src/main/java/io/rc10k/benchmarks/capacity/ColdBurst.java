package io.rc10k.benchmarks.capacity;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.UnixOperatingSystemMXBean;
import io.rc10k.harness.CommandLine;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The first burst on a fresh mashup server: N concurrent requests to the paper's two-partner mashup
 * (partners answering after 0.5 s and 1 s, deadline 5 s) fired the moment the server is ready, with no
 * warm-up; then R − 1 more bursts on the same, now warm, server. Each burst is timed from the first
 * request sent to the last answer.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.ColdBurst
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.ColdBurst --concurrent 500 --rounds 2
 * </pre>
 *
 * Processes: the partner stubs ({@code partner-stubs.jar}, HTTP/1.1, both partners on one port) and
 * the mashup server ({@code mashup-server.jar --config FILE --mode M --max-threads T --max-inflight N}),
 * each a JVM of its own; the N inbound HTTP/1.1 connections come from this JVM ({@link Http1Burst}).
 * The partner calls are HTTP/1.1 as in {@code jmeter-plans/configs/paper.json}: one connection per call
 * in flight, so the server holds N inbound and 2N outbound sockets and the stubs 2N.
 * Exit status: 0 when every answer of every burst was 200 with {@code Mashup-Complete: true}; 1
 * otherwise (or when the run could not start, with the reason); 2 for a bad command line; 0 for
 * {@code --help}.
 */
public final class ColdBurst {
    private static final Pattern READY = Pattern.compile("mashup-server ready on (http://\\S+)");

    /**
     * Settings of one run.
     *
     * @param concurrent N: requests per burst, all at once, each on a connection of its own
     * @param rounds     bursts on the one server; the first is the cold one
     * @param java       the {@code java} of the mashup server
     */
    public record Settings(int concurrent, int rounds, String mode, int maxThreads, boolean h2c, boolean breaker,
            int partnerWarmup, String java, List<String> jvmArgs, Path mashupJar, Path stubJar) {
        public Settings {
            jvmArgs = List.copyOf(jvmArgs);
            if (concurrent < 1) {
                throw new IllegalArgumentException("--concurrent: " + concurrent + " (accepted: at least 1)");
            }
            if (rounds < 1 || rounds > 100) {
                throw new IllegalArgumentException("--rounds: " + rounds + " (accepted: 1 to 100)");
            }
            if (!List.of("async", "sync", "virtual").contains(mode)) {
                throw new IllegalArgumentException("--mode: \"" + mode + "\" (accepted: async, sync, virtual)");
            }
            if (maxThreads < 8) {
                throw new IllegalArgumentException("--max-threads: " + maxThreads + " (accepted: at least 8)");
            }
            if (partnerWarmup < 0) {
                throw new IllegalArgumentException("--warm-partners: " + partnerWarmup + " (accepted: 0 or more)");
            }
        }

        /**
         * 2,000 at once, 4 bursts, async on 64 threads, HTTP/1.1 partners with breakers, partners warmed
         * with 2 × 2,000 requests, this JVM's java.
         */
        public static Settings defaults() {
            return new Settings(2_000, 4, "async", 64, false, true, 2_000, ServerProcess.javaCommand(), List.of(),
                    Path.of(System.getProperty("rc10k.mashup.jar", "mashup-server/target/mashup-server.jar")),
                    Path.of(System.getProperty("rc10k.stubs.jar", StubProcess.DEFAULT_JAR.toString())));
        }

        /** Sockets the server holds at once: N inbound, 2N to the partners (h2c: a few), and the JVM's own files. */
        long openFilesNeeded() {
            return (h2c ? 1L : 3L) * concurrent + 512;
        }
    }

    private ColdBurst() {
    }

    public static ColdBurstReport run(Settings settings) throws Exception {
        for (Path jar : List.of(settings.mashupJar(), settings.stubJar())) {
            if (!Files.isRegularFile(jar)) {
                throw new IOException("no jar at " + jar.toAbsolutePath() + "; build first with "
                        + "./mvnw -q package -DskipTests (or pass --mashup-jar, --stub-jar)");
            }
        }
        checkOpenFiles(settings);
        String loadBefore = loadAverage();
        String serverJdk = javaVersion(settings.java());
        Path definitions = Files.createTempFile("cold-burst-", ".json");
        HttpClient probe = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        List<ColdBurstReport.Round> rounds = new ArrayList<>();
        try (StubProcess stubs = StubProcess.start(settings.stubJar(), List.of(),
                settings.h2c() ? List.of("--h2c") : List.of())) {
            Files.writeString(definitions, definitionsJson(stubs.uri(), settings));
            warmPartners(stubs.uri(), settings.partnerWarmup());
            int adminPort = ServerProcess.freePort();
            try (ServerProcess server = ServerProcess.start("mashup", ServerProcess.mashupCommand(settings.java(),
                    settings.jvmArgs(), settings.mashupJar(), definitions, List.of("--mode", settings.mode(),
                    "--max-inflight", Integer.toString(settings.concurrent()), "--max-threads",
                    Integer.toString(settings.maxThreads()), "--admin-port", Integer.toString(adminPort))),
                    READY)) {
                URI metrics = URI.create("http://127.0.0.1:" + adminPort + "/metrics");
                URI mashup = server.uri().resolve("/mashup/paper");
                for (int round = 1; round <= settings.rounds(); round++) {
                    if (round > 1) {
                        awaitIdle(probe, metrics);
                    }
                    rounds.add(burst(round, settings, mashup, probe, metrics));
                }
                Map<String, Double> end = HeapPerMashup.scrape(probe, metrics);
                System.out.println("the server's own counts: " + end.entrySet().stream()
                        .filter(e -> e.getKey().startsWith("mashup_requests_total")
                                || e.getKey().startsWith("mashup_partner_calls_total"))
                        .map(e -> e.getKey() + " " + e.getValue().longValue()).sorted()
                        .collect(Collectors.joining(", ")));
            }
        } finally {
            Files.deleteIfExists(definitions);
        }
        return new ColdBurstReport(settings, machine(settings), serverJdk, loadBefore, loadAverage(), rounds);
    }

    private static ColdBurstReport.Round burst(int round, Settings settings, URI mashup, HttpClient probe, URI metrics)
            throws Exception {
        Http1Burst burst = new Http1Burst(mashup, "Mashup-Complete", "true");
        // The mashup's deadline is 5 s; a minute more lets a starved server still answer and be counted.
        Http1Burst.Outcome outcome = burst.run(settings.concurrent(), 65_000);
        Map<String, Double> m = HeapPerMashup.scrape(probe, metrics);
        ColdBurstReport.Round result = new ColdBurstReport.Round(round, outcome.ok(), outcome.failed(),
                outcome.firstFailure(), burst.answers(),
                millis(outcome.lastSentNanos() - outcome.firstSentNanos()),
                outcome.lastAnsweredNanos() == 0 ? -1 : millis(outcome.lastAnsweredNanos() - outcome.firstSentNanos()),
                m.getOrDefault("jvm_threads_live_threads", -1.0).longValue(),
                m.getOrDefault("jvm_threads_peak_threads", -1.0).longValue());
        System.out.println(result.line(settings.concurrent()));
        return result;
    }

    /**
     * Two bursts of {@code requests} straight to the stubs, half at each partner's delay, before the
     * server starts: a partner that has served for a while and a client that is not itself a fresh JVM,
     * so that the first burst measures the cold server, not cold neighbours on the same cores.
     */
    private static void warmPartners(URI stubs, int requests) throws IOException {
        for (int round = 1; round <= 2 && requests > 0; round++) {
            for (String delay : List.of("500", "1000")) {
                Http1Burst warm = new Http1Burst(stubs.resolve("/stub?delay=" + delay));
                Http1Burst.Outcome outcome = warm.run(requests / 2, 30_000);
                System.out.println("partner warm-up " + round + " (delay " + delay + " ms): " + warm.answers()
                        + (outcome.firstFailure() == null ? "" : ", first failure: " + outcome.firstFailure()));
            }
        }
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    /** Waits, bounded, until the last burst's requests and calls have all ended in the server's own counts. */
    private static void awaitIdle(HttpClient probe, URI metrics) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Map<String, Double> m = HeapPerMashup.scrape(probe, metrics);
            if (m.getOrDefault("mashup_inbound_inflight", 0.0) == 0
                    && m.getOrDefault("mashup_outbound_inflight", 0.0) == 0) {
                return;
            }
            if (System.nanoTime() > end) {
                throw new IllegalStateException("still in flight 30 s after a burst: inbound "
                        + m.get("mashup_inbound_inflight") + ", outbound " + m.get("mashup_outbound_inflight"));
            }
            Thread.sleep(50);
        }
    }

    /**
     * The shape of {@code jmeter-plans/configs/paper.json} — two HTTP/1.1 partners of 3,000 connections
     * and a queue of 4,096, {@code /stub?delay=500} and {@code /stub?delay=1000}, deadline 5 s, every
     * other setting the default (circuit breakers on) — with both partners on the one stub process;
     * room grows with N beyond 2,000. {@code --partners h2c} and {@code --breaker off} are departures
     * from it, to tell what the cold burst is waiting for.
     */
    static String definitionsJson(URI stubs, Settings settings) {
        int connections = Math.max(3_000, settings.concurrent() + 100);
        int queued = Math.max(4_096, settings.concurrent());
        String partner = String.format(Locale.ROOT, "{\"baseUri\":\"%s\",\"maxConnections\":%d,\"maxQueued\":%d%s%s}",
                stubs, connections, queued, settings.h2c() ? ",\"protocol\":\"h2c\"" : "",
                settings.breaker() ? "" : ",\"circuitBreaker\":{\"enabled\":false}");
        return "{\"partners\":{\"partner1\":" + partner + ",\"partner2\":" + partner + "},"
                + "\"mashups\":{\"paper\":{\"deadlineMillis\":5000,\"calls\":["
                + "{\"partner\":\"partner1\",\"template\":\"/stub?delay=500\"},"
                + "{\"partner\":\"partner2\",\"template\":\"/stub?delay=1000\"}]}}}";
    }

    /** The server (which inherits this JVM's limit) holds 3N sockets; say plainly when that cannot be. */
    private static void checkOpenFiles(Settings settings) {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean os) {
            long need = settings.openFilesNeeded();
            long have = os.getMaxFileDescriptorCount();
            if (have < need) {
                throw new IllegalStateException(String.format(Locale.ROOT, "--concurrent %d makes the mashup server "
                        + "hold %d inbound and %d partner connections at once, but the open-file limit is %d; raise "
                        + "it (ulimit -n %d or more) or lower --concurrent", settings.concurrent(),
                        settings.concurrent(), 2L * settings.concurrent(), have, need));
            }
        }
    }

    /** The first line of {@code java -version} of the server's java, run once before the server starts. */
    static String javaVersion(String java) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(java, "-version").redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor(30, TimeUnit.SECONDS);
        return out.lines().findFirst().orElse("?").trim();
    }

    /** The 1, 5 and 15 minute load averages from {@code /proc/loadavg}; the machine is shared. */
    static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return fields[0] + ", " + fields[1] + ", " + fields[2];
        } catch (IOException | RuntimeException e) {
            return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean()
                    .getSystemLoadAverage());
        }
    }

    private static String machine(Settings settings) {
        long memory = ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        long openFiles = ManagementFactory.getOperatingSystemMXBean()
                instanceof UnixOperatingSystemMXBean os ? os.getMaxFileDescriptorCount() : -1;
        return String.format(Locale.ROOT, "%d cores, %.1f GiB, open-file limit %d, this JVM %s; server %s%s, --mode %s, "
                        + "--max-threads %d, --max-inflight %d; partners %s, circuit breakers %s, warmed with 2 × %d requests",
                Runtime.getRuntime().availableProcessors(), memory / (double) (1L << 30), openFiles, Runtime.version(),
                settings.java(), settings.jvmArgs().isEmpty() ? "" : " " + settings.jvmArgs(), settings.mode(),
                settings.maxThreads(), settings.concurrent(), settings.h2c() ? "h2c" : "HTTP/1.1",
                settings.breaker() ? "on" : "off", settings.partnerWarmup());
    }

    private static final String USAGE = """
            [options]   (run as java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.ColdBurst)
              --concurrent N    requests per burst, all at once, one connection each (default 2000)
              --rounds R        bursts on one fresh server; the first is cold (default 4)
              --mode MODE       async (default) | sync | virtual (JDK 21+): the server's --mode
              --max-threads N   the server's --max-threads (default 64)
              --partners P      http1 (default, as paper.json) | h2c: how the server calls the partners
              --breaker B       on (default, as paper.json) | off: the partners' circuit breakers
              --warm-partners N before the server starts, two bursts of N straight to the stubs, half
                                at each delay (default 2000; 0: stubs and this JVM as cold as the server)
              --java PATH       the server's java (default: this JVM's)
              --jvm-arg ARG     a JVM option for the server (repeatable)
              --mashup-jar PATH (default mashup-server/target/mashup-server.jar)
              --stub-jar PATH   (default partner-stubs/target/partner-stubs.jar)
              --help            print this and exit
              --version         print the version and exit
            Needs an open-file limit (ulimit -n) of 3N + 512 or more: the server holds N inbound and 2N
            HTTP/1.1 partner connections at once (6,512 for N = 2,000); N + 512 with --partners h2c.
            Exit status: 0 every answer of every burst 200 with Mashup-Complete: true; 1 otherwise, or the run
            could not start; 2 bad command line.
            """;


    public static void main(String[] args) throws Exception {
        Settings settings = parse(new CommandLine("cold-burst", USAGE, args));
        ColdBurstReport report;
        try {
            report = run(settings);
        } catch (IOException | IllegalStateException e) {
            System.err.println("cold-burst: " + e.getMessage());
            System.exit(1);
            return;
        }
        System.out.println();
        System.out.print(report.table());
        System.exit(report.passed() ? 0 : 1);
    }

    /** The settings the command line asks for; a bad line exits 2 naming the option. */
    static Settings parse(CommandLine line) {
        Settings d = Settings.defaults();
        int concurrent = d.concurrent();
        int rounds = d.rounds();
        String mode = d.mode();
        int maxThreads = d.maxThreads();
        boolean h2c = d.h2c();
        boolean breaker = d.breaker();
        int partnerWarmup = d.partnerWarmup();
        String java = d.java();
        List<String> jvmArgs = new ArrayList<>();
        Path mashupJar = d.mashupJar();
        Path stubJar = d.stubJar();
        while (line.next()) {
            switch (line.option()) {
                case "--concurrent" -> concurrent = line.intValue();
                case "--rounds" -> rounds = line.intValue();
                case "--mode" -> mode = line.value();
                case "--max-threads" -> maxThreads = line.intValue();
                case "--partners" -> h2c = choice(line, "http1", "h2c");
                case "--breaker" -> breaker = !choice(line, "on", "off");
                case "--warm-partners" -> partnerWarmup = line.intValue();
                case "--java" -> java = line.value();
                case "--jvm-arg" -> jvmArgs.add(line.anyValue());
                case "--mashup-jar" -> mashupJar = line.path();
                case "--stub-jar" -> stubJar = line.path();
                default -> line.unknown();
            }
        }
        try {
            return new Settings(concurrent, rounds, mode, maxThreads, h2c, breaker, partnerWarmup, java, jvmArgs,
                    mashupJar, stubJar);
        } catch (IllegalArgumentException e) {
            throw line.fail(e.getMessage());
        }
    }

    /** False for {@code first}, true for {@code second}; anything else names the option and both choices. */
    private static boolean choice(CommandLine line, String first, String second) {
        String option = line.option();
        String value = line.value();
        if (value.equals(first) || value.equals(second)) {
            return value.equals(second);
        }
        throw line.fail(option, "\"" + value + "\" (accepted: " + first + ", " + second + ")");
    }
}
