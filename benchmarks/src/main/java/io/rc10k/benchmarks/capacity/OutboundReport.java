package io.rc10k.benchmarks.capacity;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.UnixOperatingSystemMXBean;
import io.rc10k.benchmarks.efficiency.KeepAliveLoad;
import io.rc10k.benchmarks.load.CpuMeter;
import io.rc10k.benchmarks.load.ServerMetrics;
import io.rc10k.harness.Prometheus;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What an {@link Outbound100k} run saw: the most held at once by the server's gauges, the sample taken
 * with all held, every answer, and the server's CPU.
 *
 * @param sample          the full GC with all N·C held; null when the server and the stubs never held them all
 * @param heldAfterMillis from the first connect to all held, -1 if never
 * @param stubsPeak       the stubs' own peaks of requests in flight, summed (each stub's peak, not one moment)
 * @param requests        the server's {@code mashup_requests_total} growth during the run, by series
 * @param calls           the server's {@code mashup_partner_calls_total} growth during the run, by series
 * @param serverCpuMillis the server's CPU (user + system) from the first connect to the last answer
 * @param stubsCpuMillis  the stub processes' CPU over the same time, summed
 */
public record OutboundReport(Outbound100k.Settings settings, String machine, long idleHeapBytes, HeapSample sample,
        long heldAfterMillis, Peaks peaks, long stubsPeak, KeepAliveLoad.Result answers, Map<String, Long> requests,
        Map<String, Long> calls, long serverCpuMillis, long stubsCpuMillis, long wallMillis, CpuMeter.Use use, String loadBefore,
        String loadAfter) {

    /**
     * The full GC taken the first time all N·C were held.
     *
     * @param inbound           what the server's inbound gauge said just before it
     * @param outbound          what its outbound gauge said just before it
     * @param atStubs           what the stubs held just before it
     * @param inboundAfter      what the server's gauge said after it: fewer means a request ended meanwhile
     * @param cpuMillis         the server's CPU during it (left out of the CPU per mashup)
     */
    public record HeapSample(long inbound, long outbound, long atStubs, long liveHeapBytes, long inboundAfter,
            long millis, long cpuMillis) {
        /** Nothing ended while the sample was taken, so the heap figure is all N's. */
        public boolean intact() {
            return inboundAfter >= inbound;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%,d in / %,d out at the server, %,d at the stubs; full GC %,d ms "
                    + "(%,d ms of CPU), live heap %.1f MiB, %,d in after", inbound, outbound, atStubs, millis, cpuMillis,
                    liveHeapBytes / 1048576.0, inboundAfter);
        }
    }

    /** The most the server's gauges showed at once over the run's polls. Not thread-safe. */
    public static final class Peaks {
        private long inbound;
        private long outbound;
        private long connections;
        private long liveThreads;
        private long jvmPeakThreads;

        void see(Prometheus p) {
            inbound = Math.max(inbound, (long) ServerMetrics.inbound(p));
            outbound = Math.max(outbound, (long) ServerMetrics.outbound(p));
            connections = Math.max(connections, (long) ServerMetrics.connectionsOpen(p));
            liveThreads = Math.max(liveThreads, (long) p.get("jvm_threads_live_threads"));
            jvmPeakThreads = Math.max(jvmPeakThreads, (long) p.get("jvm_threads_peak_threads"));
        }

        public long inbound() {
            return inbound;
        }

        public long outbound() {
            return outbound;
        }

        public long liveThreads() {
            return liveThreads;
        }
    }

    /** All N·C held at once (the gauge and the stubs agreeing) with the sample intact, and every answer complete. */
    public boolean passed() {
        return sample != null && sample.intact() && answers.failed() == 0 && answers.ok() >= settings.inbound();
    }

    /** The live heap the sample added over idle, per request in flight at it. */
    public double heapBytesPerMashup() {
        return sample == null ? Double.NaN : (double) (sample.liveHeapBytes() - idleHeapBytes) / sample.inbound();
    }

    /** The server's CPU over the run, the sample's full GC left out, per mashup it answered. */
    public double cpuMicrosPerMashup() {
        long gc = sample == null ? 0 : sample.cpuMillis();
        long mashups = OutboundRun.sum(requests);
        return mashups == 0 ? Double.NaN : 1000.0 * (serverCpuMillis - gc) / mashups;
    }

    public String table() {
        StringBuilder out = new StringBuilder();
        out.append("| N × C | partners | most held at once, in / out (/metrics) | at the stubs | all held after "
                + "| live threads (most) | heap per in-flight mashup | server CPU per mashup | answers |\n"
                + "|---|---|---|---|---|---|---|---|---|\n");
        out.append(String.format(Locale.ROOT, "| %,d × %d | %d × h2c, %d streams/conn., %,.0f conn. (most) | "
                        + "%,d / %,d | %s | %s | %,d (JVM peak %,d) | %s | %,.0f µs | %,d complete, %,d not |%n",
                settings.inbound(), settings.calls(), settings.partners(), settings.streams(),
                (double) peaks.connections, peaks.inbound, peaks.outbound,
                sample == null ? "—" : String.format(Locale.ROOT, "%,d", sample.atStubs()),
                heldAfterMillis < 0 ? "never" : String.format(Locale.ROOT, "%,d ms", heldAfterMillis),
                peaks.liveThreads, peaks.jvmPeakThreads,
                sample == null ? "—" : String.format(Locale.ROOT, "%.1f KiB", heapBytesPerMashup() / 1024),
                cpuMicrosPerMashup(), answers.ok(), answers.failed()));
        if (sample != null) {
            out.append(String.format(Locale.ROOT, "heap: idle %.1f MiB, with all held %.1f MiB (%s)%n",
                    idleHeapBytes / 1048576.0, sample.liveHeapBytes() / 1048576.0, sample.intact()
                            ? "nothing ended during the full GC" : "NOT intact: requests ended during the full GC"));
        } else {
            out.append(String.format(Locale.ROOT, "NOT all held: the server never held %,d / %,d with the stubs "
                    + "agreeing (a longer --delay-ms gives the load more time to arrive)%n", settings.inbound(),
                    settings.outbound()));
        }
        out.append(String.format(Locale.ROOT, "server CPU %,d ms over %,d ms (%,d ms of it the sample's full GC, left "
                        + "out) for %,d mashups; the stubs: %,d ms of CPU (%.0f µs per call), their peaks in flight summed "
                + "%,d%n", serverCpuMillis, wallMillis, sample == null ? 0 : sample.cpuMillis(), OutboundRun.sum(requests),
                stubsCpuMillis, 1000.0 * stubsCpuMillis / Math.max(1, OutboundRun.sum(calls)), stubsPeak));
        out.append(String.format(Locale.ROOT, "CPU during the run: server %.0f %% of a core; this run's processes %.0f "
                        + "%% of the machine, the machine %.0f %% busy; load average %s before, %s after%n",
                use.serverPercentOfCore(), use.processesPercentOfMachine(), use.machineBusyPercent(), loadBefore,
                loadAfter));
        out.append("the server's counts: ").append(counts(requests)).append("; ").append(counts(calls)).append('\n');
        if (answers.firstFailure() != null) {
            out.append("first failure: ").append(answers.firstFailure()).append('\n');
        }
        out.append("machine: ").append(machine).append('\n');
        return out.toString();
    }

    private static String counts(Map<String, Long> counts) {
        return counts.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
    }

    static String machine(Outbound100k.Settings settings) {
        long memory = ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
        long openFiles = ManagementFactory.getOperatingSystemMXBean()
                instanceof UnixOperatingSystemMXBean os ? os.getMaxFileDescriptorCount() : -1;
        return String.format(Locale.ROOT, "%d cores, %.1f GiB, open-file limit %d, JDK %s (every process)%s, server "
                        + "--max-threads %d; "
                        + "C = %d h2c calls of %,d ms over %d stub processes, deadline %,d ms, %d rounds, connections "
                        + "opened over %,d ms",
                Runtime.getRuntime().availableProcessors(), memory / (double) (1L << 30), openFiles, Runtime.version(),
                settings.jvmArgs().isEmpty() ? "" : ", server " + settings.jvmArgs(), settings.maxThreads(), settings.calls(),
                settings.delayMillis(), settings.partners(), settings.deadlineMillis(), settings.rounds(),
                settings.rampMillis());
    }
}
