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
    private static final Path JAR = Path.of(System.getProperty("rc10k.stubs.jar",
            "../partner-stubs/target/partner-stubs.jar"));

    @Test
    void http11RequestsEachOnTheirOwnConnectionAllAnsweredOnFewThreads() throws Exception {
        StubCapacity.Report report = StubCapacity.run(new StubCapacity.Settings(false, 500, 500, 1_000,
                Long.MAX_VALUE, 32, JAR, List.of()));
        assertEquals(500, report.ok(), report.summary());
        assertEquals(0, report.failed(), report.summary());
        assertEquals(500, report.stubInFlightPeak(), report.summary());
        assertTrue(report.stubConnectionsPeak() >= 500, report.summary());
        assertTrue(report.stubPeakThreads() <= 32, report.summary());
    }

    @Test
    void h2cStreamsShareABoundedNumberOfConnections() throws Exception {
        StubCapacity.Report report = StubCapacity.run(new StubCapacity.Settings(true, 1_000, 4, 1_000,
                Long.MAX_VALUE, 32, JAR, List.of()));
        assertEquals(1_000, report.ok(), report.summary());
        assertEquals(1_000, report.stubInFlightPeak(), report.summary());
        assertTrue(report.stubConnectionsPeak() <= 4 + 1, report.summary());
        assertTrue(report.stubPeakThreads() <= 32, report.summary());
    }
}
