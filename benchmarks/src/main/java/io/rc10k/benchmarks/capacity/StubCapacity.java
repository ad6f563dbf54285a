package io.rc10k.benchmarks.capacity;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.UnixOperatingSystemMXBean;
import io.rc10k.harness.CommandLine;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.client.transport.HttpClientTransportOverHTTP2;
import org.eclipse.jetty.io.ClientConnector;

/**
 * The partner-stubs capacity experiment: N concurrent delayed requests against one stub process,
 * over HTTP/1.1 (one connection each) or h2c (multiplexed over a bounded number of connections).
 * The stub runs in a process of its own; its thread and connection counts come from its
 * {@code /stats}, sampled through the run.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.StubCapacity --requests 10000
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.StubCapacity --h2c --requests 20000 --max-connections 200
 * </pre>
 *
 * Exit status 0 when every request got a 200 within the budget and the thread bound held, 1 otherwise.
 */
public final class StubCapacity {
    /**
     * Settings of one run.
     *
     * @param budgetMillis  the time from the first request sent to the last response received that passes
     * @param maxLiveThreads the most live JVM threads the stub process may show
     */
    public record Settings(boolean h2c, int requests, int maxConnections, long delayMillis, long budgetMillis,
            int maxLiveThreads, Path stubJar, List<String> stubArgs) {
    }

    /**
     * What one round saw. {@code stubPeakThreads} is the stub JVM's own peak thread count: since it
     * started for round 1, since the reset between rounds for later ones.
     */
    public record Report(Settings settings, int ok, int failed, String firstFailure, long lastSentMillis,
            long firstToLastMillis,
            long stubPeakThreads, long stubMaxLiveThreadsSampled, long stubConnectionsPeak, long stubInFlightPeak,
            long stubCpuMillis, long loadCpuMillis) {

        public boolean passed() {
            return ok == settings.requests() && failed == 0 && firstToLastMillis < settings.budgetMillis()
                    && stubPeakThreads <= settings.maxLiveThreads()
                    && (!settings.h2c() || stubConnectionsPeak - 1 <= settings.maxConnections());
        }

        public String summary() {
            return String.format("%s: %,d requests (delay=%d ms): %,d OK, %,d failed; last request on the wire at %,d ms; "
                            + "first sent -> last answered %,d ms "
                            + "(budget %,d); stub threads: peak %d (sampled max live %d, bound %d); stub connections "
                            + "peak %,d (incl. 1 for /stats); in flight peak %,d; CPU ms: stub %,d, load generator %,d -> %s%s",
                    settings.h2c() ? "h2c" : "HTTP/1.1", settings.requests(), settings.delayMillis(), ok, failed,
                    lastSentMillis, firstToLastMillis, settings.budgetMillis(), stubPeakThreads, stubMaxLiveThreadsSampled,
                    settings.maxLiveThreads(), stubConnectionsPeak, stubInFlightPeak, stubCpuMillis, loadCpuMillis, passed() ? "PASS" : "FAIL",
                    firstFailure == null ? "" : " (first failure: " + firstFailure + ")");
        }
    }

    private StubCapacity() {
    }

    public static Report run(Settings settings) throws Exception {
        return run(settings, 1).get(0);
    }

    /**
     * Runs {@code rounds} bursts one after the other against the same stub process and load client;
     * round 1 meets a cold JVM on both sides, later rounds a warm one.
     */
    public static List<Report> run(Settings settings, int rounds) throws Exception {
        checkOpenFiles(settings);
        try (StubProcess stub = StubProcess.start(settings.stubJar(), List.of("-Xmx2g"), stubArgs(settings))) {
            HttpClient probe = new HttpClient();
            probe.start();
            try {
                List<Report> reports = new ArrayList<>();
                for (int round = 1; round <= rounds; round++) {
                    reports.add(round(settings, stub, probe));
                    System.out.println("round " + round + " of " + rounds + ": " + reports.get(round - 1).summary());
                    awaitConnectionsClosed(probe, stub.uri());
                    probe.POST(stub.uri().resolve("/stats/reset")).send();
                }
                return reports;
            } finally {
                probe.stop();
            }
        }
    }

    private static List<String> stubArgs(Settings settings) {
        List<String> args = new ArrayList<>(settings.stubArgs());
        if (settings.h2c()) {
            args.add("--h2c");
        }
        return args;
    }

    /** One burst; every round opens all of its connections anew. */
    private static Report round(Settings settings, StubProcess stub, HttpClient probe) throws Exception {
        URI target = stub.uri().resolve("/stub?delay=" + settings.delayMillis());
        long timeoutMillis = settings.delayMillis() + 60_000;
        long stubCpuBefore = stub.cpuMillis();
        long loadCpuBefore = ownCpuMillis();
        AtomicLong maxLive = new AtomicLong();
        Thread sampler = new Thread(() -> sample(probe, stub.uri(), maxLive), "stats-sampler");
        sampler.setDaemon(true);
        sampler.start();
        Http1Burst.Outcome outcome;
        try {
            outcome = settings.h2c()
                    ? h2cBurst(settings, target, timeoutMillis)
                    : new Http1Burst(target).run(settings.requests(), timeoutMillis);
        } finally {
            sampler.interrupt();
            sampler.join(5_000);
        }
        Map<String, Long> stats = stats(probe, stub.uri());
        return new Report(settings, outcome.ok(), outcome.failed(), outcome.firstFailure(),
                (outcome.lastSentNanos() - outcome.firstSentNanos()) / 1_000_000,
                (outcome.lastAnsweredNanos() - outcome.firstSentNanos()) / 1_000_000, stats.get("peakThreads"),
                Math.max(maxLive.get(), stats.get("liveThreads")), stats.get("connectionsPeak"),
                stats.get("inFlightPeak"), stub.cpuMillis() - stubCpuBefore, ownCpuMillis() - loadCpuBefore);
    }

    /** Streams multiplexed by Jetty's HTTP/2 client over at most {@code maxConnections} connections. */
    private static Http1Burst.Outcome h2cBurst(Settings settings, URI target, long timeoutMillis) throws Exception {
        ClientConnector connector = new ClientConnector();
        connector.setConnectTimeout(Duration.ofSeconds(20));
        HttpClient client = new HttpClient(new HttpClientTransportOverHTTP2(new HTTP2Client(connector)));
        client.setMaxConnectionsPerDestination(settings.maxConnections());
        client.setMaxRequestsQueuedPerDestination(settings.requests() * 2);
        client.start();
        try {
            int n = settings.requests();
            CountDownLatch done = new CountDownLatch(n);
            AtomicInteger ok = new AtomicInteger();
            AtomicInteger failed = new AtomicInteger();
            AtomicReference<String> firstFailure = new AtomicReference<>();
            AtomicLong lastAnswered = new AtomicLong();
            AtomicLong lastSent = new AtomicLong();
            long first = System.nanoTime();
            for (int i = 0; i < n; i++) {
                client.newRequest(target).timeout(timeoutMillis, TimeUnit.MILLISECONDS)
                        .onRequestSuccess(r -> lastSent.accumulateAndGet(System.nanoTime(), Math::max))
                        .send(result -> {
                            lastAnswered.accumulateAndGet(System.nanoTime(), Math::max);
                            if (result.isSucceeded() && result.getResponse().getStatus() == 200) {
                                ok.incrementAndGet();
                            } else {
                                failed.incrementAndGet();
                                firstFailure.compareAndSet(null, result.getFailure() != null
                                        ? result.getFailure().toString()
                                        : "status " + result.getResponse().getStatus());
                            }
                            done.countDown();
                        });
            }
            if (!done.await(timeoutMillis + 30_000, TimeUnit.MILLISECONDS)) {
                failed.addAndGet((int) done.getCount());
                firstFailure.compareAndSet(null, done.getCount() + " requests never ended");
            }
            return new Http1Burst.Outcome(ok.get(), failed.get(), firstFailure.get(), first, lastSent.get(),
                    lastAnswered.get());
        } finally {
            client.stop();
        }
    }

    /** Waits (bounded) until the stub has closed the last round's connections, so rounds do not overlap. */
    private static void awaitConnectionsClosed(HttpClient probe, URI stub) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (stats(probe, stub).get("connections") > 1 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
    }

    private static long ownCpuMillis() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime() / 1_000_000;
    }

    private static void sample(HttpClient probe, URI stub, AtomicLong maxLive) {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                maxLive.accumulateAndGet(stats(probe, stub).get("liveThreads"), Math::max);
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                System.err.println("stats sample failed: " + e);
            }
        }
    }

    private static final Pattern FIELD = Pattern.compile("\"(\\w+)\":(\\d+)");

    static Map<String, Long> stats(HttpClient probe, URI stub) throws Exception {
        ContentResponse response = probe.newRequest(stub.resolve("/stats")).timeout(10, TimeUnit.SECONDS).send();
        Map<String, Long> fields = new ConcurrentHashMap<>();
        Matcher m = FIELD.matcher(response.getContentAsString());
        while (m.find()) {
            fields.put(m.group(1), Long.parseLong(m.group(2)));
        }
        return fields;
    }

    /** The load generator holds one socket per connection; say plainly when the OS will not allow that. */
    private static void checkOpenFiles(Settings settings) {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean os) {
            long need = settings.maxConnections() + 200L;
            long have = os.getMaxFileDescriptorCount();
            if (have < need) {
                throw new IllegalStateException("this run opens up to " + settings.maxConnections()
                        + " connections but the open-file limit is " + have + "; raise it (ulimit -n " + need
                        + " or more) or lower --requests / --max-connections");
            }
        }
    }

    public static void main(String[] args) throws Exception {
        boolean h2c = false;
        int requests = 10_000;
        Integer maxConnections = null;
        long delay = 5_000;
        long budget = 8_000;
        int maxThreads = 32;
        int rounds = 1;
        Path jar = StubProcess.DEFAULT_JAR;
        List<String> stubArgs = new ArrayList<>();
        String usage = "--h2c --requests N --max-connections N --delay MS --budget MS --max-live-threads N --rounds N "
                + "--stub-jar PATH --stub-arg ARG --help --version";
        CommandLine line = new CommandLine("stub-capacity", usage, args);
        while (line.next()) {
            switch (line.option()) {
                case "--h2c" -> h2c = true;
                case "--requests" -> requests = line.intValue();
                case "--max-connections" -> maxConnections = line.intValue();
                case "--delay" -> delay = line.longValue();
                case "--budget" -> budget = line.longValue();
                case "--max-live-threads" -> maxThreads = line.intValue();
                case "--stub-jar" -> jar = line.path();
                case "--rounds" -> rounds = line.intValue();
                case "--stub-arg" -> stubArgs.add(line.anyValue());
                default -> line.unknown();
            }
        }
        int connections = maxConnections != null ? maxConnections : h2c ? 200 : requests;
        Settings settings = new Settings(h2c, requests, connections, delay, budget, maxThreads, jar, stubArgs);
        System.out.println("machine: " + Runtime.getRuntime().availableProcessors() + " cores, "
                + ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                        .getTotalMemorySize() / (1L << 30) + " GiB, JDK " + Runtime.version());
        List<Report> reports = run(settings, rounds);
        Report last = reports.get(reports.size() - 1);
        System.out.println("result (last round): " + last.summary());
        System.exit(last.passed() ? 0 : 1);
    }
}
