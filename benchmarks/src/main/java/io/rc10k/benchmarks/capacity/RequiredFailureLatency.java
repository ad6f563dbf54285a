package io.rc10k.benchmarks.capacity;

import io.rc10k.benchmarks.launch.Finish;
import io.rc10k.benchmarks.launch.Launch;
import io.rc10k.benchmarks.launch.Machine;
import io.rc10k.harness.CommandLine;
import io.rc10k.harness.ServerProcess;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How soon after a required part fails the mashup answers 502, with its other calls cancelled: the
 * last item of the required-parts issue, which a unit test may not time. A mashup of three calls — the
 * required {@code account}, which answers 503 after {@code --fail-after-ms}, and two slow calls (one
 * HTTP/1.1, one h2c) of {@code --slow-ms} under a long deadline — is asked N times per number of
 * clients, in each mode; every answer must be that 502 with both slow calls {@code cancelled}, and the
 * p99 of how late it came after the failure must be within {@code --max-p99-ms}.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.RequiredFailureLatency
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.RequiredFailureLatency --requests 100 --clients 1,4
 * </pre>
 *
 * Processes, fresh for each mode: two stub JVMs ({@code partner-stubs.jar --h2c} for the account and
 * the slow h2c calls; {@code partner-stubs.jar} for the slow HTTP/1.1 calls, so that the first one's
 * {@code /stats} counts only calls that can witness a cancel) and the mashup server ({@code
 * mashup-server.jar --mode M}). The clients are threads of this JVM, each on a kept-alive connection
 * ({@link TimedGet}). How late, per answer: the time from writing the request to reading the 502, less
 * the account part's own {@code elapsedMillis} — the server's call to the account from its start to its
 * failure. That is an upper bound: it also holds the request's way in before the call starts, and up
 * to 1 ms of the whole-millisecond {@code elapsedMillis}. Cancels are checked in the server's counts
 * ({@code cancelled} calls, connections to the slow HTTP/1.1 partner closed) and at the h2c stub, which
 * sees each reset; an HTTP/1.1 stub cannot see its caller close until it writes (docs/partner-stubs.md).
 * Virtual mode needs the server's java to be 21 or newer; on an older one it is skipped, saying so.
 * Exit status: 0 every answer right and every measured p99 within the threshold; 1 otherwise, or the
 * run could not start, with the reasons; 2 bad command line; 0 for {@code --help}.
 */
public final class RequiredFailureLatency {
    /**
     * Settings of one run.
     *
     * @param requests    N: measured requests per number of clients and mode
     * @param warmup      requests before the measured ones, per mode, from the most clients (0: none)
     * @param clients     the numbers of clients K, a pass each: K threads, a request at a time each
     * @param maxP99Millis the threshold of the p99 lateness of every measured pass
     * @param launch      the mashup server's java, JVM options and jar, and the stubs' jar
     */
    public record Settings(int requests, int warmup, List<Integer> clients, long failAfterMillis, long slowMillis,
            long deadlineMillis, double maxP99Millis, List<String> modes, Launch launch) {
        public Settings {
            clients = List.copyOf(clients);
            modes = Launch.checkModes("--modes", modes);
            if (requests < 1 || requests > 100_000) {
                throw new IllegalArgumentException("--requests: " + requests + " (accepted: 1 to 100000)");
            }
            if (warmup < 0 || warmup > 100_000) {
                throw new IllegalArgumentException("--warmup: " + warmup + " (accepted: 0 to 100000)");
            }
            // Each client holds a connection to the slow HTTP/1.1 partner (256 at most) and, in sync mode, threads.
            if (clients.isEmpty() || clients.stream().anyMatch(k -> k < 1 || k > 100)) {
                throw new IllegalArgumentException("--clients: " + clients.stream().map(String::valueOf)
                        .collect(Collectors.joining(",")) + " (accepted: numbers from 1 to 100)");
            }
            if (failAfterMillis < 1 || failAfterMillis >= deadlineMillis) {
                throw new IllegalArgumentException("--fail-after-ms: " + failAfterMillis + " (accepted: 1 to under "
                        + "--deadline-ms " + deadlineMillis + ")");
            }
            if (deadlineMillis > 600_000) {
                throw new IllegalArgumentException("--deadline-ms: " + deadlineMillis + " (accepted: at most 600000)");
            }
            if (slowMillis <= failAfterMillis || slowMillis > 600_000) {
                throw new IllegalArgumentException("--slow-ms: " + slowMillis + " (accepted: over --fail-after-ms "
                        + failAfterMillis + ", at most 600000)");
            }
            if (!(maxP99Millis > 0)) {
                throw new IllegalArgumentException("--max-p99-ms: " + maxP99Millis + " (accepted: over 0)");
            }
        }

        /**
         * 500 requests by 1 and by 16 clients after 100 to warm up; the account fails after 100 ms, the slow
         * calls would take 30 s, the deadline is 20 s; p99 within 50 ms; every mode; this JVM's java.
         */
        public static Settings defaults() {
            return new Settings(500, 100, List.of(1, 16), 100, 30_000, 20_000, 50, Launch.MODES, Launch.defaults());
        }
    }

    private RequiredFailureLatency() {
    }

    public static RequiredFailureReport run(Settings settings) throws Exception {
        settings.launch().requireJars(false);
        String loadBefore = Machine.loadAverage();
        String serverJdk = settings.launch().javaVersion();
        boolean virtualThreads = Launch.hasVirtualThreads(serverJdk);
        String machine = Machine.describe();
        System.out.println("machine: " + machine + "; mashup server on " + serverJdk);
        List<RequiredFailureReport.Mode> modes = new ArrayList<>();
        for (String mode : settings.modes()) {
            if (mode.equals("virtual") && !virtualThreads) {
                String why = "the server's java (" + serverJdk + ") is older than 21 and has no virtual threads; "
                        + "pass --java with a JDK 21+ to measure it";
                System.out.println("virtual: skipped — " + why);
                modes.add(new RequiredFailureReport.Mode(mode, why, List.of()));
                continue;
            }
            modes.add(new RequiredFailureReport.Mode(mode, null, runMode(settings, mode)));
        }
        return new RequiredFailureReport(settings, machine, serverJdk, loadBefore, Machine.loadAverage(), modes);
    }

    /** Fresh stubs and a fresh server for one mode: the warm-up, then a pass per number of clients. */
    private static List<RequiredFailureReport.Pass> runMode(Settings settings, String mode) throws Exception {
        Path definitions = Files.createTempFile("required-failure-", ".json");
        List<RequiredFailureReport.Pass> passes = new ArrayList<>();
        Launch launch = settings.launch();
        try (StubProcess h2cStub = StubProcess.start(launch.stubJar(), List.of(), List.of("--h2c"));
                StubProcess h1Stub = StubProcess.start(launch.stubJar(), List.of(), List.of())) {
            Files.writeString(definitions, definitionsJson(h2cStub.uri(), h1Stub.uri(), settings));
            int adminPort = ServerProcess.freePort();
            try (ServerProcess server = launch.startMashup("mashup-" + mode, definitions, List.of("--mode", mode,
                    "--admin-port", Integer.toString(adminPort)))) {
                RequiredFailurePass pass = new RequiredFailurePass(settings, mode, server.uri(),
                        URI.create("http://127.0.0.1:" + adminPort + "/metrics"), h2cStub.uri());
                if (settings.warmup() > 0) {
                    int most = settings.clients().stream().mapToInt(Integer::intValue).max().orElse(1);
                    passes.add(pass.run(Math.min(most, settings.warmup()), settings.warmup(), true));
                }
                for (int clients : settings.clients()) {
                    passes.add(pass.run(clients, settings.requests(), false));
                }
            }
        } finally {
            Files.deleteIfExists(definitions);
        }
        return passes;
    }

    /**
     * The mashup {@code required}: {@code slow_h1} (HTTP/1.1, to {@code h1Stub}), {@code account}
     * (required, HTTP/1.1, a 503 after the failure delay) and {@code slow_h2c} (h2c), both slow calls to
     * {@code /stub?delay=<slow>}. Every partner without retries and without a circuit breaker — one
     * failure is one call, and a breaker opened by the failures the run is made of would end the account
     * call before it is sent — and with the deadline as its call timeout, so that only the deadline or a
     * cancel ends a slow call.
     */
    static String definitionsJson(URI h2cStub, URI h1Stub, Settings settings) {
        String common = String.format(Locale.ROOT, "\"retries\":0,\"callTimeoutMillis\":%d,"
                + "\"circuitBreaker\":{\"enabled\":false}", settings.deadlineMillis());
        return String.format(Locale.ROOT, "{\"partners\":{"
                        + "\"account\":{\"baseUri\":\"%s\",%s},"
                        + "\"slow_h1\":{\"baseUri\":\"%s\",%s},"
                        + "\"slow_h2c\":{\"baseUri\":\"%s\",\"protocol\":\"h2c\",%s}},"
                        + "\"mashups\":{\"required\":{\"deadlineMillis\":%d,\"calls\":["
                        + "{\"partner\":\"slow_h1\",\"template\":\"/stub?delay=%d\"},"
                        + "{\"partner\":\"account\",\"template\":\"/stub?delay=%d&status=503\",\"required\":true},"
                        + "{\"partner\":\"slow_h2c\",\"template\":\"/stub?delay=%d\"}]}}}",
                h2cStub, common, h1Stub, common, h2cStub, common, settings.deadlineMillis(), settings.slowMillis(),
                settings.failAfterMillis(), settings.slowMillis());
    }

    private static final String USAGE = """
            [options]   (run as java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.RequiredFailureLatency)
              --requests N        measured requests per number of clients and mode (default 500)
              --warmup N          requests before them on each fresh server, not judged (default 100; 0: none)
              --clients K,...     clients at once, a pass each; each sends a request at a time (default 1,16)
              --fail-after-ms MS  the required account call answers 503 after this (default 100)
              --slow-ms MS        the two other calls (HTTP/1.1, h2c) would answer after this (default 30000)
              --deadline-ms MS    the mashup's deadline (default 20000)
              --max-p99-ms MS     the threshold: p99 of how late the 502 comes after the failure (default 50)
              --modes M,...       async, sync, virtual (default all three; virtual is skipped, saying so,
                                  when the server's java is older than 21)
            """ + Launch.usage(22, "the server's java") + """
              --help              print this and exit
              --version           print the version and exit
            Exit status: 0 every answer a 502 with the slow calls cancelled, and every measured p99 within
            --max-p99-ms; 1 otherwise (the reasons are printed), or the run could not start; 2 bad command line.
            """;

    public static void main(String[] args) throws Exception {
        Settings settings = parse(new CommandLine("required-failure-latency", USAGE, args));
        Finish.exit("required-failure-latency", () -> run(settings));
    }

    /** The settings the command line asks for; a bad line exits 2 naming the option. */
    static Settings parse(CommandLine line) {
        Settings d = Settings.defaults();
        int requests = d.requests();
        int warmup = d.warmup();
        List<Integer> clients = d.clients();
        long failAfter = d.failAfterMillis();
        long slow = d.slowMillis();
        long deadline = d.deadlineMillis();
        double maxP99 = d.maxP99Millis();
        List<String> modes = d.modes();
        Launch.Reader launch = Launch.reader(d.launch(), false);
        while (line.next()) {
            switch (line.option()) {
                case "--requests" -> requests = line.intValue();
                case "--warmup" -> warmup = line.intValue();
                case "--clients" -> clients = line.intList();
                case "--fail-after-ms" -> failAfter = line.longValue();
                case "--slow-ms" -> slow = line.longValue();
                case "--deadline-ms" -> deadline = line.longValue();
                case "--max-p99-ms" -> maxP99 = line.doubleValue();
                case "--modes" -> modes = line.list();
                default -> launch.readOrUnknown(line);
            }
        }
        try {
            return new Settings(requests, warmup, clients, failAfter, slow, deadline, maxP99, modes, launch.get());
        } catch (IllegalArgumentException e) {
            throw line.fail(e.getMessage());
        }
    }
}
