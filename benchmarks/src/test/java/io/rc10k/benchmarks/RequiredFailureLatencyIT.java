package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.capacity.RequiredFailureLatency;
import io.rc10k.benchmarks.capacity.RequiredFailureReport;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The quick variant of the required-failure-latency command, so it never rots: the same code with 20
 * requests by 1 and by 4 clients in each mode. Bounds outcomes — every answer the 502 with both slow
 * calls cancelled, the server's counts and the h2c stub's agreeing — and the tool's own verdict, under
 * a threshold of 5 s: generous for a shared 2-core box, yet far below the 30 s the slow calls would take
 * and the 20 s deadline, so a 502 that waited for either still fails it.
 */
class RequiredFailureLatencyIT {
    private static final int REQUESTS = 20;

    @Test
    void everyRequiredFailureIsA502WithTheSlowCallsCancelledInEveryMode() throws Exception {
        RequiredFailureLatency.Settings settings = settings(5_000);
        RequiredFailureReport report = RequiredFailureLatency.run(settings);
        String table = report.table();
        assertEquals(3, report.modes().size(), table);
        for (RequiredFailureReport.Mode mode : report.modes()) {
            if (mode.mode().equals("virtual") && Runtime.version().feature() < 21) {
                assertTrue(mode.skipped().contains("older than 21"), table);
                assertTrue(table.contains("virtual: skipped — "), table);
                continue;
            }
            assertNull(mode.skipped(), table);
            assertEquals(3, mode.passes().size(), table);
            for (RequiredFailureReport.Pass pass : mode.passes()) {
                int n = pass.requests();
                assertEquals(n, pass.right(), table);
                assertEquals(n, pass.late().count(), table);
                assertEquals(n, pass.h1Cancelled(), table);
                assertEquals(n, pass.h2cCancelled(), table);
                assertEquals(n, pass.accountFailed(), table);
                assertEquals(0, pass.h2cHeld(), table);
                assertEquals(0, pass.h2cAnswered(), table);
                assertEquals(0, pass.h1Open(), table);
                assertNull(pass.unsettled(), table);
            }
        }
        assertEquals(List.of(), report.problems(), table);
        assertEquals(0, report.exitStatus(), table);

        // The same answers judged against a threshold none can meet: the tool fails, naming the figure.
        RequiredFailureReport strict = new RequiredFailureReport(settings(0.001), report.machine(), report.serverJdk(),
                report.loadBefore(), report.loadAfter(), report.modes());
        assertEquals(1, strict.exitStatus(), strict.table());
        assertTrue(strict.problems().stream().allMatch(p -> p.contains("is over the threshold 0.0 ms")),
                strict.problems().toString());
    }

    private static RequiredFailureLatency.Settings settings(double maxP99Millis) {
        return new RequiredFailureLatency.Settings(REQUESTS, 5, List.of(1, 4), 100, 30_000, 20_000, maxP99Millis,
                List.of("async", "sync", "virtual"), QuickLaunch.get());
    }
}
