package io.rc10k.benchmarks.tuning;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The knobs of the server's own command line that shape its threads and its admission: acceptors and
 * selectors, the pool's maximum, {@code --max-inflight}. Each sweep runs a server per value.
 */
final class ServerKnobs {
    /** The closed-loop mashup of the thread sweeps: C = 6 zero-delay calls over h2c, as the peers page measures. */
    static final int CALLS = 6;
    /** Kept-alive connections of the closed-loop load, one request in flight on each. */
    static final int CONNECTIONS = 64;

    private ServerKnobs() {
    }

    /** {@code A/S}: {@code --acceptors A --selectors S}; C = 6 over h2c, 64 connections. */
    static Table selectors(Rig rig, List<String> values, String baseline) throws Exception {
        Path definitions = rig.definitions(Rig.mashup(rig.stubs(), "\"protocol\":\"h2c\"", CALLS, "", 5_000));
        Map<String, Rig.Launch> launches = new LinkedHashMap<>();
        Map<String, List<String>> cells = new LinkedHashMap<>();
        for (String value : values) {
            String[] as = value.split("/");
            if (as.length != 2) {
                throw new IllegalArgumentException("selectors: \"" + value + "\" (accepted: ACCEPTORS/SELECTORS, e.g. 1/2)");
            }
            launches.put(value, new Rig.Launch(definitions, List.of("--acceptors", as[0], "--selectors", as[1])));
            cells.put(value, List.of(as[0], as[1]));
        }
        Table table = new Table("selectors", "Acceptors and selectors of the main connector (`--acceptors A "
                + "--selectors S`): mashups per second and the server's CPU per mashup under closed-loop load.",
                ClosedSweep.columns(List.of("acceptors", "selectors")));
        ClosedSweep.addRows(table, ClosedSweep.run(rig, launches, CALLS, CONNECTIONS).windows(), baseline, cells);
        table.note("Load: " + CONNECTIONS + " kept-alive connections, one request in flight on each; mashup of C = "
                + CALLS + " zero-delay calls to one stub over h2c; async mode.");
        return table;
    }

    /** {@code --max-threads N}; the same load as {@link #selectors}. */
    static Table threads(Rig rig, List<String> values, String baseline) throws Exception {
        Path definitions = rig.definitions(Rig.mashup(rig.stubs(), "\"protocol\":\"h2c\"", CALLS, "", 5_000));
        Map<String, Rig.Launch> launches = new LinkedHashMap<>();
        Map<String, List<String>> cells = new LinkedHashMap<>();
        for (String value : values) {
            launches.put(value, new Rig.Launch(definitions, List.of("--max-threads", value)));
            cells.put(value, List.of(value));
        }
        Table table = new Table("threads", "The shared pool's maximum (`--max-threads N`), async mode: mashups per "
                + "second and the server's CPU per mashup under closed-loop load.",
                ClosedSweep.columns(List.of("--max-threads")));
        ClosedSweep.Result result = ClosedSweep.run(rig, launches, CALLS, CONNECTIONS);
        ClosedSweep.addRows(table, result.windows(), baseline, cells);
        result.end().forEach((value, metrics) -> table.note("--max-threads " + value + ": at the end "
                + (long) metrics.get("jetty_threads_current") + " pool threads, "
                + (long) metrics.get("jvm_threads_peak_threads") + " JVM threads at the peak"));
        table.note("Load: as for selectors (" + CONNECTIONS + " connections, C = " + CALLS + " over h2c, async).");
        return table;
    }

    /**
     * {@code --max-inflight N} under open-model load at each of {@code rates}: C = 6 h2c calls answered after
     * 100 ms, deadline 2 s.
     */
    static Table maxInflight(Rig rig, List<String> values, List<Double> rates) throws Exception {
        long deadline = 2_000;
        Path definitions = rig.definitions(Rig.mashup(rig.stubs(), "\"protocol\":\"h2c\"", CALLS, "delay=100",
                deadline));
        Table table = new Table("max-inflight", "Mashups admitted at once (`--max-inflight N`) under open-model load "
                + "below and above what the machine can serve: what is answered, what is shed, and how long the "
                + "admitted wait.", OpenSweep.columns(List.of("arrivals/s", "--max-inflight")));
        for (double rate : rates) {
            Map<String, Rig.Launch> launches = new LinkedHashMap<>();
            Map<String, List<String>> cells = new LinkedHashMap<>();
            for (String value : values) {
                launches.put(value, new Rig.Launch(definitions, List.of("--max-inflight", value)));
                cells.put(value, List.of(String.format("%.0f", rate), value));
            }
            OpenSweep.addRows(table, OpenSweep.run(rig, launches, rate, deadline), cells);
        }
        table.note("Open model: requests sent on schedule whatever the answers, each on a pooled connection of the "
                + "load's Jetty client; latency from each request's intended send time. Mashup of C = " + CALLS
                + " h2c calls answered after 100 ms, deadline 2 s; async mode.");
        return table;
    }
}
