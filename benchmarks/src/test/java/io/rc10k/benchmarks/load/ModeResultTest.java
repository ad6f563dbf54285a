package io.rc10k.benchmarks.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The checks of one chaos-soak mode, on made-up figures: what passes, what fails and what the line says. */
class ModeResultTest {
    private static final double MIB = 1 << 20;
    private static final ModeResult.Drain DRAINED = new ModeResult.Drain(1_000, 900, 900, 0, 0);
    private static final ModeResult.Leaks NO_LEAK = new ModeResult.Leaks(40, 29_300, 0, 0);

    private static AnswerTally.Counts counts(long complete, long failed, long shed, long overDeadline) {
        Histogram h = new Histogram(3);
        h.recordValue(50_000);
        return new AnswerTally.Counts(complete, 0, 0, 0, shed, 0, failed, overDeadline, 0, 1_000, Map.of(), List.of(),
                h, h);
    }

    private static ModeResult.Phase phase(String name, AnswerTally.Counts counts, long sent, boolean deadlineChecked) {
        return new ModeResult.Phase(name, 200, 10, sent, sent - counts.answered() - counts.failed(), 0, sent, counts,
                DRAINED, deadlineChecked);
    }

    private static ModeResult mode(ModeResult.Phase warmUp, ModeResult.Phase soak, ModeResult.Leaks leaks,
            ModeResult.Heap heap) {
        return new ModeResult("async", null, null, warmUp, soak, leaks, heap, Map.of(), new CpuMeter.Use(20, 30, 50));
    }

    private static final ModeResult.Phase WARM = phase("warm-up", counts(1_000, 0, 0, 0), 1_000, false);
    private static final ModeResult.Phase SOAK = phase("soak", counts(2_000, 0, 0, 0), 2_000, true);
    private static final ModeResult.Heap FLAT = new ModeResult.Heap(20 * MIB, 21 * MIB, 22 * MIB, 23 * MIB);

    @Test
    void aModeWhoseEveryFigureIsCleanPasses() {
        assertEquals(List.of(), mode(WARM, SOAK, NO_LEAK, FLAT).failures());
        assertTrue(mode(WARM, SOAK, NO_LEAK, FLAT).row().endsWith("| pass |"));
    }

    @Test
    void lateAnswersFailTheSoakButAreOnlyCountedInTheWarmUp() {
        ModeResult.Phase lateWarmUp = phase("warm-up", counts(1_000, 0, 0, 7), 1_000, false);
        assertEquals(List.of(), mode(lateWarmUp, SOAK, NO_LEAK, FLAT).failures());
        ModeResult.Phase lateSoak = phase("soak", counts(2_000, 0, 0, 1), 2_000, true);
        List<String> failures = mode(WARM, lateSoak, NO_LEAK, FLAT).failures();
        assertEquals(1, failures.size(), failures.toString());
        assertTrue(failures.get(0).contains("1 answers later than the deadline and its slack"), failures.get(0));
    }

    @Test
    void aConnectionFailureOrAShedRequestOrOneNeverAnsweredFails() {
        assertTrue(mode(WARM, phase("soak", counts(1_999, 1, 0, 0), 2_000, true), NO_LEAK, FLAT).failures().stream()
                .anyMatch(f -> f.contains("1 connection-level failures")));
        assertTrue(mode(WARM, phase("soak", counts(1_999, 0, 1, 0), 2_000, true), NO_LEAK, FLAT).failures().stream()
                .anyMatch(f -> f.contains("shed with 503")));
        assertTrue(mode(WARM, phase("soak", counts(1_999, 0, 0, 0), 2_000, true), NO_LEAK, FLAT).failures().stream()
                .anyMatch(f -> f.contains("1 never ended")));
    }

    @Test
    void aRequestStillInFlightPastTheDeadlineAndMarginIsHung() {
        ModeResult.Phase hung = new ModeResult.Phase("soak", 200, 10, 2_000, 0, 0, 2_000, counts(2_000, 0, 0, 0),
                new ModeResult.Drain(1_000, 1_251, 1_000, 1, 0), true);
        List<String> failures = mode(WARM, hung, NO_LEAK, FLAT).failures();
        assertEquals(1, failures.size(), failures.toString());
        assertTrue(failures.get(0).contains("hung: 1 inbound requests still in flight 1250 ms after the last send"),
                failures.get(0));
    }

    @Test
    void aConnectionStillOpenAtTheEndOfTheIdleWindowIsLeaked() {
        List<String> failures = mode(WARM, SOAK, new ModeResult.Leaks(40, -1, 1, 0), FLAT).failures();
        assertEquals(1, failures.size(), failures.toString());
        assertTrue(failures.get(0).contains("leaked: 1 partner connections still open"), failures.get(0));
    }

    @Test
    void aSmallHeapMayGrowByTheFloorALargeOneByTenPercent() {
        assertEquals(8 * MIB, new ModeResult.Heap(20 * MIB, 0, 0, 0).allowedGrowth());
        assertEquals(20 * MIB, new ModeResult.Heap(200 * MIB, 0, 0, 0).allowedGrowth());
        assertEquals(List.of(), mode(WARM, SOAK, NO_LEAK, new ModeResult.Heap(20 * MIB, 28 * MIB, 0, 0)).failures());
        assertEquals(1, mode(WARM, SOAK, NO_LEAK, new ModeResult.Heap(20 * MIB, 28.5 * MIB, 0, 0)).failures().size());
        assertEquals(1, mode(WARM, SOAK, NO_LEAK, new ModeResult.Heap(200 * MIB, 221 * MIB, 0, 0)).failures().size());
    }

    @Test
    void aSkippedModeHasNoFailuresAndOneThatDidNotCompleteFails() {
        assertEquals(List.of(), ModeResult.skipped("virtual", "skipped: JDK 17").failures());
        assertEquals(List.of("sync: did not complete: java.io.IOException: no jar"),
                ModeResult.incomplete("sync", "java.io.IOException: no jar").failures());
    }
}
