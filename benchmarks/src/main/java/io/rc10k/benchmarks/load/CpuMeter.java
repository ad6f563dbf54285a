package io.rc10k.benchmarks.load;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * CPU used over a stretch of an experiment: by the server, by all of the experiment's own processes (the
 * server, the partners, the load generator), and by the whole machine, whoever used it. Every process
 * shares the cores, so the three together say whether a rate is sustainable and whether a neighbour
 * was busy at the same time.
 *
 * <pre>{@code
 * CpuMeter meter = CpuMeter.start(server.pid(), partnerPids);
 * // ... the load ...
 * CpuMeter.Use use = meter.stop();   // NaN where there is no /proc
 * }</pre>
 *
 * Process times come from {@link ProcessHandle} (user + system), the machine's from {@code /proc/stat}.
 */
public final class CpuMeter {
    private final long serverPid;
    private final List<Long> otherPids;
    private final long begunNanos;
    private final long serverStart;
    private final long othersStart;
    private final double[] machineStart;

    /**
     * @param serverPercentOfCore       the server's CPU in percent of one core
     * @param processesPercentOfMachine the experiment's processes, in percent of all cores
     * @param machineBusyPercent        the whole machine, in percent of all cores
     */
    public record Use(double serverPercentOfCore, double processesPercentOfMachine, double machineBusyPercent) {
        static final Use UNKNOWN = new Use(Double.NaN, Double.NaN, Double.NaN);
    }

    private CpuMeter(long serverPid, List<Long> otherPids) {
        this.serverPid = serverPid;
        this.otherPids = List.copyOf(otherPids);
        this.begunNanos = System.nanoTime();
        this.serverStart = processMillis(serverPid);
        this.othersStart = othersMillis();
        this.machineStart = machine();
    }

    /** Starts measuring; {@code otherPids} are the experiment's processes besides the server and this JVM. */
    public static CpuMeter start(long serverPid, List<Long> otherPids) {
        return new CpuMeter(serverPid, otherPids);
    }

    public Use stop() {
        double wallMillis = (System.nanoTime() - begunNanos) / 1e6;
        double server = processMillis(serverPid) - serverStart;
        double others = othersMillis() - othersStart;
        double[] machine = machine();
        int cores = Runtime.getRuntime().availableProcessors();
        return new Use(100 * server / wallMillis, 100 * (server + others) / wallMillis / cores,
                100 * (machine[0] - machineStart[0]) / (machine[1] - machineStart[1]));
    }

    private long othersMillis() {
        long millis = processMillis(ProcessHandle.current().pid());
        for (long pid : otherPids) {
            millis += processMillis(pid);
        }
        return millis;
    }

    /** CPU time (user + system) a process has used so far, in ms; 0 where the OS does not say. */
    private static long processMillis(long pid) {
        return ProcessHandle.of(pid).flatMap(h -> h.info().totalCpuDuration()).map(Duration::toMillis).orElse(0L);
    }

    /** {busy, total} clock ticks since boot, over all cores; NaNs where there is no {@code /proc/stat}. */
    private static double[] machine() {
        try {
            String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            double total = 0;
            for (int i = 1; i < fields.length; i++) {
                total += Double.parseDouble(fields[i]);
            }
            double idle = Double.parseDouble(fields[4]) + Double.parseDouble(fields[5]); // idle + iowait
            return new double[] {total - idle, total};
        } catch (Exception e) {
            return new double[] {Double.NaN, Double.NaN};
        }
    }
}
