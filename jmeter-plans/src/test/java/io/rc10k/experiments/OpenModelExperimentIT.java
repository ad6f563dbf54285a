package io.rc10k.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quick variant of the open-model experiment (docs/results/open-model.md): the real plan and
 * C = 6 mashup (six calls of 5 s), two phases of 6 s at 10/s and 20/s, async and sync. Checks that
 * JMeter kept the schedule, every request got a 200, and the server held six outbound calls per
 * inbound request.
 */
class OpenModelExperimentIT {
    @TempDir
    Path out;

    @Test
    void twoShortPhasesAreStableAndHoldSixCallsPerRequest() throws Exception {
        int status = Experiments.run("open-model", "--root", System.getProperty("rc10k.root", "."),
                "--out", out.toString(), "--modes", "async,sync", "--inter-arrivals", "0.1,0.05",
                "--phase-seconds", "6");
        assertEquals(0, status, "every phase stable (see the output)");
        List<String> rows = Files.readAllLines(out.resolve("open-model.csv"));
        assertEquals(OpenModelExperiment.CSV_HEADER, rows.get(0));
        assertEquals(1 + 2 * 2, rows.size());
        for (String row : rows.subList(1, rows.size())) {
            String[] f = row.split(",");
            assertEquals("true", f[17], "stable: " + row);
            long sent = Long.parseLong(f[4]);
            // Phases are timed from JMeter's start line, a few ms before its first arrival: ±1 at a boundary.
            assertTrue(Math.abs(Math.round(6 / Double.parseDouble(f[2])) - sent) <= 1, "JMeter kept the schedule: " + row);
            double inbound = Double.parseDouble(f[13]);
            double outbound = Double.parseDouble(f[15]);
            assertTrue(outbound >= 5 * inbound && outbound <= 6 * inbound + 6, "six calls per request: " + row);
        }
        for (String file : List.of("open-model.md", "open-model-concurrency.svg", "open-model-throughput.svg")) {
            assertTrue(Files.size(out.resolve(file)) > 200, file + " written");
        }
    }
}
