package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.capacity.Outbound100k;
import io.rc10k.benchmarks.capacity.OutboundReport;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The quick variant of the 100,000-outbound experiment, so its command never rots: the same code with 100
 * kept-alive clients × C = 10 calls dealt to two stub processes, 1,000 calls held at once, one round.
 * Bounds counts — all 1,000 held by the server's gauge and at the stubs, every answer complete, the
 * server's own counts — never times or the heap and CPU figures. The partners answer after 5 s, so that a
 * busy box still puts all calls out before the first answers come back.
 */
class Outbound100kIT {
    private static final Path MASHUP_JAR = Path.of(System.getProperty("rc10k.mashup.jar",
            "../mashup-server/target/mashup-server.jar"));
    private static final Path STUB_JAR = Path.of(System.getProperty("rc10k.stubs.jar",
            "../partner-stubs/target/partner-stubs.jar"));

    @Test
    void aThousandCallsAreHeldAtOnceAndEveryAnswerIsComplete() throws Exception {
        Outbound100k.Settings settings = new Outbound100k.Settings(100, 10, 2, 128, 5_000, 10_000, 1, 0, 500, 64,
                List.of("-Xmx256m"), MASHUP_JAR, STUB_JAR);
        OutboundReport report = Outbound100k.run(settings);
        String table = report.table();
        assertNotNull(report.sample(), table);
        assertEquals(100, report.sample().inbound(), table);
        assertEquals(1_000, report.sample().outbound(), table);
        assertEquals(1_000, report.sample().atStubs(), table);
        assertEquals(1_000, report.peaks().outbound(), table);
        assertEquals(100, report.answers().ok(), table);
        assertEquals(0, report.answers().failed(), table);
        assertEquals(Map.of("mashup_requests_total{mashup=\"fan\",outcome=\"complete\"}", 100L), report.requests(),
                table);
        assertEquals(Map.of("mashup_partner_calls_total{outcome=\"ok\",partner=\"p1\"}", 500L,
                "mashup_partner_calls_total{outcome=\"ok\",partner=\"p2\"}", 500L), report.calls(), table);
        assertTrue(report.passed(), table);
    }
}
