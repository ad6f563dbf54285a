package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.load.ChaosSoak;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The quick variant of the chaos soak (docs/results/chaos-soak.md), so its command never rots: the same
 * code and the same checks, 40 s per mode at 200 requests/s after 5 s of warm-up — async, sync, and virtual
 * when this JVM is 21 or newer (the server runs on this JVM's {@code java}). Every check must hold:
 * every request answered exactly once — by its deadline + 2 s here, not + 50 ms, since the build runs beside
 * it — nothing hung, no partner connection left open past the broker's idle timeout, the live heap flat.
 */
class ChaosSoakIT {
    @Test
    void everyRequestIsAnsweredOnceInTimeAndNothingHangsLeaksOrGrowsInEveryMode() throws Exception {
        // The soak's counts exactly, its times loosely: this runs beside the rest of the build (docs/results/chaos-soak.md
        // has the 30-minute run's +50 ms bound).
        ChaosSoak.Settings settings = ChaosSoak.Settings.defaults().with(2, 5).withSlack(2_000);
        assertTrue(Files.isRegularFile(settings.mashupJar()) && Files.isRegularFile(settings.stubsJar()),
                "package the modules first: " + settings.mashupJar() + ", " + settings.stubsJar());
        ChaosSoak.Report report = ChaosSoak.run(settings);
        List<String> modes = Runtime.version().feature() >= 21 ? List.of("async", "sync", "virtual")
                : List.of("async", "sync");
        assertEquals(modes, report.modesRun(), report.table());
        assertTrue(report.passed(), String.join("\n", report.failures()) + "\n" + report.table());
    }
}
