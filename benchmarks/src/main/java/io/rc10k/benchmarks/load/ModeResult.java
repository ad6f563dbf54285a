package io.rc10k.benchmarks.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What one mode of a {@link ChaosSoak} saw, and which of its checks failed ({@link #failures()}; none
 * for a mode that was skipped). The checks:
 * <ul>
 *   <li>every request answered exactly once: each one sent ended once, as a response (no connection-level
 *       failure), with 200, 502 or 504 (no 503 shed, no other status), and the server counted as many requests
 *       as were sent — in the warm-up and in the soak;</li>
 *   <li>every soak answer within the deadline + 50 ms of its send (warm-up answers are counted, not checked);</li>
 *   <li>nothing hung: inbound and outbound in flight back to 0 within the deadline + {@value #SCRAPE_MARGIN_MILLIS}
 *       ms of the last send;</li>
 *   <li>nothing leaked: every partner connection closed by the broker's idle timeout, so each was idle in its
 *       pool, within {@value #IDLE_WINDOW_MILLIS} ms of the drain;</li>
 *   <li>the live heap after a full GC grew by at most 10 % from the start to the end of the soak, or by at most
 *       {@value #HEAP_FLOOR_MIB} MiB when that is more (a live heap of ~20 MiB moves by a G1 region or two
 *       with no leak at all).</li>
 * </ul>
 *
 * @param serverCounts the server's request and partner-call counters, grown over the soak
 * @param cpu          CPU used over the soak: the server's, the soak's processes', the machine's
 */
record ModeResult(String mode, String notRun, String error, Phase warmUp, Phase soak, Leaks leaks, Heap heap,
        Map<String, Long> serverCounts, CpuMeter.Use cpu) {
    /** An answer this much later than its deadline (from its send) is over the deadline. */
    static final long ANSWER_SLACK_MILLIS = 50;
    /** For the scrapes that watch in-flight fall to 0: polled every 20 ms, each a GET of /metrics. */
    static final long SCRAPE_MARGIN_MILLIS = 250;
    /** The broker's idle timeout of a pooled HTTP/1.1 connection (30 s), its loop's check and a scrape. */
    static final long IDLE_WINDOW_MILLIS = 35_000;
    static final double HEAP_DRIFT = 0.10;
    static final long HEAP_FLOOR_MIB = 8;
    static final double MIB = 1 << 20;

    static ModeResult skipped(String mode, String why) {
        return new ModeResult(mode, why, null, null, null, null, null, Map.of(), CpuMeter.Use.UNKNOWN);
    }

    /** A mode that could not run to its end: a failure that names why, never a pass. */
    static ModeResult incomplete(String mode, String error) {
        return new ModeResult(mode, null, error, null, null, null, null, Map.of(), CpuMeter.Use.UNKNOWN);
    }

    /** Whether the mode ran (it may still have failed); false when it was skipped. */
    boolean ran() {
        return notRun == null;
    }

    /** Whether it ran to its end, so that every figure is there. */
    boolean completed() {
        return ran() && error == null;
    }

    /** What failed, one line each; empty when every check held or the mode was skipped. */
    List<String> failures() {
        List<String> failures = new ArrayList<>();
        if (!ran()) {
            return failures;
        }
        if (error != null) {
            failures.add(mode + ": did not complete: " + error);
            return failures;
        }
        failures.addAll(warmUp.failures(mode));
        failures.addAll(soak.failures(mode));
        failures.addAll(leaks.failures(mode));
        failures.addAll(heap.failures(mode));
        return failures;
    }

    static String header() {
        return "| mode | load | sent | answered | 200 complete | 200 partial | 502 | 504 | 503 | failed "
                + "| over deadline + 50 ms | from send p50 / p99 / max | from intended p50 / p99 / max "
                + "| in flight 0 after | hung | connections at drain → 0 after | leaked "
                + "| live heap start / end / drift | checks |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|";
    }

    String row() {
        if (!completed()) {
            return "| " + mode + " | " + (ran() ? "did not complete (FAIL)" : notRun) + " |||||||||||||||||";
        }
        AnswerTally.Counts c = soak.counts();
        return String.format(Locale.ROOT, "| %s | %.0f/s × %d s | %,d | %,d | %,d | %,d | %,d | %,d | %,d | %,d | %,d "
                + "| %s | %s | %,d ms | %.0f | %.0f → 0 after %s | %.0f | %.1f / %.1f / %+.1f MiB | %s |",
                mode, soak.rate(), soak.seconds(), soak.sent(), c.answered(), c.complete(), c.partial(),
                c.badGateway(), c.gatewayTimeout(), c.shed(), c.failed(), c.overDeadline(), millis(c.fromSent()),
                millis(c.fromIntended()), soak.drain().inboundZeroMillis(), soak.drain().hungAtBound(),
                leaks.openAtDrain(), leaks.closedAfterMillis() < 0 ? "—"
                        : String.format(Locale.ROOT, "%.1f s", leaks.closedAfterMillis() / 1000.0),
                leaks.openAtWindowEnd(), heap.liveStart() / MIB, heap.liveEnd() / MIB,
                (heap.liveEnd() - heap.liveStart()) / MIB, failures().isEmpty() ? "pass" : "FAIL");
    }

    private static String millis(Histogram h) {
        return h.getTotalCount() == 0 ? "—" : String.format(Locale.ROOT, "%.0f / %.0f / %.0f ms",
                h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0);
    }

    /**
     * One phase of load.
     *
     * @param neverEnded    requests sent that neither got a response nor failed by the end of the wait
     * @param duplicates    ends reported twice for one request
     * @param serverCounted requests the server counted ({@code mashup_requests_total} grown over the phase)
     * @param drain         how in flight fell to 0 after the phase's last send
     * @param deadlineChecked whether answers later than the deadline + the slack fail the phase: not in the warm-up,
     *                      whose first seconds meet a cold JVM (interpreted code, classes loading) by design
     */
    record Phase(String name, double rate, long seconds, long sent, long neverEnded, long duplicates,
            long serverCounted, AnswerTally.Counts counts, Drain drain, boolean deadlineChecked) {
        List<String> failures(String mode) {
            List<String> failures = new ArrayList<>(drain.failures(mode + " " + name));
            String at = mode + " " + name + ": ";
            if (neverEnded != 0) {
                failures.add(at + String.format("%,d sent, %,d responses + %,d connection-level failures: %,d never ended",
                        sent, counts.answered(), counts.failed(), neverEnded));
            }
            if (counts.failed() != 0) {
                failures.add(at + String.format("%,d connection-level failures %s", counts.failed(), counts.unexpected()));
            }
            if (duplicates != 0) {
                failures.add(at + duplicates + " requests ended twice");
            }
            if (counts.shed() != 0) {
                failures.add(at + String.format("%,d shed with 503 (must be 0 at this rate)", counts.shed()));
            }
            if (counts.otherStatus() != 0) {
                failures.add(at + String.format("%,d answers with another status %s", counts.otherStatus(),
                        counts.unexpected()));
            }
            if (counts.overDeadline() != 0 && deadlineChecked) {
                failures.add(at + String.format("%,d answers later than the deadline and its slack after their send "
                        + "(max %.0f ms)", counts.overDeadline(), counts.fromSent().getMaxValue() / 1000.0));
            }
            if (serverCounted != sent) {
                failures.add(at + String.format("the server counted %,d requests of the %,d sent", serverCounted,
                        sent));
            }
            if (!failures.isEmpty()) {
                counts.samples().forEach(sample -> failures.add(at + "  " + sample));
            }
            return failures;
        }
    }

    /**
     * In flight after the last send: how soon each count was 0 (-1: not within the wait), and the inbound count
     * at the bound (the deadline + {@value #SCRAPE_MARGIN_MILLIS} ms).
     */
    record Drain(long deadlineMillis, long inboundZeroMillis, long outboundZeroMillis, double hungAtBound,
            double outboundAtBound) {
        List<String> failures(String mode) {
            long bound = deadlineMillis + SCRAPE_MARGIN_MILLIS;
            List<String> failures = new ArrayList<>();
            if (inboundZeroMillis < 0 || inboundZeroMillis > bound) {
                failures.add(String.format(Locale.ROOT, "%s: hung: %.0f inbound requests still in flight %d ms after "
                        + "the last send; in flight reached 0 %s", mode, hungAtBound, bound, after(inboundZeroMillis)));
            }
            if (outboundZeroMillis < 0 || outboundZeroMillis > bound) {
                failures.add(String.format(Locale.ROOT, "%s: %.0f partner exchanges still in flight %d ms after the "
                        + "last send; they reached 0 %s", mode, outboundAtBound, bound, after(outboundZeroMillis)));
            }
            return failures;
        }

        private static String after(long millis) {
            return millis < 0 ? "never in the wait" : "after " + millis + " ms";
        }
    }

    /**
     * Partner connections after the drain: open then, how soon all were closed (-1: not within the window), and
     * what was still open, or in flight, at the end of the window.
     */
    record Leaks(double openAtDrain, long closedAfterMillis, double openAtWindowEnd, double outboundAtWindowEnd) {
        List<String> failures(String mode) {
            List<String> failures = new ArrayList<>();
            if (openAtWindowEnd != 0 || outboundAtWindowEnd != 0) {
                failures.add(String.format(Locale.ROOT, "%s: leaked: %.0f partner connections still open and %.0f "
                        + "exchanges in flight %d ms after the drain (broker idle timeout 30 s)", mode,
                        openAtWindowEnd, outboundAtWindowEnd, IDLE_WINDOW_MILLIS));
            }
            return failures;
        }
    }

    /** Bytes after a full GC at the start and the end of the soak: the live heap (G1 old gen) and all heap used. */
    record Heap(double liveStart, double liveEnd, double usedStart, double usedEnd) {
        /** The growth allowed: 10 % of the start, or the floor when that is more. */
        double allowedGrowth() {
            return Math.max(HEAP_DRIFT * liveStart, HEAP_FLOOR_MIB * MIB);
        }

        List<String> failures(String mode) {
            double growth = liveEnd - liveStart;
            return growth <= allowedGrowth() ? List.of() : List.of(String.format(Locale.ROOT, "%s: live heap after a "
                    + "full GC grew %.1f → %.1f MiB (%+.1f %%), more than the %.1f MiB allowed", mode,
                    liveStart / MIB, liveEnd / MIB, 100 * growth / liveStart, allowedGrowth() / MIB));
        }
    }
}
