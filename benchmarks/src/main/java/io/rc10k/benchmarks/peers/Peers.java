package io.rc10k.benchmarks.peers;

import com.sun.management.OperatingSystemMXBean;
import io.rc10k.benchmarks.capacity.StubProcess;
import io.rc10k.benchmarks.efficiency.Efficiency;
import io.rc10k.benchmarks.efficiency.Efficiency.Window;
import io.rc10k.benchmarks.efficiency.Load;
import io.rc10k.benchmarks.efficiency.Measurement;
import io.rc10k.benchmarks.launch.Finish;
import io.rc10k.benchmarks.launch.Launch;
import io.rc10k.harness.CommandLine;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The mashup server beside its peers, in one run: the same C-call fan-out written plainly on Vert.x 5
 * ({@link VertxFanOut}), on the JDK's {@code HttpClient} ({@link JdkFanOut}) and on Jetty's own client behind a
 * core handler ({@link JettyFanOut}: what the mashup server was built on before its own HTTP/1.1 loops), on a
 * bare NIO loop behind the same handler ({@link LoopFanOut}: what such a loop costs without the mashup server's
 * layers) and behind an async servlet ({@code loop-peer servlet}: the mashup server's inbound design without its
 * features), the same fan-out in C by nginx's server-side includes ({@link NginxSsiPeer}, when {@code nginx} is
 * on the {@code PATH}; skipped with the reason otherwise), the mashup server in
 * async mode (and virtual when the servers' JDK is 21 or newer), and the bare Jetty hello-world as the
 * floor; beside them the mashup server (async) and the Vert.x peer with their calls over h2c (rows named
 * {@code … h2c}) — all against one partner-stubs process, each server a process of its own, measured in turn
 * and interleaved over rounds (round 1 every server, round 2 every server, …) because the machine is
 * noisy and its noise drifts. Windows are taken as {@link Efficiency} takes them ({@link Measurement}).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.peers.Peers
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.peers.Peers --rounds 5 --java /path/to/jdk/bin/java
 * </pre>
 *
 * It prints a table per round and one of medians over the rounds: mashups/s, the server's CPU µs per
 * mashup, efficiency ((1 + C) × CPU per hello ÷ CPU per mashup), both as ratios to the best peer of the
 * row's protocol (the peer with the most mashups/s), and the stubs' CPU per call; then the mashup server's
 * targets against the peers, and its CPU per mashup over h2c against over HTTP/1.1 (the median of each round's
 * ratio). Exit status: 0 when every request was answered 200, 1 otherwise, 2 for a bad command line.
 */
public final class Peers {
    /** Vert.x, the JDK's client, Jetty's client, each written plainly: the mashup server's targets compare to these. */
    static final Peer VERTX = new Peer("vertx-peer", VertxFanOut.class, List.of(), true);
    static final Peer JDK = new Peer("jdk-peer", JdkFanOut.class, List.of(), true);
    static final Peer JETTY = new Peer("jetty-peer", JettyFanOut.class, List.of(), true);
    /** What a row's name ends with when its partner calls go over h2c; the rest go over HTTP/1.1. */
    static final String H2C = " h2c";
    /** The Vert.x peer over h2c with prior knowledge: the best h2c peer the h2c rows compare to. */
    static final Peer VERTX_H2C = new Peer("vertx-peer" + H2C, VertxFanOut.class, List.of("-Dvertx-peer.h2c=true"),
            true);
    /** Every Java peer, in the order measured after the hello floor and before the mashup server. */
    static final List<Peer> PEERS = List.of(VERTX, VERTX_H2C, JDK, JETTY,
            new Peer("jetty-peer non-blocking", JettyFanOut.class, List.of("-Djetty-peer.nonBlocking=true"), true),
            new Peer("loop-peer", LoopFanOut.class, List.of(), false),
            new Peer("loop-peer servlet", LoopFanOut.class, List.of("-Dloop-peer.servlet=true"), false));

    /**
     * One peer's row: the same fan-out as the mashup server's, written plainly on another stack.
     *
     * @param name    its row's name; the word before the first space is what the peer prints as it starts
     * @param fanOut  its main class, which takes {@link PeerOptions}
     * @param jvmArgs JVM options that choose a variant of it (after the launch's own)
     * @param rival   whether it competes for "the best peer" the targets compare to; a yardstick row does not
     */
    record Peer(String name, Class<?> fanOut, List<String> jvmArgs, boolean rival) {
        /** The peer calling {@code partner} C times per request, on the launch's java and JVM options. */
        ServerProcess start(Launch launch, String partner, int calls) throws IOException {
            String label = name.split(" ")[0];
            return ServerProcess.start(name, launch.withMoreJvmArgs(jvmArgs).command(fanOut, List.of("--port", "0",
                    "--partner", partner, "--calls", Integer.toString(calls))),
                    Pattern.compile(Pattern.quote(label) + " ready on (http://\\S+)"));
        }
    }

    /** A row's server, started when the run comes to it. */
    private interface Start {
        ServerProcess start() throws IOException;
    }

    /**
     * Settings of one run.
     *
     * @param rounds      C, the rounds, each window's load, and the servers' launch
     * @param baselineJar another build of mashup-server.jar, measured in each mode beside this one in the same
     *                    rounds (as {@code baseline async}, {@code baseline async h2c}, and {@code baseline virtual}
     *                    on JDK 21+) to compare two builds in one run; null for none
     * @param rows        the rows to measure, by name ({@code hello} always); empty for every row
     */
    public record Settings(Rounds rounds, Path baselineJar, List<String> rows) {
        public Settings(Rounds rounds) {
            this(rounds, null, List.of());
        }

        public Settings {
            rows = List.copyOf(rows);
        }

        boolean measures(String row) {
            return rows.isEmpty() || row.equals("hello") || rows.contains(row);
        }
    }

    /** Every server's windows, one per round, in the order measured; the first server is the hello floor. */
    public record Report(Settings settings, String machine, Map<String, List<Window>> windows)
            implements Finish.Result {
        @Override
        public boolean passed() {
            return InterleavedRounds.clean(windows);
        }

        /** The machine, the table of medians over the rounds, and the mashup server's targets against the peers. */
        @Override
        public String table() {
            return "machine: " + machine + "\n" + new PeersTable(calls(), windows, -1).render() + targets();
        }

        /** The table of one round (0-based). */
        public String roundTable(int round) {
            return new PeersTable(calls(), windows, round).render();
        }

        private int calls() {
            return settings.rounds().calls();
        }

        private String targets() {
            PeersTable medians = new PeersTable(calls(), windows, -1);
            StringBuilder out = new StringBuilder();
            for (String server : windows.keySet()) {
                if (!server.startsWith("mashup-server") || server.endsWith(H2C)
                        || !windows.containsKey("vertx-peer") || !windows.containsKey("jdk-peer")) {
                    continue;
                }
                double vertx = medians.perSecond(server) / medians.perSecond("vertx-peer");
                double jdk = medians.perSecond(server) / medians.perSecond("jdk-peer");
                double cpu = medians.cpuMicros(server) / medians.cpuMicros("vertx-peer");
                double efficiency = medians.efficiency(server);
                out.append(String.format(Locale.ROOT, "targets, %s at C = %d: mashups/s %.2f× vertx-peer's (≥ 1.0: %s), "
                                + "%.2f× jdk-peer's (≥ 1.5: %s); CPU per mashup %.2f× vertx-peer's (≤ 1.2: %s); "
                                + "efficiency %.2f (≥ 0.6: %s)%n", server, calls(), vertx, met(vertx >= 1.0),
                        jdk, met(jdk >= 1.5), cpu, met(cpu <= 1.2), efficiency, met(efficiency >= 0.6)));
            }
            for (String server : windows.keySet()) {
                if (server.endsWith(H2C) && !server.equals(VERTX_H2C.name())
                        && windows.containsKey(server.substring(0, server.length() - H2C.length()))) {
                    out.append(h2cTarget(server, medians));
                }
            }
            return out.toString();
        }

        /** The h2c row's CPU per mashup over its HTTP/1.1 twin's, round by round, and its mashups/s over Vert.x's. */
        private String h2cTarget(String server, PeersTable medians) {
            String twin = server.substring(0, server.length() - H2C.length());
            List<Window> h2c = windows.get(server);
            List<Window> http1 = windows.get(twin);
            double[] ratios = new double[h2c.size()];
            for (int r = 0; r < ratios.length; r++) {
                ratios[r] = h2c.get(r).cpuMicrosPerRequest() / http1.get(r).cpuMicrosPerRequest();
            }
            Arrays.sort(ratios);
            int middle = ratios.length / 2;
            double cpu = ratios.length % 2 == 1 ? ratios[middle] : (ratios[middle - 1] + ratios[middle]) / 2;
            double rate = windows.containsKey(VERTX_H2C.name())
                    ? medians.perSecond(server) / medians.perSecond(VERTX_H2C.name()) : Double.NaN;
            return String.format(Locale.ROOT, "targets, %s at C = %d: CPU per mashup %.2f× %s's (median of the rounds' "
                            + "ratios, %.2f–%.2f; ≤ 1.2: %s); mashups/s %.2f× %s's (≥ 1.0: %s)%n", server, calls(), cpu,
                    twin, ratios[0], ratios[ratios.length - 1], met(cpu <= 1.2), rate, VERTX_H2C.name(),
                    met(rate >= 1.0));
        }

        private static String met(boolean met) {
            return met ? "met" : "not met";
        }
    }

    private Peers() {
    }

    public static Report run(Settings settings) throws Exception {
        Rounds rounds = settings.rounds();
        Launch launch = rounds.launch();
        launch.requireJars(true);
        if (settings.baselineJar() != null && !Files.isRegularFile(settings.baselineJar())) {
            throw new IOException("--baseline-jar: no jar at " + settings.baselineJar().toAbsolutePath());
        }
        String serversJdk = launch.javaVersion();
        List<String> modes = Launch.hasVirtualThreads(serversJdk) ? List.of("async", "virtual") : List.of("async");
        String machine = machine(rounds, serversJdk);
        System.out.println("machine: " + machine);
        int c = rounds.calls();
        Map<String, ServerProcess> servers = new LinkedHashMap<>();
        Map<String, List<Window>> windows = new LinkedHashMap<>();
        Path definitions = Files.createTempFile("peers-", ".json");
        Path h2cDefinitions = Files.createTempFile("peers-h2c-", ".json");
        Path nginxFiles = Files.createTempDirectory("peers-nginx-");
        // One stub process for every row: HTTP/1.1 and h2c (prior knowledge) on the same port.
        try (StubProcess stubs = StubProcess.start(launch.stubJar(), List.of(), List.of("--h2c"))) {
            Files.writeString(definitions, Efficiency.definitionsJson(stubs.uri(), List.of(c), false));
            Files.writeString(h2cDefinitions, Efficiency.definitionsJson(stubs.uri(), List.of(c), true));
            String partner = stubs.uri().resolve("/stub").toString();
            Map<String, Start> rows = new LinkedHashMap<>();
            rows.put("hello", () -> Efficiency.startHello(launch, false));
            for (Peer peer : PEERS) {
                rows.put(peer.name(), () -> peer.start(launch, partner, c));
            }
            Path nginx = NginxSsiPeer.onPath();
            if (nginx == null) {
                System.out.println(NginxSsiPeer.NAME + ": skipped — no nginx on the PATH nor in /usr/sbin (Debian: "
                        + "apt-get install nginx)");
            } else {
                rows.put(NginxSsiPeer.NAME, () -> NginxSsiPeer.start(nginx, nginxFiles, stubs.uri().resolve("/stub"), c));
            }
            for (String mode : modes) {
                rows.put("mashup-server " + mode, () -> Efficiency.startMashup(launch, definitions, mode));
            }
            rows.put("mashup-server async" + H2C, () -> Efficiency.startMashup(launch, h2cDefinitions, "async"));
            Launch baseline = settings.baselineJar() == null ? null : launch.withMashupJar(settings.baselineJar());
            for (String mode : baseline == null ? List.<String>of() : modes) {
                rows.put("baseline " + mode, () -> Efficiency.startMashup(baseline, definitions, mode));
            }
            if (baseline != null) {
                rows.put("baseline async" + H2C, () -> Efficiency.startMashup(baseline, h2cDefinitions, "async"));
            }
            for (String row : settings.rows()) {
                if (!rows.containsKey(row)) {
                    throw new IllegalArgumentException("--rows: no row \"" + row + "\" (rows: " + rows.keySet() + ")");
                }
            }
            rows.keySet().removeIf(row -> !settings.measures(row));
            Map<String, InterleavedRounds.Target> targets = new LinkedHashMap<>();
            for (Map.Entry<String, Start> row : rows.entrySet()) {
                ServerProcess server = row.getValue().start();
                servers.put(row.getKey(), server);
                targets.put(row.getKey(), row.getKey().equals("hello")
                        ? new InterleavedRounds.Target(server, null, server.uri().resolve("/"), 0)
                        : new InterleavedRounds.Target(server, stubs, server.uri().resolve("/mashup/c" + c), c));
            }
            new InterleavedRounds(rounds).measure(targets, windows,
                    round -> new PeersTable(c, windows, round).render());
        } finally {
            servers.values().forEach(ServerProcess::close);
            Files.deleteIfExists(definitions);
            Files.deleteIfExists(h2cDefinitions);
            deleteTree(nginxFiles);
        }
        return new Report(settings, machine, windows);
    }

    private static void deleteTree(Path directory) throws IOException {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    /** Cores, memory, OS, the servers' JVM and this one, and how the windows were taken. */
    static String machine(Rounds rounds, String serversJdk) {
        long memory = ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        Launch launch = rounds.launch();
        Load load = rounds.load();
        return String.format(Locale.ROOT, "%d cores, %d GiB, %s; servers on %s (%s)%s, this JVM %s; C = %d, "
                        + "%d rounds, %d connections, warm-up %d to %d ms (later rounds at most %d ms), measure %d ms",
                Runtime.getRuntime().availableProcessors(), memory >> 30, System.getProperty("os.name") + " "
                        + System.getProperty("os.version"), launch.java(), serversJdk,
                launch.jvmArgs().isEmpty() ? "" : " " + launch.jvmArgs(), Runtime.version(), rounds.calls(),
                rounds.rounds(), load.connections(), load.warmupMillis() / 2, load.warmupMillis(),
                Math.min(load.warmupMillis(), InterleavedRounds.LATER_WARMUP_MILLIS), load.measureMillis());
    }

    private static final String USAGE = Rounds.usage("the servers' JVM; default: this one") + " --baseline-jar PATH "
            + "(another mashup-server.jar, measured beside it in each mode, as \"baseline async\", \"baseline async h2c\" "
            + "and, on JDK 21+, \"baseline virtual\") --rows NAME,NAME (only these rows, and hello; default: all) "
            + "--help --version";

    public static void main(String[] args) throws Exception {
        Rounds.Reader rounds = Rounds.reader(Rounds.defaults());
        Path baselineJar = null;
        List<String> only = List.of();
        CommandLine line = new CommandLine("peers", USAGE, args);
        while (line.next()) {
            if (line.option().equals("--baseline-jar")) {
                baselineJar = line.path();
            } else if (line.option().equals("--rows")) {
                only = line.list().stream().map(String::trim).toList();
            } else {
                rounds.readOrUnknown(line);
            }
        }
        Settings settings;
        try {
            settings = new Settings(rounds.get(), baselineJar, only);
        } catch (IllegalArgumentException e) {
            throw line.fail(e.getMessage());
        }
        Finish.exit("peers", () -> run(settings));
    }
}
