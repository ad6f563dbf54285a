package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.fleet.RollingRestart;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quick variant of the rolling restart (docs/results/fleet.md): 2 instances behind HAProxy, 20
 * arrivals/s of a C = 6 mashup with 0.5 s calls; each instance in turn gets SIGTERM and is started again.
 * Every request is answered 200 complete, none refused, each instance exits 143; then a SIGKILL loses no
 * more than was in flight on the killed instance. Skipped, saying why, where HAProxy is not installed.
 */
class RollingRestartIT {
    @Test
    void aRollingRestartUnderLoadLosesNothingAndAKillLosesAtMostWhatWasInFlight(@TempDir Path dir) throws Exception {
        FleetPrerequisites.assumeMet();

        RollingRestart.Outcome outcome = RollingRestart.run(2, 20, 500, 2, dir.resolve("timeline.csv"));

        assertTrue(outcome.sent() > 0);
        assertEquals(outcome.sent(), outcome.complete(), "every request answered 200 complete: " + outcome);
        assertEquals(0, outcome.refused(), outcome.toString());
        assertEquals(List.of(143, 143), outcome.exits(), "each instance stopped gracefully");
        assertEquals(137, outcome.killExit());
        assertTrue(outcome.killLost() <= outcome.inFlightAtKill(), "lost at most what was in flight: " + outcome);
        assertTrue(Files.readAllLines(dir.resolve("timeline.csv")).size() > 3, "a timeline was written");
    }
}
