package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.fleet.FleetExperiment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The quick variant of the fleet experiment (docs/results/fleet.md), so its command never rots: 1 and 3
 * instances behind HAProxy configured by deploy/haproxy/haproxy.cfg, 20 arrivals/s for 3 s of a C = 6
 * mashup with 0.5 s calls. Every answer complete, and with 3 instances each one answered some: the
 * recipe balances. Skipped, saying why, where HAProxy is not installed.
 */
class FleetIT {
    @Test
    void oneAndThreeInstancesBehindHaproxyAnswerEveryMashupComplete() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/haproxy")),
                "/usr/sbin/haproxy is not installed (Debian: apt-get install haproxy; .ci/run does it where it may)");
        Path stubs = Path.of("..", "partner-stubs", "target", "partner-stubs.jar");
        Path mashup = Path.of("..", "mashup-server", "target", "mashup-server.jar");
        assertTrue(Files.isRegularFile(stubs) && Files.isRegularFile(mashup), "package the modules first");
        System.setProperty("rc10k.stubs.jar", stubs.toString());
        System.setProperty("rc10k.mashup.jar", mashup.toString());
        System.setProperty("rc10k.haproxy.recipe", Path.of("..", "deploy", "haproxy", "haproxy.cfg").toString());

        var phases = FleetExperiment.run(new FleetExperiment.Settings(List.of(1, 3), List.of(20.0), 3, 500, 0));

        assertEquals(2, phases.size(), "one phase per instance count");
        for (var phase : phases) {
            assertTrue(phase.allComplete(), phase.row());
            assertEquals(phase.instances(), phase.perInstance().length);
            assertEquals(phase.complete(), java.util.Arrays.stream(phase.perInstance()).sum(),
                    "the instances counted every complete answer: " + phase.row());
            for (long n : phase.perInstance()) {
                assertTrue(n > 0, "every instance was sent some: " + phase.row());
            }
            assertTrue(phase.maxOutbound() > 0, "partner calls were seen in flight: " + phase.row());
        }
    }
}
