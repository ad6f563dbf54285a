package io.rc10k.benchmarks.load;

import io.rc10k.harness.Prometheus;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The progress line of one phase of a chaos soak: requests sent and answered, the answers by outcome and
 * how many came after the deadline, the server's inbound in flight and heap, and the CPU since the last
 * line — the server's, the soak's processes' and the whole machine's, so that a late answer can be set
 * beside a busy neighbour.
 *
 * <pre>{@code
 * SoakProgress progress = new SoakProgress("async soak", load, tally, metrics, server.pid(), partnerPids);
 * scheduler.scheduleAtFixedRate(progress, 10, 10, TimeUnit.SECONDS);
 * }</pre>
 *
 * Runs on the scheduler's thread and once more on the caller's at the end: {@link #run()} is synchronized.
 */
final class SoakProgress implements Runnable {
    private final String label;
    private final OpenModelLoad load;
    private final AnswerTally tally;
    private final ServerMetrics metrics;
    private final long serverPid;
    private final List<Long> partnerPids;
    private final long begunNanos = System.nanoTime();
    private CpuMeter window;

    SoakProgress(String label, OpenModelLoad load, AnswerTally tally, ServerMetrics metrics, long serverPid,
            List<Long> partnerPids) {
        this.label = label;
        this.load = load;
        this.tally = tally;
        this.metrics = metrics;
        this.serverPid = serverPid;
        this.partnerPids = List.copyOf(partnerPids);
        this.window = CpuMeter.start(serverPid, partnerPids);
    }

    @Override
    public synchronized void run() {
        CpuMeter.Use cpu = window.stop();
        window = CpuMeter.start(serverPid, partnerPids);
        String server;
        try {
            Prometheus p = metrics.scrape();
            server = String.format(Locale.ROOT, "inbound in flight %.0f, heap used %.1f MiB", ServerMetrics.inbound(p),
                    ServerMetrics.heapUsed(p) / ModeResult.MIB);
        } catch (Exception e) {
            server = "no scrape: " + e;
        }
        AnswerTally.Counts counts = tally.counts();
        System.out.printf(Locale.ROOT, "chaos-soak %s %4d s: sent %,d, answered %,d | %s | %s | CPU: server %.0f %% of a "
                + "core, soak %.0f %%, machine %.0f %%%n", label, Duration.ofNanos(System.nanoTime() - begunNanos)
                .toSeconds(), load.sent(), counts.answered(), counts.line(), server, cpu.serverPercentOfCore(),
                cpu.processesPercentOfMachine(), cpu.machineBusyPercent());
    }
}
