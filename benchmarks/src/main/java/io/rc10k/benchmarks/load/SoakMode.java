package io.rc10k.benchmarks.load;

import io.rc10k.harness.Prometheus;
import io.rc10k.harness.ServerProcess;
import java.net.URI;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.HttpClient;

/**
 * One mode of a {@link ChaosSoak}, against a mashup server of its own: a warm-up, a full GC, the soak at
 * a fixed rate with a progress line every {@value #PROGRESS_SECONDS} s, the drain, a full GC. Then the idle
 * window — the partner connections must all close by the broker's idle timeout — runs on a thread of its
 * own, so that it overlaps the next mode; the server stops after it.
 *
 * <p>The server runs on this JVM's {@code java}, with {@code -Xmx512m}, the access log off and a safepoint log
 * ({@link PauseLog}); its {@code /metrics} is read on its admin port.</p>
 */
final class SoakMode {
    private static final long PROGRESS_SECONDS = 10;
    private static final long POLL_MILLIS = 20;
    /** How long the drain is watched after the last send, past its bound, to say when a late request ended. */
    private static final long DRAIN_WATCH_MILLIS = 30_000;
    /** The client's bound on one request, past the deadline: a request still unanswered then ends failed. */
    private static final long CLIENT_TIMEOUT_PAST_DEADLINE_MILLIS = 10_000;

    private final String mode;
    private final ChaosSoak.Settings settings;
    private final Path definitions;
    private final List<Long> partnerPids;
    private final HttpClient client;

    SoakMode(String mode, ChaosSoak.Settings settings, Path definitions, List<Long> partnerPids, HttpClient client) {
        this.mode = mode;
        this.settings = settings;
        this.definitions = definitions;
        this.partnerPids = List.copyOf(partnerPids);
        this.client = client;
    }

    /** Runs the mode up to its last full GC; the result completes after the idle window. */
    CompletableFuture<ModeResult> run() throws Exception {
        int adminPort = ServerProcess.freePort();
        PauseLog pauses = PauseLog.create(mode);
        MashupProcess server = MashupProcess.start(settings.mashupJar(), List.of("-Xmx512m", pauses.jvmArg()), List.of(
                "--config", definitions.toString(), "--mode", mode, "--admin-port", Integer.toString(adminPort)));
        try {
            URI base = server.uri();
            ServerMetrics metrics = new ServerMetrics(client,
                    URI.create(base.getScheme() + "://" + base.getHost() + ":" + adminPort + "/metrics"));
            URI target = base.resolve("/mashup/" + ChaosPartners.MASHUP);
            ModeResult.Phase warmUp = phase("warm-up", settings.warmUpSeconds(), target, metrics, server, false);
            Prometheus start = metrics.afterFullGc(server);
            CpuMeter meter = CpuMeter.start(server.pid(), partnerPids);
            Instant soakBegun = Instant.now();
            ModeResult.Phase soak = phase("soak", settings.secondsPerMode(), target, metrics, server, true);
            Instant soakEnded = Instant.now();
            CpuMeter.Use cpu = meter.stop();
            long drainEnd = System.nanoTime();
            Prometheus end = metrics.afterFullGc(server);
            ModeResult.Heap heap = new ModeResult.Heap(ServerMetrics.liveHeap(start), ServerMetrics.liveHeap(end),
                    ServerMetrics.heapUsed(start), ServerMetrics.heapUsed(end));
            System.out.printf(Locale.ROOT, "chaos-soak %s: live heap after a full GC %.1f MiB at the start, %.1f MiB"
                    + " at the end (heap used %.1f / %.1f MiB); server CPU %.0f %% of a core; the soak's processes %.0f %%"
                    + " of the machine, which was %.0f %% busy%n", mode, heap.liveStart() / ModeResult.MIB,
                    heap.liveEnd() / ModeResult.MIB, heap.usedStart() / ModeResult.MIB, heap.usedEnd() / ModeResult.MIB,
                    cpu.serverPercentOfCore(), cpu.processesPercentOfMachine(), cpu.machineBusyPercent());
            System.out.println("chaos-soak " + mode + ": the server's longest safepoint pauses in the soak: "
                    + pauses.longest(3, soakBegun, soakEnded) + "; all of them in " + pauses.file());
            Map<String, Long> counts = ServerMetrics.growth(start, end, "mashup_requests_total");
            counts.putAll(ServerMetrics.growth(start, end, "mashup_partner_calls_total"));
            double openAtDrain = ServerMetrics.connectionsOpen(end);
            CompletableFuture<ModeResult> result = new CompletableFuture<>();
            Thread idle = new Thread(() -> {
                try {
                    ModeResult.Leaks leaks = idleWindow(metrics, drainEnd, openAtDrain);
                    result.complete(new ModeResult(mode, null, null, warmUp, soak, leaks, heap, counts, cpu));
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                } finally {
                    server.close();
                }
            }, "chaos-soak-idle-" + mode);
            idle.start();
            return result;
        } catch (Exception | Error e) {
            server.close();
            throw e;
        }
    }

    /** One phase: the load, then the drain; the server's count of the phase's requests from its scrapes. */
    private ModeResult.Phase phase(String name, long seconds, URI target, ServerMetrics metrics, MashupProcess server,
            boolean deadlineChecked) throws Exception {
        long deadline = settings.deadlineMillis();
        long count = Math.round(settings.rate() * seconds);
        System.out.printf(Locale.ROOT, "chaos-soak %s %s: %.0f requests/s for %d s (%,d requests), deadline %d ms%n",
                mode, name, settings.rate(), seconds, count, deadline);
        Prometheus before = metrics.scrape();
        AnswerTally tally = new AnswerTally(deadline, settings.slackMillis());
        OpenModelLoad load = new OpenModelLoad(client, i -> target, deadline + CLIENT_TIMEOUT_PAST_DEADLINE_MILLIS);
        SoakProgress progress = new SoakProgress(mode + " " + name, load, tally, metrics, server.pid(), partnerPids);
        ScheduledExecutorService every10s = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "chaos-soak-progress");
            t.setDaemon(true);
            return t;
        });
        every10s.scheduleAtFixedRate(progress, PROGRESS_SECONDS, PROGRESS_SECONDS, TimeUnit.SECONDS);
        long lastSent;
        try {
            lastSent = load.send(settings.rate(), count, tally);
        } finally {
            every10s.shutdownNow();
        }
        Drained drained = drain(metrics, load, lastSent);
        load.awaitEnds(TimeUnit.SECONDS.toNanos(1));
        long counted = Math.round(drained.last().sum("mashup_requests_total", "mashup=\"" + ChaosPartners.MASHUP + "\"")
                - before.sum("mashup_requests_total", "mashup=\"" + ChaosPartners.MASHUP + "\""));
        ModeResult.Phase phase = new ModeResult.Phase(name, settings.rate(), seconds, load.sent(), load.outstanding(),
                load.duplicates(), counted, tally.counts(), drained.drain(), deadlineChecked);
        progress.run();
        System.out.printf(Locale.ROOT, "chaos-soak %s %s: in flight 0 %d ms after the last send (partner exchanges: "
                + "%d ms); the generator sent at most %.1f ms late; the composites' own elapsedMillis at most %d%n",
                mode, name, phase.drain().inboundZeroMillis(), phase.drain().outboundZeroMillis(),
                phase.counts().maxLateSendMicros() / 1000.0, phase.counts().maxServerElapsedMillis());
        phase.counts().samples().forEach(sample -> System.out.println("chaos-soak " + mode + " " + name + ": " + sample));
        return phase;
    }

    private record Drained(ModeResult.Drain drain, Prometheus last) {
    }

    /**
     * Polls {@code /metrics} from the last send until nothing is in flight, inbound or outbound, and the client
     * has every end: when each count last became 0, and the counts at the bound (the deadline + the scrape
     * margin). A scrape's time is when it returned, so its own duration counts against the server.
     */
    private Drained drain(ServerMetrics metrics, OpenModelLoad load, long lastSent) throws Exception {
        long deadline = settings.deadlineMillis();
        long bound = lastSent + TimeUnit.MILLISECONDS.toNanos(deadline + settings.slackMillis()
                + ModeResult.SCRAPE_MARGIN_MILLIS);
        long limit = lastSent + TimeUnit.MILLISECONDS.toNanos(deadline + DRAIN_WATCH_MILLIS);
        long inboundZero = -1;
        long outboundZero = -1;
        double hungAtBound = Double.NaN;
        double outboundAtBound = Double.NaN;
        while (true) {
            Prometheus p = metrics.scrape();
            long now = System.nanoTime();
            double inbound = ServerMetrics.inbound(p);
            double outbound = ServerMetrics.outbound(p);
            inboundZero = inbound != 0 ? -1 : inboundZero >= 0 ? inboundZero : (now - lastSent) / 1_000_000;
            outboundZero = outbound != 0 ? -1 : outboundZero >= 0 ? outboundZero : (now - lastSent) / 1_000_000;
            if (now - bound >= 0 && Double.isNaN(hungAtBound)) {
                hungAtBound = inbound;
                outboundAtBound = outbound;
            }
            boolean done = inbound == 0 && outbound == 0 && load.outstanding() == 0;
            if (done || now - limit >= 0) {
                return new Drained(new ModeResult.Drain(deadline + settings.slackMillis(), inboundZero, outboundZero,
                        Double.isNaN(hungAtBound) ? 0 : hungAtBound, Double.isNaN(outboundAtBound) ? 0 : outboundAtBound),
                        p);
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    /** Watches the partner connections close, for at most the idle window from the drain. */
    private ModeResult.Leaks idleWindow(ServerMetrics metrics, long drainEnd, double openAtDrain) throws Exception {
        long limit = drainEnd + TimeUnit.MILLISECONDS.toNanos(ModeResult.IDLE_WINDOW_MILLIS);
        while (true) {
            Prometheus p = metrics.scrape();
            long now = System.nanoTime();
            double open = ServerMetrics.connectionsOpen(p);
            double outbound = ServerMetrics.outbound(p);
            if (open == 0 && outbound == 0) {
                long after = (now - drainEnd) / 1_000_000;
                System.out.printf(Locale.ROOT, "chaos-soak %s: the %.0f partner connections open at the drain were all"
                        + " closed %.1f s after it%n", mode, openAtDrain, after / 1000.0);
                return new ModeResult.Leaks(openAtDrain, after, 0, 0);
            }
            if (now - limit >= 0) {
                System.out.printf(Locale.ROOT, "chaos-soak %s: %.0f partner connections still open, %.0f exchanges in "
                        + "flight, %d ms after the drain: %s%n", mode, open, outbound, ModeResult.IDLE_WINDOW_MILLIS,
                        p.series().entrySet().stream().filter(e -> e.getKey().startsWith("mashup_outbound_connections"))
                                .map(e -> e.getKey() + " " + e.getValue().longValue()).sorted().toList());
                return new ModeResult.Leaks(openAtDrain, -1, open, outbound);
            }
            Thread.sleep(250);
        }
    }
}
