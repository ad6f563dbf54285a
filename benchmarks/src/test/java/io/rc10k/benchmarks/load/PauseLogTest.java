package io.rc10k.benchmarks.load;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which safepoint lines the pause log reports: the longest, within the window asked for. */
class PauseLogTest {
    @Test
    void theLongestStopsWithinTheWindowComeFirst() throws Exception {
        PauseLog log = PauseLog.create("test");
        Files.write(log.file(), List.of(
                "[2026-11-26T06:13:08.879+0000] Safepoint \"G1CollectFull\", Time since last: 1 ns, Reaching safepoint:"
                        + " 4016 ns, At safepoint: 9 ns, Total: 90000000 ns",
                "[2026-11-26T06:13:10.000+0000] Safepoint \"G1CollectForAllocation\", Time since last: 1 ns,"
                        + " Total: 2500000 ns",
                "[2026-11-26T06:13:11.000+0000] Safepoint \"ICBufferFull\", Reaching safepoint: 3325 ns, Total: 153519 ns",
                "[2026-11-26T06:13:12.000+0000] Safepoint \"G1CollectForAllocation\", Time since last: 1 ns,"
                        + " Total: 7000000 ns",
                "not a safepoint line"));
        assertEquals(List.of("7.0 ms G1CollectForAllocation at 2026-11-26T06:13:12.000+0000",
                "2.5 ms G1CollectForAllocation at 2026-11-26T06:13:10.000+0000"),
                log.longest(2, Instant.parse("2026-11-26T06:13:09Z"), Instant.parse("2026-11-26T06:13:13Z")));
        Files.delete(log.file());
    }
}
