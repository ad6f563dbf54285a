package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.efficiency.Efficiency;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The quick variant of the efficiency experiment, so its command never rots: the same code with
 * three server processes and a tiny load (C = 1 and 6, async and sync, a second per window). Bounds
 * outcomes — every request answered, CPU seen, an efficiency computed — never the figures themselves.
 */
class EfficiencyIT {
    private static final Path MASHUP_JAR = Path.of(System.getProperty("rc10k.mashup.jar",
            "../mashup-server/target/mashup-server.jar"));
    private static final Path STUB_JAR = Path.of(System.getProperty("rc10k.stubs.jar",
            "../partner-stubs/target/partner-stubs.jar"));
    private static final Path BENCHMARKS_JAR = Path.of(System.getProperty("rc10k.benchmarks.jar",
            "target/benchmarks.jar"));

    @Test
    void everyMashupAndHelloIsAnsweredAndEachModeGetsAnEfficiency() throws Exception {
        Efficiency.Settings settings = new Efficiency.Settings(List.of(1, 6), List.of("async", "sync"), 4, 500,
                1_000, MASHUP_JAR, STUB_JAR, BENCHMARKS_JAR,
                ProcessHandle.current().info().command().orElse("java"), List.of("-Xmx256m"), false, false);
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
