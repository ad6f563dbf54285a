package io.rc10k.benchmarks.efficiency;

import io.rc10k.benchmarks.capacity.StubProcess;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.util.Locale;

/**
 * How every window of the CPU experiments is taken: warm-up windows until the server is steady,
 * then one measured window under {@link KeepAliveLoad}, the server's and the stubs' CPU read from
 * {@code /proc} around it. {@link Efficiency} and the peers comparison share it, so their figures
 * are taken the same way.
 *
 * <pre>
 * Measurement measurement = new Measurement(64, 15_000, 10_000);
 * Efficiency.Window w = measurement.measure(server, stubs, server.uri().resolve("/mashup/c6"), "mashup", "async", 6);
 * </pre>
 *
 * Not thread-safe: one window at a time, as the machine under test holds one load at a time.
 */
public final class Measurement {
    private static final long WARMUP_WINDOW_MILLIS = 2_000;
    private static final double STEADY_PERCENT = 5;

    private final int connections;
    private final long minWarmupMillis;
    private final long warmupMillis;
    private final long measureMillis;

    /**
     * @param connections   kept-alive connections of the load generator, one request in flight on each
     * @param warmupMillis  the longest warm-up before each measured window (it ends sooner once steady)
     * @param measureMillis the measured window
     */
    public Measurement(int connections, long warmupMillis, long measureMillis) {
        this(connections, 0, warmupMillis, measureMillis);
    }

    /**
     * @param minWarmupMillis the shortest warm-up: steady windows before it do not end the warm-up (a fresh
     *                        server's cost can hold still for two windows while its JIT is still compiling)
     */
    public Measurement(int connections, long minWarmupMillis, long warmupMillis, long measureMillis) {
        if (connections < 1) {
            throw new IllegalArgumentException("connections < 1: " + connections);
        }
        if (warmupMillis < 0 || measureMillis < 100 || minWarmupMillis < 0 || minWarmupMillis > warmupMillis) {
            throw new IllegalArgumentException("warm-up " + minWarmupMillis + " to " + warmupMillis + " ms, measure "
                    + measureMillis + " ms (accepted: warm-up at least 0 ms, its minimum at most its maximum, "
                    + "measure at least 100 ms)");
        }
        this.connections = connections;
        this.minWarmupMillis = minWarmupMillis;
        this.warmupMillis = warmupMillis;
        this.measureMillis = measureMillis;
    }

    /**
     * Warm-up until the server is steady, then the measured window against {@code target}; {@code stubs}
     * is null for a server that calls no partner.
     */
    public Efficiency.Window measure(ServerProcess server, StubProcess stubs, URI target, String label, String mode,
            int calls) throws IOException {
        KeepAliveLoad load = new KeepAliveLoad(target);
        String name = label + " " + mode + " C=" + (calls == 0 ? "—" : calls);
        long warmupStart = System.nanoTime();
        boolean steady = warmUp(server, load, name);
        long warmedMillis = (System.nanoTime() - warmupStart) / 1_000_000;
        long[] before = server.cpuMillis();
        long stubBefore = stubs == null ? 0 : stubs.cpuMillis();
        KeepAliveLoad.Result result = load.run(connections, measureMillis);
        long[] after = server.cpuMillis();
        long stubCpu = stubs == null ? 0 : stubs.cpuMillis() - stubBefore;
        Efficiency.Window window = new Efficiency.Window(label, mode, calls, result.ok(), result.failed(),
                result.firstFailure(), after[0] - before[0], after[1] - before[1], stubCpu, result.elapsedNanos(),
                warmedMillis, steady);
        System.out.printf(Locale.ROOT, "%s: %,d OK (%,.0f/s), %,d failed, server CPU %,d ms = %.1f µs per request "
                        + "(%.0f %% system)%n", name, window.requests(), window.perSecond(), window.failed(),
                window.cpuMillis(), window.cpuMicrosPerRequest(), window.systemPercent());
        return window;
    }

    /**
     * Runs warm-up windows of up to {@value #WARMUP_WINDOW_MILLIS} ms until two in a row cost the same CPU
     * per request within {@value #STEADY_PERCENT} % (once {@code minWarmupMillis} has passed), or
     * {@code warmupMillis} has passed. The JIT keeps
     * compiling for tens of seconds in a server of many classes; a fixed short warm-up would measure the
     * compiler. Returns whether it became steady.
     */
    private boolean warmUp(ServerProcess server, KeepAliveLoad load, String name) throws IOException {
        if (warmupMillis == 0) {
            return false;
        }
        long start = System.nanoTime();
        long end = start + warmupMillis * 1_000_000;
        long earliest = start + minWarmupMillis * 1_000_000;
        long window = Math.min(WARMUP_WINDOW_MILLIS, warmupMillis);
        double previous = Double.NaN;
        while (true) {
            long[] before = server.cpuMillis();
            KeepAliveLoad.Result warm = load.run(connections, window);
            long[] after = server.cpuMillis();
            double perRequest = (after[0] + after[1] - before[0] - before[1]) * 1000.0 / Math.max(1, warm.ok());
            if (warm.failed() > 0) {
                System.out.println("warm-up of " + name + ": " + warm.failed() + " failed (first: "
                        + warm.firstFailure() + ")");
            }
            if (Math.abs(perRequest - previous) <= previous * STEADY_PERCENT / 100 && System.nanoTime() >= earliest) {
                return true;
            }
            if (System.nanoTime() >= end) {
                System.out.printf(Locale.ROOT, "warm-up of %s: not steady after %,d ms (last windows %.1f and %.1f µs "
                        + "per request)%n", name, warmupMillis, previous, perRequest);
                return false;
            }
            previous = perRequest;
        }
    }
}
