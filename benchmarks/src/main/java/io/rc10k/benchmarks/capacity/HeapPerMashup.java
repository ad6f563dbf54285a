package io.rc10k.benchmarks.capacity;

import io.rc10k.benchmarks.launch.Finish;
import io.rc10k.benchmarks.launch.Launch;
import io.rc10k.benchmarks.launch.Machine;
import io.rc10k.harness.CommandLine;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 * connections. The live heap is sampled after a full GC, from outside ({@link LiveHeap}).
 * Exit status: 0 when the sample was taken with all N in flight and every request was answered 200
 * with {@code Mashup-Complete: true}; 1 otherwise; 2 for a bad command line; 0 for {@code --help}.
 */
public final class HeapPerMashup {
    /** The broker's default; the stubs allow 1,024 streams per connection, so none is ever refused. */
    private static final int STREAMS_PER_CONNECTION = 128;
    private static final long POLL_MILLIS = 50;
    private static final Pattern STUB_IN_FLIGHT = Pattern.compile("\"inFlight\":(\\d+)");

    /**
     * Settings of one run.
     *
     * @param inflight       N: concurrent inbound requests, all on connections of their own
     * @param warmupRequests requests of each of the two warm-up bursts before the idle sample (0: none)
     * @param launch         the mashup server's java (its {@code jcmd} must be beside it), JVM options and jar, and
     *                       the stubs' jar
     */
    public record Settings(int inflight, int calls, long delayMillis, long deadlineMillis, String mode,
            int maxThreads, int warmupRequests, Launch launch) {
        public Settings {
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
            Launch.checkModes("--mode", List.of(mode));
            Launch.checkMaxThreads(maxThreads);
            if (warmupRequests < 0) {
                throw new IllegalArgumentException("--warmup: " + warmupRequests + " (accepted: 0 or more)");
            }
        }

        /**
         * 10,000 in flight, C = 6, 5 s partners, 10 s deadline, async, 200 threads, warm-up bursts of 500,
         * this JVM's java.
         */
        public static Settings defaults() {
            return new Settings(10_000, 6, 5_000, 10_000, "async", 200, 500, Launch.defaults());
        }

        int partnerConnections() {
            return (int) ((long) calls * inflight / STREAMS_PER_CONNECTION) + 2;
        }
    }

    /**
     * How the ramp to N in flight ended: at the moment the server and the stubs held all of it, or, with
     * {@code notMeasured} saying why, never.
     */
    private record Ramp(long inbound, long outbound, long partner, long rampMillis, String notMeasured) {
    }

    private HeapPerMashup() {
    }

    public static HeapReport run(Settings settings) throws Exception {
        Launch launch = settings.launch();
        launch.requireJars(false);
        // This JVM and the server (which inherits the limit) each hold N sockets.
        Machine.requireOpenFiles(settings.inflight() + settings.partnerConnections() + 512L, String.format(Locale.ROOT,
                "--inflight %d holds %d inbound connections in this JVM and in the mashup server (or lower --inflight)",
                settings.inflight(), settings.inflight()));
        String machine = machine(settings);
        System.out.println("machine: " + machine);
        Path definitions = Files.createTempFile("heap-per-mashup-", ".json");
        HttpClient probe = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        try (StubProcess stubs = StubProcess.start(launch.stubJar(), List.of(), List.of("--h2c"))) {
            Files.writeString(definitions, definitionsJson(stubs.uri(), settings));
            int adminPort = ServerProcess.freePort();
            try (ServerProcess server = launch.startMashup("mashup", definitions, List.of("--mode", settings.mode(),
                    "--max-inflight", Integer.toString(settings.inflight()), "--max-threads",
                    Integer.toString(settings.maxThreads()), "--admin-port", Integer.toString(adminPort)))) {
                ServerCounts counts = new ServerCounts(probe, URI.create("http://127.0.0.1:" + adminPort + "/metrics"));
                return measure(settings, machine, server, counts, new StubStats(probe, stubs.uri().resolve("/stats")));
            }
        } finally {
            Files.deleteIfExists(definitions);
        }
    }

    private static HeapReport measure(Settings settings, String machine, ServerProcess server, ServerCounts counts,
            StubStats stubs) throws Exception {
        String java = settings.launch().java();
        String serverJdk = LiveHeap.jcmd(java, server.pid(), "VM.version").lines().filter(l -> l.startsWith("JDK "))
                .findFirst().orElse("JDK ?");
        URI mashup = server.uri().resolve("/mashup/c" + settings.calls());
        long burstTimeout = settings.deadlineMillis() + 60_000;
        for (int round = 1; round <= 2 && settings.warmupRequests() > 0; round++) {
            Http1Burst warm = new Http1Burst(mashup, "Mashup-Complete", "true");
            Http1Burst.Outcome outcome = warm.run(Math.min(settings.warmupRequests(), settings.inflight()), burstTimeout);
            System.out.println("warm-up " + round + ": " + warm.answers() + (outcome.firstFailure() == null ? ""
                    : ", first failure: " + outcome.firstFailure()));
        }
        counts.awaitIdle("the warm-up");
        LiveHeap idle = LiveHeap.sample(java, server.pid(), counts);
        System.out.printf(Locale.ROOT, "idle: live heap %,d bytes (heap_info used %,d), direct %,d%n", idle.liveBytes(),
                idle.heapInfoUsedBytes(), idle.directBytes());

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
        Ramp ramp = awaitAllInFlight(settings, start, outcome, counts, stubs);
        String notMeasured = ramp.notMeasured();
        LiveHeap loaded = new LiveHeap(0, 0, 0);
        if (notMeasured == null) {
            loaded = LiveHeap.sample(java, server.pid(), counts);
            long inboundAfter = counts.scrape().getOrDefault("mashup_inbound_inflight", 0.0).longValue();
            System.out.printf(Locale.ROOT, "loaded: live heap %,d bytes (heap_info used %,d), direct %,d; in flight "
                    + "%,d / %,d before the GC, %,d after%n", loaded.liveBytes(), loaded.heapInfoUsedBytes(),
                    loaded.directBytes(), ramp.inbound(), ramp.outbound(), inboundAfter);
            if (inboundAfter < ramp.inbound()) {
                notMeasured = String.format(Locale.ROOT, "%,d requests ended while the sample was taken; "
                        + "a longer --delay-ms leaves more time", ramp.inbound() - inboundAfter);
            }
        }
        Http1Burst.Outcome result = outcome.get(burstTimeout + 30_000, TimeUnit.MILLISECONDS);
        System.out.println(counts.outcomes());
        return new HeapReport(settings, machine, serverJdk, idle, loaded, ramp.inbound(), ramp.outbound(),
                ramp.partner(), ramp.rampMillis(), notMeasured, result.ok(), result.failed(), result.firstFailure(),
                burst.answers());
    }

    /**
     * Polls until the server holds all N requests and C·N calls and the stubs all C·N calls — the broker counts a
     * call that waits for a connection as in flight; the stubs count only what reached them — or the burst ends, or
     * the partners' delay and 30 s more have passed.
     */
    private static Ramp awaitAllInFlight(Settings settings, long start, CompletableFuture<Http1Burst.Outcome> outcome,
            ServerCounts counts, StubStats stubs) throws Exception {
        long targetOut = (long) settings.calls() * settings.inflight();
        long pollEnd = start + TimeUnit.MILLISECONDS.toNanos(settings.delayMillis() + 30_000);
        long peakIn = 0;
        long peakOut = 0;
        long peakPartner = 0;
        long partner = 0;
        while (true) {
            Map<String, Double> m;
            try {
                m = counts.scrape();
            } catch (HttpTimeoutException e) {
                // A starved server answers late; the next poll will tell — until the bound, which a server thrashing
                // in a heap too small (every poll timing out) must not keep the ramp from reaching.
                System.out.println("a /metrics poll timed out during the ramp");
                if (System.nanoTime() <= pollEnd) {
                    continue;
                }
                m = Map.of();
            }
            long inbound = m.getOrDefault("mashup_inbound_inflight", 0.0).longValue();
            long outbound = m.getOrDefault("mashup_outbound_inflight", 0.0).longValue();
            peakIn = Math.max(peakIn, inbound);
            peakOut = Math.max(peakOut, outbound);
            boolean serverHoldsAll = inbound >= settings.inflight() && outbound >= targetOut;
            if (serverHoldsAll) {
                try {
                    partner = stubs.inFlight();
                    peakPartner = Math.max(peakPartner, partner);
                } catch (HttpTimeoutException e) {
                    System.out.println("a stub /stats poll timed out during the ramp");
                    if (System.nanoTime() <= pollEnd) {
                        continue;
                    }
                }
            }
            if (serverHoldsAll && partner >= targetOut) {
                return new Ramp(inbound, outbound, partner, (System.nanoTime() - start) / 1_000_000, null);
            }
            if (outcome.isDone() || System.nanoTime() > pollEnd) {
                return new Ramp(inbound, outbound, partner, 0, String.format(Locale.ROOT, "the server never held all "
                        + "%,d requests and %,d calls at once (peak seen %,d / %,d, at the stubs %,d); a longer "
                        + "--delay-ms gives the load more time to arrive", settings.inflight(), targetOut, peakIn,
                        peakOut, peakPartner));
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    /** The stubs' {@code /stats}. */
    private record StubStats(HttpClient probe, URI stats) {
        /** Partner requests the stubs hold now. */
        long inFlight() throws Exception {
            HttpResponse<String> response = probe.send(HttpRequest.newBuilder(stats).timeout(Duration.ofSeconds(30))
                    .build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            Matcher m = STUB_IN_FLIGHT.matcher(response.body());
            if (response.statusCode() != 200 || !m.find()) {
                throw new IOException("GET " + stats + ": status " + response.statusCode() + ", " + response.body());
            }
            return Long.parseLong(m.group(1));
        }
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

    private static String machine(Settings settings) {
        Launch launch = settings.launch();
        return String.format(Locale.ROOT, "%s; server %s%s, --mode %s, --max-threads %d; C = %d h2c calls of %d ms, "
                        + "deadline %d ms", Machine.describe(), launch.java(),
                launch.jvmArgs().isEmpty() ? "" : " " + launch.jvmArgs(), settings.mode(), settings.maxThreads(),
                settings.calls(), settings.delayMillis(), settings.deadlineMillis());
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
            """ + Launch.usage(20, "the server's java; its jcmd must be beside it") + """
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
        Launch.Reader launch = Launch.reader(d.launch(), false);
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
                default -> launch.readOrUnknown(line);
            }
        }
        Settings settings;
        try {
            // Without --deadline-ms the deadline keeps the default's 5 s of slack over whatever delay was asked for.
            settings = new Settings(inflight, calls, delay, deadline != null ? deadline : delay + 5_000, mode,
                    maxThreads, warmup, launch.get());
        } catch (IllegalArgumentException e) {
            throw line.fail(e.getMessage());
        }
        Finish.exit("heap-per-mashup", () -> run(settings));
    }
}
