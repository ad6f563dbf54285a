package io.rc10k.benchmarks.capacity;

import io.rc10k.benchmarks.launch.Finish;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a {@link RequiredFailureLatency} run saw: per mode, a {@link Pass} per number of clients (the
 * warm-up first), or why the mode was skipped; the machine, with the load average before and after.
 */
public record RequiredFailureReport(RequiredFailureLatency.Settings settings, String machine, String serverJdk,
        String loadBefore, String loadAfter, List<Mode> modes) implements Finish.Result {

    public RequiredFailureReport {
        modes = List.copyOf(modes);
    }

    /** One mode: its passes, or {@code skipped} saying why it was not run. */
    public record Mode(String mode, String skipped, List<Pass> passes) {
        public Mode {
            passes = List.copyOf(passes);
        }
    }

    /**
     * N requests from K clients, each on a kept-alive connection of its own, one request at a time.
     *
     * @param warmup        not judged against the threshold (its answers still must be right)
     * @param right         answers that were 502, {@code failedRequired: account}, the account's 503, the
     *                      two slow parts {@code cancelled}
     * @param late          per right answer: answer read − request sent − the account part's own
     *                      {@code elapsedMillis}; an upper bound of how late the 502 came after the failure
     * @param inServer      per right answer: the composite's {@code elapsedMillis} − the account part's (whole ms)
     * @param failedAfterMinMillis the account part's {@code elapsedMillis}, least and most: the failure came then
     * @param h1Cancelled   the server's {@code mashup_partner_calls_total{outcome="cancelled"}} of the slow
     *                      HTTP/1.1 calls in this pass ({@code h2cCancelled}: of the h2c ones)
     * @param accountFailed the server's count of account calls ended {@code http_error} in this pass
     * @param h2cAbandoned  h2c slow calls the stub saw reset by the server ({@code abandoned} of its /stats)
     * @param h2cAnswered   requests the h2c stub answered beyond the account calls: slow calls it was not told
     *                      of, none when cancelling works
     * @param h2cHeld       requests the h2c stub still held once the pass settled: none when cancelling works
     * @param h1Open        the server's {@code mashup_outbound_connections{partner="slow_h1"}} once settled: a
     *                      cancelled HTTP/1.1 call's connection is closed. (The stub of those calls is not asked:
     *                      it cannot see a closed connection until it writes, at the end of its delay.)
     * @param unsettled     what had not ended 30 s after the last answer; null when everything had
     */
    public record Pass(String mode, int clients, boolean warmup, int requests, int right, String firstWrong,
            Lateness.Summary late, Lateness.Summary inServer, long failedAfterMinMillis, long failedAfterMaxMillis,
            long h1Cancelled, long h2cCancelled, long accountFailed, long h2cAbandoned, long h2cAnswered, long h2cHeld, long h1Open,
            String unsettled) {

        /** What is wrong with this pass, each naming the figure; empty when nothing is. */
        List<String> problems(double maxP99Millis) {
            List<String> problems = new ArrayList<>();
            String at = String.format(Locale.ROOT, "%s, %d client(s)%s: ", mode, clients, warmup ? ", warm-up" : "");
            if (right != requests) {
                problems.add(at + (requests - right) + " of " + requests + " answers were not a 502 with the account "
                        + "failed and the slow calls cancelled; the first: " + firstWrong);
            }
            if (h1Cancelled != requests || h2cCancelled != requests) {
                problems.add(at + "the server counted " + h1Cancelled + " HTTP/1.1 and " + h2cCancelled + " h2c slow "
                        + "calls cancelled, of " + requests + " each");
            }
            if (accountFailed != requests) {
                problems.add(at + "the server counted " + accountFailed + " account calls failed, of " + requests);
            }
            if (h2cHeld != 0 || h2cAnswered != 0) {
                problems.add(at + "the h2c stub still held " + h2cHeld + " calls and answered " + h2cAnswered
                        + " beyond the account's: the cancel did not reach it");
            }
            if (h1Open != 0) {
                problems.add(at + h1Open + " connections to the slow HTTP/1.1 partner still open: a cancelled call's "
                        + "connection is closed");
            }
            if (unsettled != null) {
                problems.add(at + unsettled);
            }
            if (!warmup && right > 0 && late.p99Millis() > maxP99Millis) {
                problems.add(String.format(Locale.ROOT, "%sp99 lateness %.3f ms is over the threshold %.1f ms", at,
                        late.p99Millis(), maxP99Millis));
            }
            return problems;
        }
    }

    /** Every problem of every pass, and a run that measured nothing. */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        for (Mode mode : modes) {
            for (Pass pass : mode.passes()) {
                problems.addAll(pass.problems(settings.maxP99Millis()));
            }
        }
        if (modes.stream().allMatch(m -> m.skipped() != null)) {
            problems.add("no mode was measured");
        }
        return problems;
    }

    public boolean passed() {
        return problems().isEmpty();
    }

    /** 0 when every answer was right and every p99 within the threshold; 1 otherwise. */
    public int exitStatus() {
        return passed() ? 0 : 1;
    }

    /** A Markdown table, a row per pass, then skipped modes, the verdict, the machine. */
    public String table() {
        RequiredFailureLatency.Settings s = settings;
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "GET /mashup/required: the required account "
                + "call answers 503 after %,d ms; a slow HTTP/1.1 call and a slow h2c call (%,d ms) beside it; "
                + "deadline %,d ms. Late = answer read − request sent − the account part's elapsedMillis (an upper "
                + "bound); in the server = the composite's elapsedMillis − the account part's.%n%n",
                s.failAfterMillis(), s.slowMillis(), s.deadlineMillis()));
        out.append("| mode | clients | requests | 502, slow calls cancelled | late p50 / p90 / p99 / max (ms) "
                + "| in the server p50 / p99 / max (ms) | account failed after (ms) | h2c calls the stub saw reset "
                + "| slow HTTP/1.1 connections left open |\n|---|---|---|---|---|---|---|---|---|\n");
        for (Mode mode : modes) {
            for (Pass p : mode.passes()) {
                out.append(String.format(Locale.ROOT, "| %s | %d%s | %,d | %,d | %.2f / %.2f / %s / %.2f | %.0f / %.0f / %.0f "
                                + "| %,d–%,d | %,d of %,d | %,d |%n", mode.mode(), p.clients(),
                        p.warmup() ? " (warm-up)" : "", p.requests(), p.right(), p.late().p50Millis(),
                        p.late().p90Millis(), p.warmup() ? String.format(Locale.ROOT, "%.2f", p.late().p99Millis())
                                : String.format(Locale.ROOT, "**%.2f**", p.late().p99Millis()), p.late().maxMillis(),
                        p.inServer().p50Millis(), p.inServer().p99Millis(), p.inServer().maxMillis(), p.failedAfterMinMillis(),
                        p.failedAfterMaxMillis(), p.h2cAbandoned(), p.requests(), p.h1Open()));
            }
        }
        for (Mode mode : modes) {
            if (mode.skipped() != null) {
                out.append('\n').append(mode.mode()).append(": skipped — ").append(mode.skipped()).append('\n');
            }
        }
        List<String> problems = problems();
        out.append(String.format(Locale.ROOT, "%nverdict (p99 late ≤ %.1f ms, every answer right, every slow call "
                + "cancelled): %s%n", s.maxP99Millis(), problems.isEmpty() ? "PASSED" : "FAILED"));
        problems.forEach(p -> out.append("  ").append(p).append('\n'));
        out.append("machine: ").append(machine).append("; mashup server on ").append(serverJdk)
                .append("; load average before ").append(loadBefore).append(", after ").append(loadAfter).append('\n');
        return out.toString();
    }
}
