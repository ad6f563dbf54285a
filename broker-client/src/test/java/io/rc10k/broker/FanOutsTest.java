package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class FanOutsTest {
    private static final long TICK = FanOuts.TICK_MILLIS * 1_000_000;

    @Test
    void aFanOutIsDueAtTheFirstTickAtOrAfterItsDeadline() {
        // nanoTime has no fixed origin: negative deadlines, and ones next to a tick, round the same way.
        for (long deadline : new long[] {0, 1, TICK - 1, TICK, TICK + 1, -1, -TICK, -TICK - 1, 123_456_789_012L,
                -987_654_321_098L}) {
            long due = FanOuts.due(deadline);
            assertTrue(due >= deadline, "due before the deadline: " + deadline + " -> " + due);
            assertTrue(due - deadline < TICK, "due a tick or more after the deadline: " + deadline + " -> " + due);
            assertEquals(0, Math.floorMod(due, TICK), "not on a tick: " + deadline + " -> " + due);
        }
    }
}
