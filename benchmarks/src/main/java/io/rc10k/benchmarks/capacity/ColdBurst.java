package io.rc10k.benchmarks.capacity;

import io.rc10k.benchmarks.launch.Finish;
import io.rc10k.benchmarks.launch.Launch;
import io.rc10k.benchmarks.launch.Machine;
import io.rc10k.harness.CommandLine;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

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
    /**
     * Settings of one run.
     *
     * @param concurrent N: requests per burst, all at once, each on a connection of its own
     * @param rounds     bursts on the one server; the first is the cold one
     * @param launch     the mashup server's java, JVM options and jar, and the stubs' jar
     */
    public record Settings(int concurrent, int rounds, String mode, int maxThreads, boolean h2c, boolean breaker,
            int partnerWarmup, Launch launch) {
        public Settings {
            if (concurrent < 1) {
                throw new IllegalArgumentException("--concurrent: " + concurrent + " (accepted: at least 1)");
            }
            if (rounds < 1 || rounds > 100) {
                throw new IllegalArgumentException("--rounds: " + rounds + " (accepted: 1 to 100)");
            }
            Launch.checkModes("--mode", List.of(mode));
            Launch.checkMaxThreads(maxThreads);
            if (partnerWarmup < 0) {
                throw new IllegalArgumentException("--warm-partners: " + partnerWarmup + " (accepted: 0 or more)");
            }
        }

        /**
         * 2,000 at once, 4 bursts, async on 64 threads, HTTP/1.1 partners with breakers, partners warmed
         * with 2 × 2,000 requests, this JVM's java.
         */
        public static Settings defaults() {
            return new Settings(2_000, 4, "async", 64, false, true, 2_000, Launch.defaults());
        }

        /** Sockets the server holds at once: N inbound, 2N to the partners (h2c: a few), and the JVM's own files. */
        long openFilesNeeded() {
            return (h2c ? 1L : 3L) * concurrent + 512;
        }
    }

    private ColdBurst() {
    }

    public static ColdBurstReport run(Settings settings) throws Exception {
        Launch launch = settings.launch();
        launch.requireJars(false);
        // The server inherits this JVM's limit.
        Machine.requireOpenFiles(settings.openFilesNeeded(), String.format(Locale.ROOT, "--concurrent %d makes the "
                + "mashup server hold %d inbound and %d partner connections at once (or lower --concurrent)",
                settings.concurrent(), settings.concurrent(), 2L * settings.concurrent()));
        String loadBefore = Machine.loadAverage();
        String serverJdk = launch.javaVersion();
        Path definitions = Files.createTempFile("cold-burst-", ".json");
        HttpClient probe = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        List<ColdBurstReport.Round> rounds = new ArrayList<>();
        try (StubProcess stubs = StubProcess.start(launch.stubJar(), List.of(),
                settings.h2c() ? List.of("--h2c") : List.of())) {
            Files.writeString(definitions, definitionsJson(stubs.uri(), settings));
            warmPartners(stubs.uri(), settings.partnerWarmup());
            int adminPort = ServerProcess.freePort();
            try (ServerProcess server = launch.startMashup("mashup", definitions, List.of("--mode", settings.mode(),
                    "--max-inflight", Integer.toString(settings.concurrent()), "--max-threads",
                    Integer.toString(settings.maxThreads()), "--admin-port", Integer.toString(adminPort)))) {
                ServerCounts counts = new ServerCounts(probe, URI.create("http://127.0.0.1:" + adminPort + "/metrics"));
                URI mashup = server.uri().resolve("/mashup/paper");
                for (int round = 1; round <= settings.rounds(); round++) {
                    if (round > 1) {
                        counts.awaitIdle("a burst");
                    }
                    rounds.add(burst(round, settings, mashup, counts));
                }
                System.out.println(counts.outcomes());
            }
        } finally {
            Files.deleteIfExists(definitions);
        }
        return new ColdBurstReport(settings, machine(settings), serverJdk, loadBefore, Machine.loadAverage(), rounds);
    }

    private static ColdBurstReport.Round burst(int round, Settings settings, URI mashup, ServerCounts counts)
            throws Exception {
        Http1Burst burst = new Http1Burst(mashup, "Mashup-Complete", "true");
        // The mashup's deadline is 5 s; a minute more lets a starved server still answer and be counted.
        Http1Burst.Outcome outcome = burst.run(settings.concurrent(), 65_000);
        Map<String, Double> m = counts.scrape();
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

    private static String machine(Settings settings) {
        Launch launch = settings.launch();
        return String.format(Locale.ROOT, "%s; server %s%s, --mode %s, --max-threads %d, --max-inflight %d; partners "
                        + "%s, circuit breakers %s, warmed with 2 × %d requests", Machine.describe(), launch.java(),
                launch.jvmArgs().isEmpty() ? "" : " " + launch.jvmArgs(), settings.mode(), settings.maxThreads(),
                settings.concurrent(), settings.h2c() ? "h2c" : "HTTP/1.1", settings.breaker() ? "on" : "off",
                settings.partnerWarmup());
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
            """ + Launch.usage(20, "the server's java") + """
              --help            print this and exit
              --version         print the version and exit
            Needs an open-file limit (ulimit -n) of 3N + 512 or more: the server holds N inbound and 2N
            HTTP/1.1 partner connections at once (6,512 for N = 2,000); N + 512 with --partners h2c.
            Exit status: 0 every answer of every burst 200 with Mashup-Complete: true; 1 otherwise, or the run
            could not start; 2 bad command line.
            """;

    public static void main(String[] args) throws Exception {
        Settings settings = parse(new CommandLine("cold-burst", USAGE, args));
        Finish.exit("cold-burst", () -> run(settings));
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
        Launch.Reader launch = Launch.reader(d.launch(), false);
        while (line.next()) {
            switch (line.option()) {
                case "--concurrent" -> concurrent = line.intValue();
                case "--rounds" -> rounds = line.intValue();
                case "--mode" -> mode = line.value();
                case "--max-threads" -> maxThreads = line.intValue();
                case "--partners" -> h2c = choice(line, "http1", "h2c");
                case "--breaker" -> breaker = !choice(line, "on", "off");
                case "--warm-partners" -> partnerWarmup = line.intValue();
                default -> launch.readOrUnknown(line);
            }
        }
        try {
            return new Settings(concurrent, rounds, mode, maxThreads, h2c, breaker, partnerWarmup, launch.get());
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
