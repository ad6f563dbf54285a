package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.fleet.FleetExperiment;
import java.util.List;
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
        FleetPrerequisites.assumeMet();

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
