package io.rc10k.benchmarks.capacity;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.UnixOperatingSystemMXBean;
import io.rc10k.harness.CommandLine;
import io.rc10k.harness.Prometheus;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The heap one in-flight mashup costs: N concurrent requests to a mashup of C h2c partner calls that
 * answer after a delay, held by the mashup server at once; its live heap (after a full GC) with all N
 * in flight, minus its live heap idle (after a warm-up and a full GC), divided by the requests in
 * flight at the sample.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.HeapPerMashup
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.HeapPerMashup --inflight 200 --delay-ms 1000
 * </pre>
 *
 * Processes: partner stubs ({@code partner-stubs.jar --h2c}) and the mashup server ({@code
 * mashup-server.jar --config FILE --mode M --max-inflight N}), each a JVM of its own; the N inbound
 * HTTP/1.1 connections come from this JVM ({@link Http1Burst}), so this JVM and the server each hold
 * N sockets and need an open-file limit above N. The C·N partner calls are h2c streams on a few
 * connections. A full GC is {@code jcmd <pid> GC.run} with the {@code jcmd} beside the server's
 * {@code java}; the live heap is then the {@code G1 Old Gen} pool of the server's {@code /metrics}
 * (a G1 full GC leaves every live object in old regions, and what the scrape itself allocates goes to
 * eden), with {@code jcmd GC.heap_info}'s used heap beside it as a cross-check (it includes eden).
 * Exit status: 0 when the sample was taken with all N in flight and every request was answered 200
 * with {@code Mashup-Complete: true}; 1 otherwise; 2 for a bad command line; 0 for {@code --help}.
 */
public final class HeapPerMashup {
    /** The target: heap per in-flight mashup at C = 6. */
    public static final long TARGET_BYTES = 32 * 1024;
    private static final Pattern READY = Pattern.compile("mashup-server ready on (http://\\S+)");
    private static final Pattern HEAP_INFO_USED = Pattern.compile("heap\\s+total.*?used (\\d+)K");
    private static final String OLD_GEN = "jvm_memory_used_bytes{area=\"heap\",id=\"G1 Old Gen\"}";
    private static final String DIRECT = "jvm_buffer_memory_used_bytes{id=\"direct\"}";
    /** The broker's default; the stubs allow 1,024 streams per connection, so none is ever refused. */
    private static final int STREAMS_PER_CONNECTION = 128;
    private static final long POLL_MILLIS = 50;

    /**
     * Settings of one run.
     *
     * @param inflight       N: concurrent inbound requests, all on connections of their own
     * @param warmupRequests requests of each of the two warm-up bursts before the idle sample (0: none)
     * @param java           the {@code java} of the mashup server; its {@code jcmd} must be beside it
     */
    public record Settings(int inflight, int calls, long delayMillis, long deadlineMillis, String mode,
            int maxThreads, int warmupRequests, String java, List<String> jvmArgs, Path mashupJar, Path stubJar) {
        public Settings {
            jvmArgs = List.copyOf(jvmArgs);
            if (inflight < 1) {
                throw new IllegalArgumentException("--inflight: " + inflight + " (accepted: at least 1)");
            }
            if (calls < 1 || calls > 64) {
                throw new IllegalArgumentException("--calls: " + calls + " (accepted: 1 to 64)");
            }
            if (delayMillis < 1 || delayMillis > 300_000) {
                throw new IllegalArgumentException("--delay-ms: " + delayMillis + " (accepted: 1 to 300000)");
            }
            if (deadlineMillis <= delayMillis || deadlineMillis > 600_000) {
                throw new IllegalArgumentException("--deadline-ms: " + deadlineMillis + " (accepted: over --delay-ms "
                        + delayMillis + ", at most 600000)");
            }
            if (!List.of("async", "sync", "virtual").contains(mode)) {
                throw new IllegalArgumentException("--mode: \"" + mode + "\" (accepted: async, sync, virtual)");
            }
            if (maxThreads < 8) {
                throw new IllegalArgumentException("--max-threads: " + maxThreads + " (accepted: at least 8)");
            }
            if (warmupRequests < 0) {
                throw new IllegalArgumentException("--warmup: " + warmupRequests + " (accepted: 0 or more)");
            }
        }

        /**
         * 10,000 in flight, C = 6, 5 s partners, 10 s deadline, async, 200 threads, warm-up bursts of 500,
         * this JVM's java.
         */
        public static Settings defaults() {
            return new Settings(10_000, 6, 5_000, 10_000, "async", 200, 500, ServerProcess.javaCommand(), List.of(),
                    Path.of(System.getProperty("rc10k.mashup.jar", "mashup-server/target/mashup-server.jar")),
                    Path.of(System.getProperty("rc10k.stubs.jar", StubProcess.DEFAULT_JAR.toString())));
        }

        int partnerConnections() {
            return (int) ((long) calls * inflight / STREAMS_PER_CONNECTION) + 2;
        }
    }

    /**
     * What one run saw. Heap figures are live bytes after a full GC; {@code rampMillis} is the time from
     * the first connect to the server holding all N; {@code answers} counts responses by status.
     */
    public record Report(Settings settings, String machine, String serverJdk, long idleHeapBytes,
            long loadedHeapBytes, long idleHeapInfoBytes, long loadedHeapInfoBytes, long idleDirectBytes,
            long loadedDirectBytes, long inboundAtSample, long outboundAtSample, long partnerAtSample, long rampMillis,
            String notMeasured,
            int ok, int failed, String firstFailure, Map<String, Integer> answers) {

        public boolean measured() {
            return notMeasured == null;
        }

        public double bytesPerMashup() {
            return (double) (loadedHeapBytes - idleHeapBytes) / inboundAtSample;
        }

        public boolean passed() {
            return measured() && ok == settings.inflight() && failed == 0;
        }

        public String table() {
            String answered = answers.entrySet().stream().map(e -> String.format(Locale.ROOT, "%,d × %s", e.getValue(),
                    e.getKey())).collect(Collectors.joining(", "));
            int unanswered = failed - answers.entrySet().stream().filter(e -> !e.getKey().equals("200"))
                    .mapToInt(Map.Entry::getValue).sum();
            if (unanswered > 0) {
                answered += String.format(Locale.ROOT, ", %,d without an answer", unanswered);
            }
            StringBuilder out = new StringBuilder();
            out.append("| N | C | mode | idle heap MiB | loaded heap MiB | in flight at the sample (in / out / at the "
                    + "stubs) | KiB per in-flight mashup | answers |\n|---|---|---|---|---|---|---|---|\n");
            out.append(String.format(Locale.ROOT, "| %,d | %d | %s | %.1f | %s | %s | %s | %s |%n",
                    settings.inflight(), settings.calls(), settings.mode(), mib(idleHeapBytes),
                    measured() ? String.format(Locale.ROOT, "%.1f", mib(loadedHeapBytes)) : "—",
                    measured() ? String.format(Locale.ROOT, "%,d / %,d / %,d", inboundAtSample, outboundAtSample,
                            partnerAtSample) : "—",
                    measured() ? String.format(Locale.ROOT, "%.1f", bytesPerMashup() / 1024) : "—", answered));
            if (measured()) {
                out.append(String.format(Locale.ROOT, "target ≤ %d KiB per in-flight mashup: %s%n", TARGET_BYTES / 1024,
                        bytesPerMashup() <= TARGET_BYTES ? "met" : "NOT met"));
                out.append(String.format(Locale.ROOT, "cross-check, jcmd GC.heap_info used (eden included): idle %.1f MiB, "
                                + "loaded %.1f MiB -> %.1f KiB per in-flight mashup%n", mib(idleHeapInfoBytes),
                        mib(loadedHeapInfoBytes),
                        (loadedHeapInfoBytes - idleHeapInfoBytes) / 1024.0 / inboundAtSample));
                out.append(String.format(Locale.ROOT, "direct buffers (off heap, not counted above): idle %.1f MiB, "
                        + "loaded %.1f MiB%n", mib(idleDirectBytes), mib(loadedDirectBytes)));
                out.append(String.format(Locale.ROOT, "all %,d in flight %,d ms after the first connect (partner delay %,d ms, "
                        + "deadline %,d ms)%n", settings.inflight(), rampMillis, settings.delayMillis(),
                        settings.deadlineMillis()));
            } else {
                out.append("no sample: ").append(notMeasured).append('\n');
            }
            if (firstFailure != null) {
                out.append("first failure: ").append(firstFailure).append('\n');
            }
            out.append("machine: ").append(machine).append("; mashup server on ").append(serverJdk).append('\n');
            return out.toString();
        }

        private static double mib(long bytes) {
            return bytes / (1024.0 * 1024.0);
        }
    }

    private HeapPerMashup() {
    }

    public static Report run(Settings settings) throws Exception {
        for (Path jar : List.of(settings.mashupJar(), settings.stubJar())) {
            if (!Files.isRegularFile(jar)) {
                throw new IOException("no jar at " + jar.toAbsolutePath() + "; build first with "
                        + "./mvnw -q package -DskipTests (or pass --mashup-jar, --stub-jar)");
            }
        }
        checkOpenFiles(settings);
        String machine = machine(settings);
        System.out.println("machine: " + machine);
        Path definitions = Files.createTempFile("heap-per-mashup-", ".json");
        HttpClient probe = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        try (StubProcess stubs = StubProcess.start(settings.stubJar(), List.of(),
                List.of("--h2c"))) {
            Files.writeString(definitions, definitionsJson(stubs.uri(), settings));
            int adminPort = ServerProcess.freePort();
            try (ServerProcess server = ServerProcess.start("mashup", ServerProcess.mashupCommand(settings.java(),
                    settings.jvmArgs(), settings.mashupJar(), definitions, List.of("--mode", settings.mode(),
                    "--max-inflight", Integer.toString(settings.inflight()), "--max-threads",
                    Integer.toString(settings.maxThreads()), "--admin-port", Integer.toString(adminPort))),
                    READY)) {
                URI admin = URI.create("http://127.0.0.1:" + adminPort + "/metrics");
                return measure(settings, machine, server, admin, stubs.uri().resolve("/stats"), probe);
            }
        } finally {
            Files.deleteIfExists(definitions);
        }
    }

    private static Report measure(Settings settings, String machine, ServerProcess server, URI metrics,
            URI stubStats, HttpClient probe) throws Exception {
        String serverJdk = jcmd(settings, server.pid(), "VM.version").lines().filter(l -> l.startsWith("JDK "))
                .findFirst().orElse("JDK ?");
        URI mashup = server.uri().resolve("/mashup/c" + settings.calls());
        long burstTimeout = settings.deadlineMillis() + 60_000;
        for (int round = 1; round <= 2 && settings.warmupRequests() > 0; round++) {
            Http1Burst warm = new Http1Burst(mashup, "Mashup-Complete", "true");
            Http1Burst.Outcome outcome = warm.run(Math.min(settings.warmupRequests(), settings.inflight()), burstTimeout);
            System.out.println("warm-up " + round + ": " + warm.answers() + (outcome.firstFailure() == null ? ""
                    : ", first failure: " + outcome.firstFailure()));
        }
        awaitIdle(probe, metrics);
        long[] idle = liveHeap(settings, server, probe, metrics);
        System.out.printf(Locale.ROOT, "idle: live heap %,d bytes (heap_info used %,d), direct %,d%n", idle[0], idle[1],
                idle[2]);

        Http1Burst burst = new Http1Burst(mashup, "Mashup-Complete", "true");
        long start = System.nanoTime();
        CompletableFuture<Http1Burst.Outcome> outcome = CompletableFuture.supplyAsync(() -> {
            try {
                return burst.run(settings.inflight(), burstTimeout);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }, runnable -> {
            Thread thread = new Thread(runnable, "heap-burst");
            thread.setDaemon(true);
            thread.start();
        });
        long targetOut = (long) settings.calls() * settings.inflight();
        long pollEnd = start + TimeUnit.MILLISECONDS.toNanos(settings.delayMillis() + 30_000);
        long peakIn = 0;
        long peakOut = 0;
        long peakPartner = 0;
        String notMeasured = null;
        long[] loaded = {0, 0, 0};
        long inbound = 0;
        long outbound = 0;
        long partner = 0;
        long rampMillis = 0;
        while (true) {
            // First in the loop, so that a server that never answers its /metrics (one thrashing in a heap too small)
            // cannot keep the poll going past its bound, one timed-out scrape after another.
            if (outcome.isDone() || System.nanoTime() > pollEnd) {
                notMeasured = String.format(Locale.ROOT, "the server never held all %,d requests and %,d calls at once "
                        + "(peak seen %,d / %,d, at the stubs %,d); a longer --delay-ms gives the load more time to "
                        + "arrive", settings.inflight(), targetOut, peakIn, peakOut, peakPartner);
                break;
            }
            Map<String, Double> m;
            try {
                m = scrape(probe, metrics);
            } catch (HttpTimeoutException e) {
                // A starved server answers late; the next poll will tell.
                System.out.println("a /metrics poll timed out during the ramp");
                continue;
            }
            inbound = m.getOrDefault("mashup_inbound_inflight", 0.0).longValue();
            outbound = m.getOrDefault("mashup_outbound_inflight", 0.0).longValue();
            peakIn = Math.max(peakIn, inbound);
            peakOut = Math.max(peakOut, outbound);
            // The broker counts a call that waits for a connection as in flight; the stubs count only what reached them.
            if (inbound >= settings.inflight() && outbound >= targetOut) {
                try {
                    partner = stubInFlight(probe, stubStats);
                    peakPartner = Math.max(peakPartner, partner);
                } catch (HttpTimeoutException e) {
                    System.out.println("a stub /stats poll timed out during the ramp");
                    continue;
                }
            }
            if (inbound >= settings.inflight() && outbound >= targetOut && partner >= targetOut) {
                rampMillis = (System.nanoTime() - start) / 1_000_000;
                break;
            }
            Thread.sleep(POLL_MILLIS);
        }
        if (notMeasured == null) {
            loaded = liveHeap(settings, server, probe, metrics);
            Map<String, Double> after = scrape(probe, metrics);
            long inboundAfter = after.getOrDefault("mashup_inbound_inflight", 0.0).longValue();
            System.out.printf(Locale.ROOT, "loaded: live heap %,d bytes (heap_info used %,d), direct %,d; in flight "
                    + "%,d / %,d before the GC, %,d after%n", loaded[0], loaded[1], loaded[2], inbound, outbound,
                    inboundAfter);
            if (inboundAfter < inbound) {
                notMeasured = String.format(Locale.ROOT, "%,d requests ended while the sample was taken; "
                        + "a longer --delay-ms leaves more time", inbound - inboundAfter);
            }
        }
        Http1Burst.Outcome result = outcome.get(burstTimeout + 30_000, TimeUnit.MILLISECONDS);
        Map<String, Double> end = scrape(probe, metrics);
        System.out.println("the server's own counts: " + end.entrySet().stream()
                .filter(e -> e.getKey().startsWith("mashup_requests_total") || e.getKey().startsWith("mashup_partner_calls_total"))
                .map(e -> e.getKey() + " " + e.getValue().longValue()).sorted().collect(Collectors.joining(", ")));
        return new Report(settings, machine, serverJdk, idle[0], loaded[0], idle[1], loaded[1], idle[2], loaded[2],
                inbound, outbound, partner, rampMillis, notMeasured, result.ok(), result.failed(), result.firstFailure(),
                burst.answers());
    }

    /** A full GC, then {live heap: the old gen per /metrics, used heap per jcmd GC.heap_info, direct buffers}. */
    private static long[] liveHeap(Settings settings, ServerProcess server, HttpClient probe, URI metrics)
            throws Exception {
        long start = System.nanoTime();
        jcmd(settings, server.pid(), "GC.run");
        long gcMillis = (System.nanoTime() - start) / 1_000_000;
        Map<String, Double> m = scrape(probe, metrics);
        String heapInfo = jcmd(settings, server.pid(), "GC.heap_info");
        Double oldGen = m.get(OLD_GEN);
        Matcher used = HEAP_INFO_USED.matcher(heapInfo);
        if (oldGen == null || !used.find()) {
            throw new IllegalStateException("the server does not run G1 (the default GC): no " + OLD_GEN
                    + " in /metrics or no used heap in GC.heap_info:\n" + heapInfo);
        }
        System.out.println("full GC (jcmd GC.run) took " + gcMillis + " ms");
        return new long[] {oldGen.longValue(), Long.parseLong(used.group(1)) * 1024,
                m.getOrDefault(DIRECT, 0.0).longValue()};
    }

    private static final Pattern STUB_IN_FLIGHT = Pattern.compile("\"inFlight\":(\\d+)");

    /** Partner requests the stubs hold now, from their {@code /stats}. */
    private static long stubInFlight(HttpClient probe, URI stats) throws Exception {
        HttpResponse<String> response = probe.send(HttpRequest.newBuilder(stats).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        Matcher m = STUB_IN_FLIGHT.matcher(response.body());
        if (response.statusCode() != 200 || !m.find()) {
            throw new IOException("GET " + stats + ": status " + response.statusCode() + ", " + response.body());
        }
        return Long.parseLong(m.group(1));
    }

    /** Waits, bounded, until the warm-up's requests and calls have all ended in the server's own counts. */
    private static void awaitIdle(HttpClient probe, URI metrics) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Map<String, Double> m = scrape(probe, metrics);
            if (m.getOrDefault("mashup_inbound_inflight", 0.0) == 0 && m.getOrDefault("mashup_outbound_inflight", 0.0) == 0) {
                return;
            }
            if (System.nanoTime() > end) {
                throw new IllegalStateException("still in flight 30 s after the warm-up: inbound "
                        + m.get("mashup_inbound_inflight") + ", outbound " + m.get("mashup_outbound_inflight"));
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    /** The server's Prometheus text as {@code name{labels}} → value (comments skipped). */
    static Map<String, Double> scrape(HttpClient probe, URI metrics) throws Exception {
        HttpResponse<String> response = probe.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (response.statusCode() != 200) {
            throw new IOException("GET " + metrics + ": status " + response.statusCode());
        }
        return Prometheus.parse(System.currentTimeMillis(), response.body()).series();
    }

    private static String jcmd(Settings settings, long pid, String command) throws IOException, InterruptedException {
        Path java = Path.of(settings.java());
        String jcmd = java.getParent() == null ? "jcmd" : java.resolveSibling("jcmd").toString();
        Process process = new ProcessBuilder(jcmd, Long.toString(pid), command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException(jcmd + " " + pid + " " + command + " failed: " + out);
        }
        return out;
    }

    /**
     * One h2c partner (the stubs) with room for all C·N streams at once — connections of
     * {@value #STREAMS_PER_CONNECTION} streams, a queue for the calls that wait for a connection to open —
     * and one mashup {@code /mashup/c<C>} of C calls to {@code /stub?delay=D}. The circuit breaker is
     * off and connects may take 10 s: opening hundreds of connections at once on a busy 2-core box can
     * time out a few, and an open breaker would turn the rest of the run into instant failures that
     * hold no memory.
     */
    static String definitionsJson(URI stubs, Settings settings) {
        int streams = settings.calls() * settings.inflight();
        StringBuilder json = new StringBuilder(String.format(Locale.ROOT, "{\"partners\":{\"stub\":{\"baseUri\":\"%s\","
                        + "\"protocol\":\"h2c\",\"maxConnections\":%d,\"maxStreamsPerConnection\":%d,\"maxQueued\":%d,"
                        + "\"callTimeoutMillis\":%d,\"connectTimeoutMillis\":10000,\"circuitBreaker\":{\"enabled\":false}}},"
                        + "\"mashups\":{\"c%d\":{\"deadlineMillis\":%d,\"calls\":[",
                stubs, settings.partnerConnections(), STREAMS_PER_CONNECTION, streams, settings.deadlineMillis(),
                settings.calls(), settings.deadlineMillis()));
        for (int k = 1; k <= settings.calls(); k++) {
            json.append(k > 1 ? "," : "").append(String.format(Locale.ROOT,
                    "{\"name\":\"p%d\",\"partner\":\"stub\",\"template\":\"/stub?delay=%d&id=%d\"}", k,
                    settings.delayMillis(), k));
        }
        return json.append("]}}}").toString();
    }

    /** This JVM and the server (which inherits the limit) each hold N sockets; say plainly when that cannot be. */
    private static void checkOpenFiles(Settings settings) {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean os) {
            long need = settings.inflight() + settings.partnerConnections() + 512L;
            long have = os.getMaxFileDescriptorCount();
            if (have < need) {
                throw new IllegalStateException(String.format(Locale.ROOT, "--inflight %d holds %d inbound connections "
                        + "in this JVM and in the mashup server, but the open-file limit is %d; raise it (ulimit -n %d "
                        + "or more) or lower --inflight", settings.inflight(), settings.inflight(), have, need));
            }
        }
    }

    private static String machine(Settings settings) {
        long memory = ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        long openFiles = ManagementFactory.getOperatingSystemMXBean()
                instanceof UnixOperatingSystemMXBean os ? os.getMaxFileDescriptorCount() : -1;
        return String.format(Locale.ROOT, "%d cores, %.1f GiB, open-file limit %d, this JVM %s; server %s%s, --mode %s, "
                        + "--max-threads %d; C = %d h2c calls of %d ms, deadline %d ms",
                Runtime.getRuntime().availableProcessors(), memory / (double) (1L << 30), openFiles, Runtime.version(),
                settings.java(), settings.jvmArgs().isEmpty() ? "" : " " + settings.jvmArgs(), settings.mode(),
                settings.maxThreads(), settings.calls(), settings.delayMillis(), settings.deadlineMillis());
    }

    private static final String USAGE = """
            [options]   (run as java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.HeapPerMashup)
              --inflight N      concurrent inbound requests, one connection each (default 10000)
              --calls C         h2c partner calls per mashup, 1 to 64 (default 6)
              --delay-ms MS     partner delay (default 5000)
              --deadline-ms MS  the mashup's deadline and each call's timeout, over the delay (default 10000)
              --mode MODE       async (default) | sync | virtual (JDK 21+): the server's --mode
              --max-threads N   the server's --max-threads (default 200)
              --warmup N        requests in each of two warm-up bursts (default 500; 0: none)
              --java PATH       the server's java; its jcmd must be beside it (default: this JVM's)
              --jvm-arg ARG     a JVM option for the server (repeatable)
              --mashup-jar PATH (default mashup-server/target/mashup-server.jar)
              --stub-jar PATH   (default partner-stubs/target/partner-stubs.jar)
              --help            print this and exit
              --version         print the version and exit
            Needs an open-file limit above N + a few hundred (ulimit -n) in this JVM and the server.
            Exit status: 0 measured with all N in flight and every answer 200 with Mashup-Complete: true;
            1 otherwise; 2 bad command line.
            """;


    public static void main(String[] args) throws Exception {
        Settings d = Settings.defaults();
        int inflight = d.inflight();
        int calls = d.calls();
        long delay = d.delayMillis();
        Long deadline = null;
        String mode = d.mode();
        int maxThreads = d.maxThreads();
        int warmup = d.warmupRequests();
        String java = d.java();
        List<String> jvmArgs = new ArrayList<>();
        Path mashupJar = d.mashupJar();
        Path stubJar = d.stubJar();
        CommandLine line = new CommandLine("heap-per-mashup", USAGE, args);
        while (line.next()) {
            switch (line.option()) {
                case "--inflight" -> inflight = line.intValue();
                case "--calls" -> calls = line.intValue();
                case "--delay-ms" -> delay = line.longValue();
                case "--deadline-ms" -> deadline = line.longValue();
                case "--mode" -> mode = line.value();
                case "--max-threads" -> maxThreads = line.intValue();
                case "--warmup" -> warmup = line.intValue();
                case "--java" -> java = line.value();
                case "--jvm-arg" -> jvmArgs.add(line.value());
                case "--mashup-jar" -> mashupJar = line.path();
                case "--stub-jar" -> stubJar = line.path();
                default -> line.unknown();
            }
        }
        Settings settings;
        try {
            // Without --deadline-ms the deadline keeps the default's 5 s of slack over whatever delay was asked for.
            settings = new Settings(inflight, calls, delay, deadline != null ? deadline : delay + 5_000, mode,
                    maxThreads, warmup, java, jvmArgs, mashupJar, stubJar);
        } catch (IllegalArgumentException e) {
            throw line.fail(e.getMessage());
        }
        Report report = run(settings);
        System.out.println();
        System.out.print(report.table());
        System.exit(report.passed() ? 0 : 1);
    }
}
