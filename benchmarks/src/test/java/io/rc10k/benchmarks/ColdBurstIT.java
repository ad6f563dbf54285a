package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.capacity.ColdBurst;
import io.rc10k.benchmarks.capacity.ColdBurstReport;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The quick variant of the cold-burst command, so it never rots: the same code with bursts of 200
 * on a fresh server, twice. Bounds outcomes — every answer a complete 200, a table row per burst —
 * never the times.
 */
class ColdBurstIT {
    @Test
    void twoBurstsOfTwoHundredOnAFreshServerAreAllAnsweredComplete() throws Exception {
        ColdBurst.Settings settings = new ColdBurst.Settings(200, 2, "async", 64, false, true, 200,
                QuickLaunch.get());
        ColdBurstReport report = ColdBurst.run(settings);
        String table = report.table();
        assertEquals(2, report.rounds().size(), table);
        for (ColdBurstReport.Round round : report.rounds()) {
            assertEquals(Map.of("200", 200), round.answers(), table);
            assertEquals(200, round.ok(), table);
            assertTrue(round.liveThreads() > 0, table);
        }
        assertTrue(report.passed(), table);
        assertTrue(table.contains("| 1 (cold) |"), table);
        assertTrue(table.contains("\n| 2 |"), table);
    }
}
