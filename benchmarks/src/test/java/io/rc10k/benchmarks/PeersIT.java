package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.efficiency.Efficiency;
import io.rc10k.benchmarks.efficiency.Load;
import io.rc10k.benchmarks.peers.NginxSsiPeer;
import io.rc10k.benchmarks.peers.Peers;
import io.rc10k.benchmarks.peers.Rounds;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The quick variant of the peers comparison, so its command never rots: one round of a second per
 * server, no warm-up, every server a process of its own as in the real run, over HTTP/1.1 and h2c. Bounds outcomes — every
 * mashup and hello answered 200, each server's row in the table, the targets printed — never the figures.
 */
class PeersIT {
    @Test
    void everyServerAnswersEveryRequestAndGetsARowBesideThePeers() throws Exception {
        Peers.Settings settings = new Peers.Settings(new Rounds(6, 1, new Load(8, 0, 1_000), QuickLaunch.get()));
        Peers.Report report = Peers.run(settings);
        String table = report.table();
        assertTrue(report.passed(), table);
        List<String> servers = new ArrayList<>(List.of("hello", "vertx-peer", "vertx-peer h2c", "jdk-peer",
                "jetty-peer", "jetty-peer non-blocking", "loop-peer", "loop-peer servlet"));
        // nginx is measured where it is installed (a C peer: one process, milliseconds to start), skipped elsewhere.
        if (NginxSsiPeer.onPath() != null) {
            servers.add(NginxSsiPeer.NAME);
        }
        servers.add("mashup-server async");
        if (Runtime.version().feature() >= 21) {
            servers.add("mashup-server virtual");
        }
        servers.add("mashup-server async h2c");
        assertEquals(servers, List.copyOf(report.windows().keySet()), table);
        for (String server : servers) {
            assertEquals(1, report.windows().get(server).size(), table);
            assertTrue(table.contains("| " + (server.equals("hello") ? "hello (floor" : server + " |")), table);
        }
        for (Efficiency.Window mashup : List.of(report.windows().get("vertx-peer").get(0),
                report.windows().get("jdk-peer").get(0), report.windows().get("jetty-peer").get(0),
                report.windows().get("loop-peer servlet").get(0), report.windows().get("mashup-server async").get(0),
                report.windows().get("vertx-peer h2c").get(0), report.windows().get("mashup-server async h2c").get(0))) {
            assertTrue(mashup.stubCpuMillis() > 0, "the stubs answered the partner calls: " + table);
        }
        assertTrue(table.contains("targets, mashup-server async at C = 6"), table);
        assertTrue(table.contains("targets, mashup-server async h2c at C = 6: CPU per mashup"), table);
    }
}
