package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.capacity.OpenModelH2c;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quick variant of the open model over h2c without JMeter, so its command never rots: the experiment's
 * definitions with partners answering after 200 ms instead of 5 s, 50 arrivals per second for 2 s, no warm-up.
 * Bounds counts — every request sent answered a complete 200, none shed, the server's gauges seen holding
 * requests — never times.
 */
class OpenModelH2cIT {
    private static final Path MASHUP_JAR = Path.of(System.getProperty("rc10k.mashup.jar",
            "../mashup-server/target/mashup-server.jar"));
    private static final Path STUB_JAR = Path.of(System.getProperty("rc10k.stubs.jar",
            "../partner-stubs/target/partner-stubs.jar"));
    private static final Path CONFIG = Path.of("..", "jmeter-plans", "configs", "c6-h2c-2000.json");

    @Test
    void everyArrivalIsAnsweredCompleteAndNoneIsShed(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("c6-h2c-quick.json"),
                Files.readString(CONFIG).replace("delay=5000", "delay=200"));
        OpenModelH2c.Settings settings = new OpenModelH2c.Settings(50, 2, 0, 0, config, "/mashup/c6", 1_000, 64,
                5_300, 6_000, MASHUP_JAR, STUB_JAR);

        List<OpenModelH2c.Phase> phases = OpenModelH2c.run(settings);

        assertEquals(1, phases.size());
        OpenModelH2c.Phase phase = phases.get(0);
        assertEquals(100, phase.sent(), phase.line());
        assertEquals(100, phase.counts().complete(), phase.line());
        assertEquals(0, phase.errors(), phase.line());
        assertEquals(0, phase.counts().shed(), phase.line());
        assertTrue(phase.inboundPeak() >= 1 && phase.outboundPeak() >= 6, phase.line());
    }
}
