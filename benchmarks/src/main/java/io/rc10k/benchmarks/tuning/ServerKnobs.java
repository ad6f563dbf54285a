package io.rc10k.benchmarks.tuning;

import io.rc10k.harness.Http1Heads;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.List;
import java.util.Map;

/**
 * The knobs of the server's own command line that shape its threads and its admission: acceptors and
 * selectors, the pool's maximum, {@code --max-inflight}. Each sweep runs a server per value.
 */
final class ServerKnobs {
    /** The closed-loop mashup of the thread sweeps: C = 6 zero-delay calls, as the peers page measures. */
    static final int CALLS = 6;

    /**
     * The closed-loop load of the thread sweeps.
     *
     * @param connections kept-alive connections, one request in flight on each
     * @param protocol    the partner calls' protocol: {@code h2c} or {@code http/1.1}
     */
    record Load(int connections, String protocol) {
        /** 64 connections, C = 6 over h2c. */
        static final Load DEFAULT = new Load(64, "h2c");

        Load {
            if (connections < 1 || !List.of("h2c", "http/1.1").contains(protocol)) {
                throw new IllegalArgumentException("--connections " + connections + ", --partner-protocol " + protocol
                        + " (accepted: at least 1; h2c or http/1.1)");
            }
        }

        String partnerFields() {
            return "\"protocol\":\"" + protocol + "\"";
        }

        String describe() {
            return connections + " kept-alive connections, one request in flight on each; mashup of C = " + CALLS
                    + " zero-delay calls to one stub over " + protocol + "; async mode";
        }
    }

    private ServerKnobs() {
    }

    /** {@code A/S}: {@code --acceptors A --selectors S} under {@code load}. */
    static Table selectors(Rig rig, List<String> values, String baseline, Load load) throws Exception {
        Path definitions = rig.definitions(Rig.mashup(rig.stubs(), load.partnerFields(), CALLS, "", 5_000));
        Map<String, Rig.Server> launches = new LinkedHashMap<>();
        Map<String, List<String>> cells = new LinkedHashMap<>();
        for (String value : values) {
            String[] as = value.split("/");
            if (as.length != 2) {
                throw new IllegalArgumentException("selectors: \"" + value
                        + "\" (accepted: ACCEPTORS/SELECTORS, e.g. 1/2)");
            }
            launches.put(value, new Rig.Server(definitions, List.of("--acceptors", as[0], "--selectors", as[1])));
            cells.put(value, List.of(as[0], as[1]));
        }
        Table table = new Table("selectors", "Acceptors and selectors of the main connector (`--acceptors A "
                + "--selectors S`): mashups per second and the server's CPU per mashup under closed-loop load.",
                ClosedSweep.columns(List.of("acceptors", "selectors")));
        ClosedSweep.addRows(table, ClosedSweep.run(rig, launches, CALLS, load.connections()).windows(), baseline,
                cells);
        table.note("Load: " + load.describe() + ".");
        return table;
    }

    /**
     * A server option of one number ({@code --max-threads}, {@code --min-threads}, {@code --reserved-threads}), one
     * server per value under {@code load}; the pool's threads after the rounds in the notes.
     */
    static Table poolOption(Rig rig, String knob, String option, String question, List<String> values,
            String baseline, Load load) throws Exception {
        Path definitions = rig.definitions(Rig.mashup(rig.stubs(), load.partnerFields(), CALLS, "", 5_000));
        Map<String, Rig.Server> launches = new LinkedHashMap<>();
        Map<String, List<String>> cells = new LinkedHashMap<>();
        for (String value : values) {
            launches.put(value, new Rig.Server(definitions, List.of(option, value)));
            cells.put(value, List.of(value));
        }
        Table table = new Table(knob, question + ": mashups per second and the server's CPU per answer under "
                + "closed-loop load, async mode.", ClosedSweep.columns(List.of(option)));
        ClosedSweep.Result result = ClosedSweep.run(rig, launches, CALLS, load.connections());
        ClosedSweep.addRows(table, result.windows(), baseline, cells);
        result.end().forEach((value, metrics) -> table.note(option + " " + value + ": "
                + (long) metrics.get("jetty_threads_current") + " pool threads after the rounds, "
                + (long) metrics.get("jvm_threads_peak_threads") + " JVM threads at the peak"));
        table.note("Load: " + load.describe() + ".");
        return table;
    }

    /**
     * {@code --idle-timeout MS}: {@code clients} kept-alive connections, each one GET answered, then left idle for
     * {@code idleMillis}; how many the server closed meanwhile, and its open files before and after.
     */
    static Table idleTimeout(Rig rig, List<String> values, int clients, long idleMillis) throws Exception {
        Path definitions = rig.definitions(Rig.mashup(rig.stubs(), "\"protocol\":\"h2c\"", 1, "", 5_000));
        Table table = new Table("idle-timeout", "The inbound idle timeout (`--idle-timeout MS`): " + clients
                + " clients each send one request on a kept-alive connection, then go quiet for " + idleMillis
                + " ms. How many connections does the server close, and what does it hold meanwhile?",
                List.of("--idle-timeout ms", "clients", "closed by the server after " + idleMillis + " ms idle",
                        "server's open files: idle clients connected / after the pause"));
        for (int round = 0; round < rig.settings().rounds(); round++) {
            for (String value : OsKnobs.rotate(values, round)) {
                ServerProcess server = rig.start(Map.of(value, new Rig.Server(definitions,
                        List.of("--idle-timeout", value)))).get(value);
                List<SocketChannel> channels = new ArrayList<>();
                try {
                    URI target = server.uri().resolve(Rig.MASHUP);
                    for (int i = 0; i < clients; i++) {
                        channels.add(oneRequestKeptAlive(target));
                    }
                    double filesBefore = rig.metrics(server).get("process_files_open_files");
                    Thread.sleep(idleMillis);
                    int closed = 0;
                    ByteBuffer probe = ByteBuffer.allocate(64);
                    for (SocketChannel channel : channels) {
                        channel.configureBlocking(false);
                        probe.clear();
                        if (channel.read(probe) < 0) {
                            closed++;
                        }
                    }
                    double filesAfter = rig.metrics(server).get("process_files_open_files");
                    table.add(value, Integer.toString(clients), Integer.toString(closed),
                            String.format(Locale.ROOT, "%,.0f / %,.0f", filesBefore, filesAfter));
                } finally {
                    for (SocketChannel channel : channels) {
                        channel.close();
                    }
                    server.close();
                }
            }
        }
        table.note("Each client: connect, one GET of a C = 1 zero-delay h2c mashup (HTTP/1.1, kept alive), read the "
                + "answer, then nothing; a read after the pause that sees the end of the stream counts the connection "
                + "as closed by the server. Rows of the same value are rounds.");
        return table;
    }

    /** A blocking connection that sent one GET and read its whole answer (by Content-Length), left open. */
    private static SocketChannel oneRequestKeptAlive(URI target) throws IOException {
        SocketChannel channel = SocketChannel.open(new InetSocketAddress(target.getHost(), target.getPort()));
        channel.write(ByteBuffer.wrap(("GET " + target.getRawPath() + " HTTP/1.1\r\nHost: " + target.getHost()
                + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1)));
        ByteBuffer in = ByteBuffer.allocate(16 * 1024);
        while (true) {
            if (channel.read(in) < 0) {
                throw new IOException("the server closed a kept-alive connection before its answer ended");
            }
            String text = new String(in.array(), 0, in.position(), StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            if (end >= 0 && in.position() >= end + 4 + Http1Heads.contentLength(text.substring(0, end))) {
                return channel;
            }
        }
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
            Map<String, Rig.Server> launches = new LinkedHashMap<>();
            Map<String, List<String>> cells = new LinkedHashMap<>();
            for (String value : values) {
                launches.put(value, new Rig.Server(definitions, List.of("--max-inflight", value)));
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
