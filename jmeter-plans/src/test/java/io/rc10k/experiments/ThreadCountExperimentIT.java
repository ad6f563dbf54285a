package io.rc10k.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quick variant of the thread-count experiment (docs/results/thread-count.md), so that the plan,
 * the harness and its files never rot: the real jars and JMeter, 5 and 40 users, seconds per point.
 * Checks counts: every request answered, a row per point, sync holding more threads than async.
 */
class ThreadCountExperimentIT {
    @TempDir
    Path out;

    @Test
    void aSmallSweepWritesEveryFileAndSyncHoldsMoreThreadsThanAsync() throws Exception {
        List<String> modes = new ArrayList<>(List.of("sync", "async"));
        if (Lab.virtualThreadsAvailable()) {
            modes.add("virtual");
        }
        int status = Experiments.run("thread-count", "--root", System.getProperty("rc10k.root", "."),
                "--out", out.toString(), "--users", "5,40", "--modes", String.join(",", modes), "--pool", "16",
                "--rampup", "1", "--settle", "2", "--window", "4");
        List<String> rows = Files.readAllLines(out.resolve("thread-count.csv"));
        assertEquals(ThreadCountExperiment.CSV_HEADER, rows.get(0));
        assertEquals(1 + 2 * modes.size() + 2, rows.size(), "a row per mode and user count, and the pool sweep");
        for (String row : rows.subList(1, rows.size())) {
            assertEquals("0", row.split(",")[4], "no errors: " + row);
        }
        double syncThreads = Double.parseDouble(rows.get(2).split(",")[6]);
        double asyncThreads = Double.parseDouble(rows.get(4).split(",")[6]);
        assertTrue(syncThreads > asyncThreads + 40, "at 40 users sync holds a thread per request and per call: "
                + syncThreads + " vs async " + asyncThreads);
        for (String file : List.of("thread-count.md", "table2.md", "thread-count-threads.svg",
                "thread-count-throughput.svg", "thread-pool-cap.svg")) {
            assertTrue(Files.size(out.resolve(file)) > 200, file + " written");
        }
        assertTrue(Files.readString(out.resolve("table2.md")).contains("| async | 40 |"));
        // Exit 1 would name a failed check (e.g. a noisy machine); the files are the point here.
        assertTrue(status == 0 || status == 1, "exit status " + status);
    }
}
