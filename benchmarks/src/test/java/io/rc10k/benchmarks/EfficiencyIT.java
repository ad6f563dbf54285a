package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.efficiency.Efficiency;
import io.rc10k.benchmarks.efficiency.Load;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The quick variant of the efficiency experiment, so its command never rots: the same code with
 * three server processes and a tiny load (C = 1 and 6, async and sync, a second per window). Bounds
 * outcomes — every request answered, CPU seen, an efficiency computed — never the figures themselves.
 */
class EfficiencyIT {
    @Test
    void everyMashupAndHelloIsAnsweredAndEachModeGetsAnEfficiency() throws Exception {
        Efficiency.Settings settings = new Efficiency.Settings(List.of(1, 6), List.of("async", "sync"),
                new Load(4, 500, 1_000), QuickLaunch.get(), false, false);
        Efficiency.Report report = Efficiency.run(settings);
        String table = report.table();
        assertTrue(report.passed(), table);
        assertEquals(2, report.hello().size(), table);
        assertEquals(4, report.mashups().size(), table);
        for (Efficiency.Window mashup : report.mashups()) {
            double efficiency = report.efficiency(mashup);
            assertTrue(efficiency > 0 && Double.isFinite(efficiency), table);
            assertTrue(mashup.stubCpuMillis() > 0, "the stubs answered the partner calls: " + table);
        }
    }
}
