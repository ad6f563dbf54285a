package io.rc10k.benchmarks.capacity;

import io.rc10k.benchmarks.efficiency.KeepAliveLoad;
import io.rc10k.benchmarks.load.CpuMeter;
import io.rc10k.benchmarks.load.MashupProcess;
import io.rc10k.benchmarks.load.ServerMetrics;
import io.rc10k.harness.Prometheus;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * One {@link Outbound100k} run against processes already started: a warm-up, the idle live heap, then the
 * N clients on a thread of their own while this one reads the server's {@code /metrics} every
 * {@value #POLL_MILLIS} ms — the peaks, a progress line every {@value #PROGRESS_MILLIS} ms — and, the first
 * time the server and the stubs hold all N·C calls, a full GC for the loaded live heap.
 */
final class OutboundRun implements Callable<OutboundReport> {
    private static final long POLL_MILLIS = 250;
    private static final long PROGRESS_MILLIS = 2_000;
    private static final int WARMUP_CONNECTIONS = 64;
    /** What the clients wait for the last answers past the deadline, before they count them missing. */
    private static final long DRAIN_SLACK_MILLIS = 10_000;

    private final Outbound100k.Settings settings;
    private final MashupProcess server;
    private final URI metricsUri;
    private final List<StubProcess> stubs;

    OutboundRun(Outbound100k.Settings settings, MashupProcess server, int adminPort, List<StubProcess> stubs) {
        this.settings = settings;
        this.server = server;
        this.metricsUri = URI.create("http://127.0.0.1:" + adminPort + "/metrics");
        this.stubs = List.copyOf(stubs);
    }

    @Override
    public OutboundReport call() throws Exception {
        QueuedThreadPool pool = new QueuedThreadPool(8, 2);
        pool.setName("outbound-probe");
        HttpClient probe = new HttpClient();
        probe.setExecutor(pool);
        probe.start();
        try {
            ServerMetrics metrics = new ServerMetrics(probe, metricsUri);
            String machine = OutboundReport.machine(settings);
            System.out.println("machine: " + machine);
            warmUp();
            awaitIdle(metrics);
            long idleHeap = (long) ServerMetrics.liveHeap(metrics.afterFullGc(server));
            System.out.printf(Locale.ROOT, "idle: live heap %.1f MiB%n", idleHeap / 1048576.0);
            return load(metrics, probe, machine, idleHeap);
        } finally {
            probe.stop();
        }
    }

    /** Zero-delay mashups on a few connections, so that the run meets compiled code on every side. */
    private void warmUp() throws IOException {
        if (settings.warmupMillis() == 0) {
            return;
        }
        KeepAliveLoad warm = new KeepAliveLoad(server.uri().resolve(OutboundDefinitions.PATH + "?delay=0"));
        KeepAliveLoad.Result result = warm.run(Math.min(WARMUP_CONNECTIONS, settings.inbound()), 0,
                settings.warmupMillis(), settings.deadlineMillis() + DRAIN_SLACK_MILLIS);
        System.out.printf(Locale.ROOT, "warm-up: %,d complete mashups (%.0f/s), %,d not%s%n", result.ok(),
                result.perSecond(), result.failed(), result.firstFailure() == null ? ""
                        : "; first: " + result.firstFailure());
        if (result.ok() == 0) {
            throw new IOException("no warm-up mashup was answered complete: " + result.firstFailure());
        }
    }

    private OutboundReport load(ServerMetrics metrics, HttpClient probe, String machine, long idleHeap)
            throws Exception {
        KeepAliveLoad clients = new KeepAliveLoad(server.uri().resolve(OutboundDefinitions.PATH + "?delay="
                + settings.delayMillis()));
        CompletableFuture<KeepAliveLoad.Result> answers = new CompletableFuture<>();
        Thread sender = new Thread(() -> {
            try {
                answers.complete(clients.run(settings.inbound(), settings.rampMillis(), settings.sendMillis(),
                        settings.deadlineMillis() + DRAIN_SLACK_MILLIS));
            } catch (Throwable e) {
                answers.completeExceptionally(e);
            }
        }, "outbound-clients");
        sender.setDaemon(true);
        Prometheus before = metrics.scrape();
        String loadBefore = loadAverage();
        CpuMeter meter = CpuMeter.start(server.pid(), stubs.stream().map(StubProcess::pid).toList());
        long cpuStart = cpuMillis(server.pid());
        long stubsCpuStart = stubsCpuMillis();
        long start = System.nanoTime();
        sender.start();
        OutboundReport.Peaks peaks = new OutboundReport.Peaks();
        OutboundReport.HeapSample sample = null;
        long heldAfterMillis = -1;
        long lastPrint = start;
        long cpuAtPrint = cpuStart;
        while (!answers.isDone()) {
            Prometheus now;
            try {
                now = metrics.scrape();
            } catch (Exception e) {
                // A starved server answers late; the next poll will tell.
                System.out.println("a /metrics poll failed: " + e);
                continue;
            }
            peaks.see(now);
            long inbound = (long) ServerMetrics.inbound(now);
            long outbound = (long) ServerMetrics.outbound(now);
            if (sample == null && inbound >= settings.inbound() && outbound >= settings.outbound()) {
                // The broker counts a call that waits for a connection as in flight; the stubs only what reached them.
                long atStubs = stubsInFlight(probe);
                if (atStubs >= settings.outbound()) {
                    heldAfterMillis = (System.nanoTime() - start) / 1_000_000;
                    sample = heapSample(metrics, inbound, outbound, atStubs);
                    System.out.printf(Locale.ROOT, "all held %,d ms after the first connect: %s%n", heldAfterMillis,
                            sample);
                }
            }
            long nanos = System.nanoTime();
            if (nanos - lastPrint >= PROGRESS_MILLIS * 1_000_000) {
                long cpu = cpuMillis(server.pid());
                System.out.printf(Locale.ROOT, "[%5.1f s] in flight %,d in / %,d out (peak %,d), %,.0f partner "
                                + "connections, %,.0f live threads, %,d answered, server %.0f %% of a core%n",
                        (nanos - start) / 1e9, inbound, outbound, peaks.outbound(), ServerMetrics.connectionsOpen(now),
                        now.get("jvm_threads_live_threads"), sum(ServerMetrics.growth(before, now,
                                "mashup_requests_total")), 100.0 * (cpu - cpuAtPrint) / ((nanos - lastPrint) / 1e6));
                lastPrint = nanos;
                cpuAtPrint = cpu;
            }
            try {
                // Quick polls until the sample, so that the moment all are held is not missed; then fewer scrapes.
                answers.get(sample == null ? POLL_MILLIS : PROGRESS_MILLIS / 2, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                // Still running: poll again.
            }
        }
        KeepAliveLoad.Result result = answers.get();
        long wallMillis = (System.nanoTime() - start) / 1_000_000;
        long serverCpu = cpuMillis(server.pid()) - cpuStart;
        long stubsCpu = stubsCpuMillis() - stubsCpuStart;
        CpuMeter.Use use = meter.stop();
        Prometheus after = lastScrape(metrics);
        peaks.see(after);
        long stubsPeak = 0;
        for (StubProcess stub : stubs) {
            stubsPeak += StubCapacity.stats(probe, stub.uri()).getOrDefault("inFlightPeak", 0L);
        }
        return new OutboundReport(settings, machine, idleHeap, sample, heldAfterMillis, peaks, stubsPeak, result,
                ServerMetrics.growth(before, after, "mashup_requests_total"),
                ServerMetrics.growth(before, after, "mashup_partner_calls_total"), serverCpu, stubsCpu, wallMillis,
                use, loadBefore, loadAverage());
    }

    /** A full GC with all held, its wall and CPU time (the run's CPU per mashup leaves it out), and what was held after. */
    private OutboundReport.HeapSample heapSample(ServerMetrics metrics, long inbound, long outbound, long atStubs)
            throws Exception {
        long cpu = cpuMillis(server.pid());
        long begun = System.nanoTime();
        Prometheus loaded = metrics.afterFullGc(server);
        return new OutboundReport.HeapSample(inbound, outbound, atStubs, (long) ServerMetrics.liveHeap(loaded),
                (long) ServerMetrics.inbound(loaded), (System.nanoTime() - begun) / 1_000_000,
                cpuMillis(server.pid()) - cpu);
    }

    private long stubsCpuMillis() {
        return stubs.stream().mapToLong(StubProcess::cpuMillis).sum();
    }

    private long stubsInFlight(HttpClient probe) throws Exception {
        long inFlight = 0;
        for (StubProcess stub : stubs) {
            inFlight += StubCapacity.stats(probe, stub.uri()).getOrDefault("inFlight", 0L);
        }
        return inFlight;
    }

    /**
     * The scrape after the run, once the server's in-flight gauges read 0: the server counts a request just
     * after writing its answer, so the last answer can reach the client before its count. Bounded at 30 s
     * (then the last scrape, counts and all, is what the report shows); a failed scrape is tried again, as a
     * starved server may answer one late.
     */
    private static Prometheus lastScrape(ServerMetrics metrics) throws Exception {
        return settled(metrics, "the run", false);
    }

    /** Waits, bounded, until the warm-up's mashups and calls have all ended in the server's own counts. */
    private static void awaitIdle(ServerMetrics metrics) throws Exception {
        settled(metrics, "the warm-up", true);
    }

    private static Prometheus settled(ServerMetrics metrics, String after, boolean mustSettle) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Prometheus now = null;
        for (int failures = 0; ; ) {
            try {
                now = metrics.scrape();
            } catch (Exception e) {
                if (++failures == 3) {
                    throw e;
                }
                System.out.println("a /metrics scrape after " + after + " failed: " + e + "; again");
                continue;
            }
            if (ServerMetrics.inbound(now) == 0 && ServerMetrics.outbound(now) == 0) {
                return now;
            }
            if (System.nanoTime() > end) {
                String held = "still in flight 30 s after " + after + ": inbound " + ServerMetrics.inbound(now)
                        + ", outbound " + ServerMetrics.outbound(now);
                if (mustSettle) {
                    throw new IllegalStateException(held);
                }
                System.out.println(held);
                return now;
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    static long sum(Map<String, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    /** CPU time (user + system) a process has used so far, in ms; 0 where the OS does not say. */
    private static long cpuMillis(long pid) {
        return ProcessHandle.of(pid).flatMap(h -> h.info().totalCpuDuration()).map(Duration::toMillis).orElse(0L);
    }

    /** The machine's load averages (1, 5, 15 minutes), or "?" where there is no {@code /proc/loadavg}. */
    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }
}
