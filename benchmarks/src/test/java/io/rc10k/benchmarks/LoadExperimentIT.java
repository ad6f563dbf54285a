package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.load.LoadExperiment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The quick variant of the overload experiment (docs/results/overload.md), so its command never
 * rots: 3x of a 20-request admission limit for 3 s. Checks counts and statuses the experiment
 * itself checks: admitted requests answered, the excess shed with 503, back to normal after.
 */
class LoadExperimentIT {
    @Test
    void threeTimesWhatTheServerAdmitsIsShedAndTheServerRecovers() throws Exception {
        Path stubs = Path.of("..", "partner-stubs", "target", "partner-stubs.jar");
        Path mashup = Path.of("..", "mashup-server", "target", "mashup-server.jar");
        assertTrue(Files.isRegularFile(stubs) && Files.isRegularFile(mashup), "package the modules first");
        System.setProperty("rc10k.stubs.jar", stubs.toString());
        System.setProperty("rc10k.mashup.jar", mashup.toString());
        assertTrue(LoadExperiment.overload(20, 3, List.of(3.0)), "a check of the overload phase failed (see output)");
    }
}
