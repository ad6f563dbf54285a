package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.capacity.StubCapacity;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The quick variant of the capacity experiment, so its command never rots: the same code on a few
 * hundred requests. Bounds counts (threads, connections, answers), never times.
 */
class StubCapacityIT {
    /**
     * Every request must reach the stub before the first is answered for the in-flight peak to equal
     * the request count; on a cold load generator and stub sharing a busy machine that can take
     * seconds, so the delay leaves ample room (the test's length grows with it, its claims do not change).
     */
    private static final long DELAY_MILLIS = 10_000;
    private static final Path JAR = Path.of(System.getProperty("rc10k.stubs.jar",
            "../partner-stubs/target/partner-stubs.jar"));

    @Test
    void http11RequestsEachOnTheirOwnConnectionAllAnsweredOnFewThreads() throws Exception {
        StubCapacity.Report report = StubCapacity.run(new StubCapacity.Settings(false, 500, 500, DELAY_MILLIS,
                Long.MAX_VALUE, 32, JAR, List.of()));
        assertEquals(500, report.ok(), report.summary());
        assertEquals(0, report.failed(), report.summary());
        assertEquals(500, report.stubInFlightPeak(), report.summary());
        assertTrue(report.stubConnectionsPeak() >= 500, report.summary());
        assertTrue(report.stubPeakThreads() <= 32, report.summary());
    }

    @Test
    void h2cStreamsShareABoundedNumberOfConnections() throws Exception {
        StubCapacity.Report report = StubCapacity.run(new StubCapacity.Settings(true, 1_000, 4, DELAY_MILLIS,
                Long.MAX_VALUE, 32, JAR, List.of()));
        assertEquals(1_000, report.ok(), report.summary());
        assertEquals(1_000, report.stubInFlightPeak(), report.summary());
        assertTrue(report.stubConnectionsPeak() <= 4 + 1, report.summary());
        assertTrue(report.stubPeakThreads() <= 32, report.summary());
    }
}
