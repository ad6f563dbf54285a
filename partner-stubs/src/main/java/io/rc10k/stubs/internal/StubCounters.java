package io.rc10k.stubs.internal;

import io.rc10k.stubs.StubStats;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.io.Connection;

/**
 * Counts requests and connections of one stub process. Thread-safe; every method is lock-free.
 * Registered on each connector as a {@link Connection.Listener}.
 */
public final class StubCounters implements Connection.Listener {
    private final LongAdder served = new LongAdder();
    private final LongAdder abandoned = new LongAdder();
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicLong inFlightPeak = new AtomicLong();
    private final AtomicLong connections = new AtomicLong();
    private final AtomicLong connectionsPeak = new AtomicLong();
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    public void requestBegun() {
        raisePeak(inFlightPeak, inFlight.incrementAndGet());
    }

    /**
     * Counts the request served before it leaves the in-flight gauge, and {@link #snapshot()} reads
     * the gauge before the count: a snapshot that shows nothing in flight then shows every ended
     * request served. In the other order a caller waiting for {@code inFlight == 0} could read a
     * served count one short.
     */
    public void requestEnded() {
        served.increment();
        inFlight.decrementAndGet();
    }

    /**
     * A request its client gave up before the answer (a reset stream, a connection found closed). Called
     * before {@link #requestEnded()}, so a snapshot with nothing in flight shows it counted.
     */
    public void requestAbandoned() {
        abandoned.increment();
    }

    @Override
    public void onOpened(Connection connection) {
        raisePeak(connectionsPeak, connections.incrementAndGet());
    }

    @Override
    public void onClosed(Connection connection) {
        connections.decrementAndGet();
    }

    public StubStats snapshot() {
        long nowInFlight = inFlight.get(); // first: see requestEnded()
        return new StubStats(served.sum(), nowInFlight, inFlightPeak.get(), connections.get(),
                connectionsPeak.get(), threads.getThreadCount(), threads.getPeakThreadCount(), abandoned.sum());
    }

    /** Starts the peaks and the served count afresh; what is open or in flight now stays counted. */
    public void reset() {
        served.reset();
        abandoned.reset();
        inFlightPeak.set(inFlight.get());
        connectionsPeak.set(connections.get());
        threads.resetPeakThreadCount();
    }

    private static void raisePeak(AtomicLong peak, long now) {
        peak.accumulateAndGet(now, Math::max);
    }
}
