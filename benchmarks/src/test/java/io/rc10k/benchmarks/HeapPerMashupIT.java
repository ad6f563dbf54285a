package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.capacity.HeapPerMashup;
import io.rc10k.benchmarks.capacity.HeapReport;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The quick variant of the heap-per-mashup experiment, so its command never rots: the same code with
 * 200 mashups of C = 6 held at once. Bounds outcomes — all 200 held at the sample (the run waits on the
 * server's own counter), every answer a complete 200, a figure computed — never the heap figures.
 * The partners answer after 5 s, as in the full run: with 1 s and 2 s, on a shared 2-core box, the
 * first answers came back before (or while) the sample was taken, and the run rightly refused to
 * report a figure.
 */
class HeapPerMashupIT {
    @Test
    void twoHundredMashupsAreHeldAtOnceMeasuredAndAllAnsweredComplete() throws Exception {
        HeapPerMashup.Settings settings = new HeapPerMashup.Settings(200, 6, 5_000, 10_000, "async", 200, 50,
                QuickLaunch.get());
        HeapReport report = HeapPerMashup.run(settings);
        String table = report.table();
        assertTrue(report.measured(), table);
        assertEquals(200, report.inboundAtSample(), table);
        assertEquals(1_200, report.outboundAtSample(), table);
        assertEquals(Map.of("200", 200), report.answers(), table);
        assertTrue(report.passed(), table);
        assertTrue(Double.isFinite(report.bytesPerMashup()) && report.idle().liveBytes() > 0, table);
    }
}
