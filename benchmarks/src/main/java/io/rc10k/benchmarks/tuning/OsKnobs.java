package io.rc10k.benchmarks.tuning;

import io.rc10k.benchmarks.capacity.Http1Burst;
import io.rc10k.benchmarks.efficiency.Efficiency.Window;
import io.rc10k.benchmarks.efficiency.Measurement;
import io.rc10k.harness.Prometheus;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The operating system's knobs: the open-file limit the server derives its limits from, the listen backlog's
 * cap ({@code net.core.somaxconn}), and the ephemeral port range under partners that close every connection.
 * The sysctl sweeps change a network setting for the length of one measurement and put it back ({@link Sysctl}).
 */
final class OsKnobs {
    private static final Pattern LIMITS = Pattern.compile("max (\\d+) in flight, max (\\d+) connections of (\\d+) "
            + "open files");
    private static final Pattern OUTCOME = Pattern.compile("outcome=\"([a-z_]+)\"");
    /** Where a narrowed ephemeral port range starts. */
    private static final int NARROW_FIRST_PORT = 50_000;

    private OsKnobs() {
    }

    /**
     * {@code ulimit -n} of the server ({@code prlimit --nofile}): the limits it derives, and a burst of
     * {@code burst} mashups at once (C = 6 h2c calls of 3 s), each on a connection of its own. A value
     * {@code N/unbounded} runs under N files with the limits a 20,000-file process derives
     * ({@code --max-connections 19488 --max-inflight 10000}): what the derivation keeps from happening.
     */
    static Table files(Rig rig, List<String> values, int burst) throws Exception {
        long delayMillis = 3_000;
        Path definitions = rig.definitions(Rig.mashup(rig.stubs(), "\"protocol\":\"h2c\"", 6, "delay=" + delayMillis,
                10_000));
        Table table = new Table("files", "The server's open-file limit (`ulimit -n`, here set with `prlimit "
                + "--nofile`): the limits it derives at start, and what a burst of " + burst + " mashups at once, "
                + "each on a connection of its own, gets.", List.of("ulimit -n", "--max-connections",
                "--max-inflight", "burst", "200 complete", "503", "other / failed", "all ended after ms"));
        for (int round = 0; round < rig.settings().rounds(); round++) {
            for (String value : rotate(values, round)) {
                String[] parts = value.split("/");
                boolean unbounded = parts.length == 2 && parts[1].equals("unbounded");
                if (parts.length > 2 || parts.length == 2 && !unbounded) {
                    throw new IllegalArgumentException("files: \"" + value + "\" (accepted: N or N/unbounded)");
                }
                List<String> args = unbounded ? List.of("--max-connections", "19488", "--max-inflight", "10000")
                        : List.of();
                Rig.Server launch = new Rig.Server(definitions, args, List.of(), null, Long.parseLong(parts[0]));
                ServerProcess server = rig.start(Map.of(value, launch)).get(value);
                try {
                    Matcher limits = LIMITS.matcher(server.readyLine());
                    boolean found = limits.find();
                    burst(server, Math.min(200, burst), 30_000); // the JIT and the partner connection first
                    Burst b = burst(server, burst, 60_000);
                    table.add(value, found ? limits.group(2) : "?", found ? limits.group(1) : "?",
                            Integer.toString(burst), Integer.toString(b.ok()), Integer.toString(b.status("503")),
                            Integer.toString(b.failed() - b.status("503")) + b.firstFailureNote(),
                            String.format(Locale.ROOT, "%,d", b.millis()));
                } finally {
                    server.close();
                }
            }
        }
        table.note("Mashup of C = 6 h2c calls answered after " + delayMillis + " ms, deadline 10 s; a warm-up burst of "
                + "at most 200 first; the burst is one GET per connection (`Connection: close`), every connection "
                + "opened at once from one selector thread of the load. The limits are what the server printed at "
                + "start. Rows of the same value are rounds.");
        return table;
    }

    /**
     * The listen backlog: {@code net.core.somaxconn}, which caps every backlog (the server asks 4,096), when
     * {@code kernel}; else the server's own {@code --accept-queue} (under the machine's somaxconn). A burst of
     * {@code burst} connections at once, each one GET of a C = 1 zero-delay mashup, on a server started after the
     * setting (the kernel caps a backlog when the socket listens).
     */
    static Table backlog(Rig rig, List<String> values, int burst, boolean kernel) throws Exception {
        Path definitions = rig.definitions(Rig.mashup(rig.stubs(), "\"protocol\":\"h2c\"", 1, "", 5_000));
        String knob = kernel ? "net.core.somaxconn" : "--accept-queue";
        String what = kernel ? "The kernel's cap on a listen backlog (`net.core.somaxconn`)"
                : "The server's listen backlog (`--accept-queue N`)";
        Table table = new Table(kernel ? "somaxconn" : "accept-queue", what + ": a burst of " + burst
                + " connections at once, one GET each.", List.of(knob, "burst", "200 complete", "other / failed",
                "all ended after ms"));
        for (int round = 0; round < rig.settings().rounds(); round++) {
            for (String value : rotate(values, round)) {
                List<String> args = kernel ? List.of() : List.of("--accept-queue", value);
                try (Sysctl somaxconn = kernel ? Sysctl.set("net.core.somaxconn", value) : null) {
                    ServerProcess server = rig.start(Map.of(value, new Rig.Server(definitions, args))).get(value);
                    try {
                        burst(server, 200, 20_000); // the JIT and the partner connection, before the measured burst
                        Burst b = burst(server, burst, 30_000);
                        table.add(value, Integer.toString(burst), Integer.toString(b.ok()),
                                Integer.toString(b.failed()) + b.firstFailureNote(),
                                String.format(Locale.ROOT, "%,d", b.millis()));
                    } finally {
                        server.close();
                    }
                }
            }
        }
        table.note((kernel ? "The server asks a backlog of 4,096" : "net.core.somaxconn was "
                + Sysctl.get("net.core.somaxconn")) + "; a warm-up burst of 200 first. Mashup of C = 1 zero-delay h2c "
                + "call. Each row is one burst; rows of the same value are rounds.");
        return table;
    }

    /**
     * Partner connections under churn, against the ephemeral port range. A value is {@code MODE[/N][/noreuse]}:
     * {@code keep-alive} (the partner keeps its connections), {@code close} (it closes each after its answer: the
     * stubs' {@code close=true}) or {@code timeout} (every call passes its 50 ms timeout, so the server ends the
     * connection itself); {@code /N} narrows {@code net.ipv4.ip_local_port_range} to N ports from 50,000;
     * {@code /noreuse} sets {@code net.ipv4.tcp_tw_reuse} to 0 (by default Linux reuses TIME_WAIT ports on
     * loopback only). Per window: answers per second, the server's CPU per answer, the partner calls by outcome,
     * and the sockets left in TIME_WAIT on each side.
     */
    static Table ports(Rig rig, List<String> values) throws Exception {
        int connections = 32;
        int calls = 6;
        String noRetries = "\"retries\":0";
        Map<String, Rig.Server> launches = new LinkedHashMap<>();
        launches.put("keep-alive", new Rig.Server(rig.definitions(Rig.mashup(rig.stubs(), noRetries, calls, "",
                5_000)), List.of()));
        launches.put("close", new Rig.Server(rig.definitions(Rig.mashup(rig.stubs(), noRetries, calls, "close=true",
                5_000)), List.of()));
        launches.put("timeout", new Rig.Server(rig.definitions(Rig.mashup(rig.stubs(), noRetries
                + ",\"callTimeoutMillis\":50", calls, "delay=200", 5_000)), List.of()));
        for (String value : values) {
            String[] parts = value.split("/");
            if (!launches.containsKey(parts[0]) || parts.length > 3) {
                throw new IllegalArgumentException("ports: \"" + value + "\" (accepted: keep-alive, close or timeout, "
                        + "then /N for a range of N ports, then /noreuse)");
            }
        }
        Map<String, ServerProcess> servers = rig.start(launches);
        int stubPort = rig.stubs().getPort();
        Table table = new Table("ports", "Partner connections under churn — kept, closed by the partner after each "
                + "answer (`close=true`), or ended by the server when a call times out — against the ephemeral port "
                + "range (`net.ipv4.ip_local_port_range`) and TIME_WAIT reuse (`net.ipv4.tcp_tw_reuse`).",
                List.of("partner connections", "ip_local_port_range", "tcp_tw_reuse", "answers/s",
                        "server CPU µs per answer", "partner calls by outcome",
                        "TIME_WAIT after the window: server / partner side"));
        try {
            for (int round = 0; round < rig.settings().rounds(); round++) {
                Measurement measurement = new Measurement(connections, round == 0 ? rig.settings().warmupMillis()
                        : Math.min(rig.settings().warmupMillis(), 3_000), rig.settings().measureMillis());
                for (String value : rotate(values, round)) {
                    String[] parts = value.split("/");
                    ServerProcess server = servers.get(parts[0]);
                    String range = parts.length >= 2 && !parts[1].equals("noreuse") ? NARROW_FIRST_PORT + " "
                            + (NARROW_FIRST_PORT + Integer.parseInt(parts[1]) - 1) : null;
                    boolean noReuse = parts[parts.length - 1].equals("noreuse");
                    Window w;
                    Prometheus before = rig.metrics(server);
                    int[] timeWaitBefore = timeWait(stubPort);
                    int[] timeWait;
                    String rangeNow;
                    String reuseNow;
                    try (Sysctl narrowed = range == null ? null : Sysctl.set("net.ipv4.ip_local_port_range", range);
                            Sysctl reuse = noReuse ? Sysctl.set("net.ipv4.tcp_tw_reuse", "0") : null) {
                        rangeNow = Sysctl.get("net.ipv4.ip_local_port_range");
                        reuseNow = Sysctl.get("net.ipv4.tcp_tw_reuse");
                        w = measurement.measure(server, rig.stubProcess(), server.uri().resolve(Rig.MASHUP), value,
                                "async", calls);
                        timeWait = timeWait(stubPort);
                    }
                    Prometheus after = rig.metrics(server);
                    long answers = w.requests() + w.failed();
                    table.add(parts[0], rangeNow, reuseNow,
                            String.format(Locale.ROOT, "%,.0f", answers * 1e9 / w.elapsedNanos()),
                            String.format(Locale.ROOT, "%,.1f", w.cpuMillis() * 1000.0 / Math.max(1, answers)),
                            outcomes(before, after), String.format(Locale.ROOT, "%,d / %,d (before: %,d / %,d)",
                                    timeWait[0], timeWait[1], timeWaitBefore[0], timeWaitBefore[1]));
                }
            }
        } finally {
            servers.values().forEach(ServerProcess::close);
        }
        table.note("Load: " + connections + " kept-alive inbound connections, one request in flight on each; C = "
                + calls + " calls to one HTTP/1.1 stub (zero delay; for timeout: 200 ms, the call's timeout 50 ms), "
                + "no retries, circuit breaker off; async mode. TIME_WAIT counted in /proc/net/tcp and tcp6 before "
                + "and right after each window (a socket stays in TIME_WAIT 60 s: earlier windows' are still there): "
                + "server side = sockets whose remote port is the stub's, partner side = whose local port is. Rows of "
                + "the same value are rounds.");
        return table;
    }

    /** The partner calls that grew from {@code before} to {@code after}, by outcome: {@code ok 1,200, timeout 3}. */
    static String outcomes(Prometheus before, Prometheus after) {
        Map<String, Long> grown = new java.util.TreeMap<>();
        after.series().forEach((key, value) -> {
            if (key.startsWith("mashup_partner_calls_total{")) {
                Matcher m = OUTCOME.matcher(key);
                long delta = Math.round(value - before.series().getOrDefault(key, 0.0));
                if (m.find() && delta > 0) {
                    grown.merge(m.group(1), delta, Long::sum);
                }
            }
        });
        return grown.isEmpty() ? "—" : String.join(", ", grown.entrySet().stream().map(e -> e.getKey() + " "
                + String.format(Locale.ROOT, "%,d", e.getValue())).toList());
    }

    /** The values in turn from the {@code round}-th: each round starts with another value. */
    static List<String> rotate(List<String> values, int round) {
        List<String> rotated = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            rotated.add(values.get((i + round) % values.size()));
        }
        return rotated;
    }

    /** What one burst saw. */
    record Burst(int ok, int failed, String firstFailure, long millis, Map<String, Integer> answers) {
        int status(String code) {
            return answers.getOrDefault(code, 0);
        }

        String firstFailureNote() {
            return firstFailure == null ? "" : " (" + ClosedSweep.shorten(firstFailure) + ")";
        }
    }

    /** {@code n} GETs of the mashup at once, one connection each; how long until the last ended. */
    static Burst burst(ServerProcess server, int n, long timeoutMillis) throws IOException {
        Http1Burst burst = new Http1Burst(server.uri().resolve(Rig.MASHUP), "Mashup-Complete", "true");
        Http1Burst.Outcome o = burst.run(n, timeoutMillis);
        long end = Math.max(o.lastAnsweredNanos(), o.lastSentNanos());
        return new Burst(o.ok(), o.failed(), o.firstFailure(), (end - o.firstSentNanos()) / 1_000_000,
                burst.answers());
    }

    /** Sockets in TIME_WAIT with {@code port} as their remote port, and as their local port. */
    static int[] timeWait(int port) throws IOException {
        int[] counts = new int[2];
        String hex = String.format(Locale.ROOT, "%04X", port);
        for (String file : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path path = Path.of(file);
            if (!Files.exists(path)) {
                continue;
            }
            for (String line : Files.readAllLines(path)) {
                String[] f = line.trim().split("\\s+");
                if (f.length < 4 || !f[3].equals("06")) {
                    continue;
                }
                if (f[2].endsWith(":" + hex)) {
                    counts[0]++;
                } else if (f[1].endsWith(":" + hex)) {
                    counts[1]++;
                }
            }
        }
        return counts;
    }
}
