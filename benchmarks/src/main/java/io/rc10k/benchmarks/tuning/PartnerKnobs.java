package io.rc10k.benchmarks.tuning;

import io.rc10k.harness.Prometheus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The knobs of a partner's definition and of the partner traffic: connections per partner, HTTP/2 streams per
 * connection, the largest answer a partner may send ({@code maxResponseBytes}) and the partner bytes held at
 * once over every partner ({@code --max-buffered-bytes}). Each sweep runs a server per value under closed-loop
 * load ({@link ClosedSweep}).
 */
final class PartnerKnobs {
    private static final int CALLS = 6;
    /** Enough clients that C calls each need more partner connections than the smallest values allow. */
    private static final int CONNECTIONS = 128;
    /** Partner delay of the connection and stream sweeps: long enough that a call holds its connection. */
    private static final int DELAY_MILLIS = 20;

    private PartnerKnobs() {
    }

    /** {@code maxConnections} of an HTTP/1.1 partner answering after 20 ms; 128 clients, C = 6. */
    static Table connections(Rig rig, List<String> values, String baseline) throws Exception {
        Map<String, Rig.Server> launches = new LinkedHashMap<>();
        Map<String, List<String>> cells = new LinkedHashMap<>();
        for (String value : values) {
            launches.put(value, new Rig.Server(rig.definitions(Rig.mashup(rig.stubs(), "\"maxConnections\":" + value
                    + ",\"maxQueued\":4096", CALLS, "delay=" + DELAY_MILLIS, 5_000)), List.of()));
            cells.put(value, List.of(value));
        }
        Table table = new Table("partner-connections", "Connections per partner (`maxConnections` in the definitions), "
                + "HTTP/1.1: mashups per second and the server's CPU per mashup when every client's C calls want a "
                + "connection of their own.", ClosedSweep.columns(List.of("maxConnections")));
        ClosedSweep.addRows(table, ClosedSweep.run(rig, launches, CALLS, CONNECTIONS).windows(), baseline, cells);
        table.note("Load: " + CONNECTIONS + " kept-alive connections, one request in flight on each ("
                + CONNECTIONS * CALLS + " partner calls wanted at once); C = " + CALLS + " calls to one HTTP/1.1 stub "
                + "answering after " + DELAY_MILLIS + " ms; maxQueued 4096; async mode.");
        return table;
    }

    /**
     * The streams sweep's load: closed-loop clients (each wanting C calls at once) and the size of each partner
     * answer (0: the stub's own small one). Written {@code CLIENTS[/BYTES]} on the command line.
     */
    record StreamsLoad(int clients, int bytes) {
        /** 128 clients, small answers: 768 calls wanted at once. */
        static final StreamsLoad DEFAULT = new StreamsLoad(CONNECTIONS, 0);

        StreamsLoad {
            if (clients < 1 || bytes < 0) {
                throw new IllegalArgumentException("--streams-load " + clients + "/" + bytes
                        + " (accepted: CLIENTS at least 1, BYTES at least 0)");
            }
        }

        static StreamsLoad parse(String text) {
            String[] parts = text.split("/", -1);
            try {
                if (parts.length > 2) {
                    throw new NumberFormatException(text);
                }
                return new StreamsLoad(Integer.parseInt(parts[0].trim()),
                        parts.length == 2 ? Integer.parseInt(parts[1].trim()) : 0);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--streams-load " + text + " (accepted: CLIENTS or CLIENTS/BYTES)");
            }
        }

        String query() {
            return "delay=" + DELAY_MILLIS + (bytes > 0 ? "&bytes=" + bytes : "");
        }
    }

    /** {@code maxStreamsPerConnection} of an h2c partner answering after 20 ms; C = 6, {@code load}'s clients. */
    static Table streams(Rig rig, List<String> values, String baseline, StreamsLoad load) throws Exception {
        Map<String, Rig.Server> launches = new LinkedHashMap<>();
        Map<String, List<String>> cells = new LinkedHashMap<>();
        for (String value : values) {
            launches.put(value, new Rig.Server(rig.definitions(Rig.mashup(rig.stubs(), "\"protocol\":\"h2c\","
                    + "\"maxStreamsPerConnection\":" + value + ",\"maxQueued\":" + Math.max(4096, load.clients() * CALLS),
                    CALLS, load.query(), 5_000)), List.of()));
            cells.put(value, List.of(value));
        }
        Table table = new Table("streams", "HTTP/2 streams per partner connection (`maxStreamsPerConnection`, h2c, "
                + "`maxConnections` at its default of 256): mashups per second and CPU per mashup.",
                ClosedSweep.columns(List.of("maxStreamsPerConnection")));
        ClosedSweep.addRows(table, ClosedSweep.run(rig, launches, CALLS, load.clients()).windows(), baseline, cells);
        table.note("Load: " + load.clients() + " kept-alive connections, one request in flight on each ("
                + load.clients() * CALLS + " partner calls wanted at once); C = " + CALLS + " calls to one h2c stub "
                + "(its --max-streams 1024) answering after " + DELAY_MILLIS + " ms"
                + (load.bytes() > 0 ? String.format(Locale.ROOT, " with %,d-byte bodies", load.bytes()) : "")
                + "; async mode.");
        return table;
    }

    /**
     * A partner's {@code idleTimeoutMillis} (its keep-alive on the broker's side) under open-model load whose
     * mashups come {@code 1/rate} apart: a timeout shorter than the gap closes the connections between mashups, so
     * each call opens one; a longer one keeps them. C = 6 HTTP/1.1 calls answered at once.
     */
    static Table idleTimeout(Rig rig, List<String> values, double rate) throws Exception {
        long deadline = 2_000;
        Map<String, Rig.Server> launches = new LinkedHashMap<>();
        Map<String, List<String>> cells = new LinkedHashMap<>();
        for (String value : values) {
            launches.put(value, new Rig.Server(rig.definitions(Rig.mashup(rig.stubs(), "\"idleTimeoutMillis\":" + value,
                    CALLS, "", deadline)), List.of()));
            cells.put(value, List.of(value));
        }
        Table table = new Table("partner-idle-timeout", "How long a kept partner connection may stay idle "
                + "(`idleTimeoutMillis` in the definitions): what reconnecting between mashups costs.",
                OpenSweep.columns(List.of("idleTimeoutMillis")));
        OpenSweep.addRows(table, OpenSweep.run(rig, launches, rate, deadline), cells);
        table.note(String.format(Locale.ROOT, "Open model at %.0f mashups/s (%.0f ms apart), each of C = %d calls to "
                + "one HTTP/1.1 stub answering at once; the broker checks idle connections every 50 ms; async mode.",
                rate, 1000 / rate, CALLS));
        return table;
    }

    /**
     * {@code BODY/LIMIT}: each partner answer {@code BODY} bytes ({@code k}, {@code m}), {@code maxResponseBytes}
     * {@code LIMIT}; 16 clients, C = 6, HTTP/1.1, zero delay.
     */
    static Table maxResponseBytes(Rig rig, List<String> values, String baseline) throws Exception {
        Map<String, Rig.Server> launches = new LinkedHashMap<>();
        Map<String, List<String>> cells = new LinkedHashMap<>();
        for (String value : values) {
            String[] bl = value.split("/");
            if (bl.length != 2) {
                throw new IllegalArgumentException("max-response-bytes: \"" + value + "\" (accepted: BODY/LIMIT, "
                        + "e.g. 64k/1m)");
            }
            launches.put(value, new Rig.Server(rig.definitions(Rig.mashup(rig.stubs(), "\"maxResponseBytes\":"
                    + bytes(bl[1]), CALLS, "bytes=" + bytes(bl[0]), 5_000)), List.of(), List.of("-Xmx1g"), null, 0));
            cells.put(value, List.of(bl[0], bl[1]));
        }
        Table table = new Table("max-response-bytes", "The largest answer a partner may send (`maxResponseBytes`): "
                + "what a body under it costs, and what one over it ends as.",
                withOutcomes(List.of("partner body", "maxResponseBytes")));
        ClosedSweep.Result result = ClosedSweep.run(rig, launches, CALLS, 16);
        addRowsWithOutcomes(table, result, baseline, cells);
        table.note("Load: 16 kept-alive connections; C = " + CALLS + " calls to one HTTP/1.1 stub answering at once "
                + "with a JSON body of the size shown; async mode, -Xmx1g.");
        return table;
    }

    /** {@code --max-buffered-bytes}: partner bodies of 128 KiB, C = 6, 32 clients, -Xmx1g (the default: 256 MiB). */
    static Table maxBufferedBytes(Rig rig, List<String> values, String baseline) throws Exception {
        String definitions = Rig.mashup(rig.stubs(), "", CALLS, "bytes=131072", 5_000);
        Map<String, Rig.Server> launches = new LinkedHashMap<>();
        Map<String, List<String>> cells = new LinkedHashMap<>();
        for (String value : values) {
            List<String> args = value.equals("default") ? List.of() : List.of("--max-buffered-bytes", value);
            launches.put(value, new Rig.Server(rig.definitions(definitions), args, List.of("-Xmx1g"), null, 0));
            cells.put(value, List.of(value.equals("default") ? "default (¼ heap)" : value));
        }
        Table table = new Table("max-buffered-bytes", "Partner bytes held at once over every partner "
                + "(`--max-buffered-bytes`): how many calls it ends `memory_budget`, and at what throughput.",
                withOutcomes(List.of("--max-buffered-bytes")));
        ClosedSweep.Result result = ClosedSweep.run(rig, launches, CALLS, 32);
        addRowsWithOutcomes(table, result, baseline, cells);
        result.end().forEach((value, m) -> table.note(value + ": the bound in force "
                + String.format(Locale.ROOT, "%.1f MiB", m.get("mashup_outbound_buffered_max_bytes") / (1 << 20))));
        table.note("Load: 32 kept-alive connections; C = " + CALLS + " calls to one HTTP/1.1 stub answering at once "
                + "with 128 KiB each (up to 24 MiB in transit); circuit breaker off; async mode, -Xmx1g.");
        return table;
    }

    private static List<String> withOutcomes(List<String> knob) {
        List<String> columns = new ArrayList<>(ClosedSweep.columns(knob));
        columns.add("partner calls by outcome");
        return columns;
    }

    /** The closed sweep's rows, and each server's partner calls by outcome over the whole sweep. */
    private static void addRowsWithOutcomes(Table table, ClosedSweep.Result result, String baseline,
            Map<String, List<String>> cells) {
        Map<String, List<String>> outcomes = new LinkedHashMap<>();
        result.end().forEach((value, m) -> outcomes.put(value, List.of(OsKnobs.outcomes(
                new Prometheus(0, Map.of()), m))));
        ClosedSweep.addRows(table, result.windows(), baseline, cells, outcomes);
    }

    /** {@code 64k}, {@code 1m}, {@code 4096}: bytes. */
    static long bytes(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        int shift = t.endsWith("k") ? 10 : t.endsWith("m") ? 20 : t.endsWith("g") ? 30 : 0;
        return Long.parseLong(shift == 0 ? t : t.substring(0, t.length() - 1)) << shift;
    }
}
