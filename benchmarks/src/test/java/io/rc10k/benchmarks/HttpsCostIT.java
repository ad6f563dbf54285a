package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.efficiency.Efficiency;
import io.rc10k.benchmarks.efficiency.Load;
import io.rc10k.benchmarks.peers.HttpsCost;
import io.rc10k.benchmarks.peers.Rounds;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The quick variant of the HTTPS cost comparison, so its command never rots: one round of a second per
 * variant, no warm-up, every server and stub a process of its own as in the real run. Bounds outcomes — each
 * variant's calls checked at the stubs' /echo (inside the run), every mashup answered 200 and complete, each
 * row in the table with its ratio — never the figures.
 */
class HttpsCostIT {
    @Test
    void everyVariantAnswersEveryMashupCompleteAndGetsARowBesideCleartext() throws Exception {
        HttpsCost.Settings settings = new HttpsCost.Settings(new Rounds(6, 1, new Load(8, 0, 1_000),
                QuickLaunch.get()));
        HttpsCost.Report report = HttpsCost.run(settings);
        String table = report.table();
        assertTrue(report.passed(), table);
        List<String> variants = List.of("http/1.1", "h2c", "https http/1.1", "https h2",
                "http/1.1, a connection per call", "https http/1.1, a connection per call",
                "https http/1.1, a connection per call, no resumption", "jetty-peer http/1.1",
                "jetty-peer https http/1.1");
        assertEquals(variants, List.copyOf(report.windows().keySet()), table);
        for (String variant : variants) {
            assertTrue(table.contains("| " + variant + " |"), table);
            Efficiency.Window w = report.windows().get(variant).get(0);
            assertTrue(w.stubCpuMillis() > 0, "the stubs answered the calls of " + variant + ": " + table);
        }
        assertTrue(table.contains("| http/1.1 | "), table);
        assertTrue(table.contains("| 1.00 | 1.00 | — |"), "the cleartext row is its own yardstick: " + table);
    }
}
