package io.rc10k.benchmarks.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.launch.Launch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quick variant of the tuning sweeps, so that the command never rots: one knob (the pool's maximum), two
 * values, one round of half-second windows without warm-up against two real servers and the partner stubs. Checks the shape —
 * a row per value with every column filled, every mashup answered, the table written — never the figures.
 */
class TuningIT {
    @Test
    void aKnobsTableHasARowPerValueWithItsColumnsAndIsWritten(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("tuning.md");
        Rig.Settings settings = new Rig.Settings(Launch.defaults(), 1, 0, 500);
        Tuning.Params params = new Tuning.Params(List.of(50.0), 50, List.of(), "512m", 0, 100, true,
                new ServerKnobs.Load(8, "h2c"), PartnerKnobs.StreamsLoad.DEFAULT);

        List<Table> tables = Tuning.run(settings, params, List.of("threads"), List.of("200", "16"), out, "# test\n\n");

        assertEquals(1, tables.size());
        Table table = tables.get(0);
        assertEquals(List.of("--max-threads", "mashups/s", "÷ baseline", "server CPU µs per answer", "÷ baseline",
                "failed"), table.columns(), table.markdown());
        assertEquals(2, table.rows().size(), table.markdown());
        assertEquals(List.of("200", "16"), table.rows().stream().map(r -> r.get(0)).toList(), table.markdown());
        for (List<String> row : table.rows()) {
            assertTrue(row.stream().noneMatch(String::isBlank), table.markdown());
            assertEquals("0", row.get(5), "every mashup answered 200 and complete: " + table.markdown());
            assertTrue(Double.parseDouble(row.get(1).replace(",", "")) > 0, table.markdown());
        }
        String written = Files.readString(out);
        assertTrue(written.startsWith("# test") && written.contains("## threads")
                && written.contains("| --max-threads | mashups/s |"), written);
    }
}
