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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The mashup server beside its peers, in one run: the same C-call fan-out written plainly on Vert.x 5
 * ({@link VertxFanOut}), on the JDK's {@code HttpClient} ({@link JdkFanOut}) and on Jetty's own client behind a
 * core handler ({@link JettyFanOut}: what the mashup server was built on before its own HTTP/1.1 loops), on a
 * bare NIO loop behind the same handler ({@link LoopFanOut}: what such a loop costs without the mashup server's
 * layers) and behind an async servlet ({@code loop-peer servlet}: the mashup server's inbound design without its
 * features), the mashup server in
 * async mode (and virtual when the servers' JDK is 21 or newer), and the bare Jetty hello-world as the
 * floor — all against one partner-stubs process, each server a process of its own, measured in turn
 * and interleaved over rounds (round 1 every server, round 2 every server, …) because the machine is
 * noisy and its noise drifts. Windows are taken as {@link Efficiency} takes them ({@link Measurement}).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.peers.Peers
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.peers.Peers --rounds 5 --java /path/to/jdk/bin/java
 * </pre>
 *
 * It prints a table per round and one of medians over the rounds: mashups/s, the server's CPU µs per
 * mashup, efficiency ((1 + C) × CPU per hello ÷ CPU per mashup), both as ratios to the best peer (the
 * peer with the most mashups/s), and the stubs' CPU per call; then the mashup server's targets against
 * the peers. Exit status: 0 when every request was answered 200, 1 otherwise, 2 for a bad command line.
 */
public final class Peers {
    /** Vert.x, the JDK's client, Jetty's client, each written plainly: the mashup server's targets compare to these. */
    static final Peer VERTX = new Peer("vertx-peer", VertxFanOut.class, List.of(), true);
    static final Peer JDK = new Peer("jdk-peer", JdkFanOut.class, List.of(), true);
    static final Peer JETTY = new Peer("jetty-peer", JettyFanOut.class, List.of(), true);
    /** Every peer, in the order measured after the hello floor and before the mashup server. */
    static final List<Peer> PEERS = List.of(VERTX, JDK, JETTY,
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
     *                    rounds (as {@code baseline async}, and {@code baseline virtual} on JDK 21+) to compare two
     *                    builds in one run; null for none
     */
    public record Settings(Rounds rounds, Path baselineJar) {
        public Settings(Rounds rounds) {
            this(rounds, null);
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
                if (!server.startsWith("mashup-server")) {
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
            return out.toString();
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
        try (StubProcess stubs = StubProcess.start(launch.stubJar(), List.of(), List.of())) {
            Files.writeString(definitions, Efficiency.definitionsJson(stubs.uri(), List.of(c), false));
            String partner = stubs.uri().resolve("/stub").toString();
            Map<String, Start> rows = new LinkedHashMap<>();
            rows.put("hello", () -> Efficiency.startHello(launch, false));
            for (Peer peer : PEERS) {
                rows.put(peer.name(), () -> peer.start(launch, partner, c));
            }
            for (String mode : modes) {
                rows.put("mashup-server " + mode, () -> Efficiency.startMashup(launch, definitions, mode));
            }
            for (String mode : settings.baselineJar() == null ? List.<String>of() : modes) {
                rows.put("baseline " + mode, () -> Efficiency.startMashup(launch.withMashupJar(settings.baselineJar()),
                        definitions, mode));
            }
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
        }
        return new Report(settings, machine, windows);
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
            + "(another mashup-server.jar, measured beside it in each mode, as \"baseline async\" and, on JDK 21+, "
            + "\"baseline virtual\") --help --version";

    public static void main(String[] args) throws Exception {
        Rounds.Reader rounds = Rounds.reader(Rounds.defaults());
        Path baselineJar = null;
        CommandLine line = new CommandLine("peers", USAGE, args);
        while (line.next()) {
            if (line.option().equals("--baseline-jar")) {
                baselineJar = line.path();
            } else {
                rounds.readOrUnknown(line);
            }
        }
        Settings settings;
        try {
            settings = new Settings(rounds.get(), baselineJar);
        } catch (IllegalArgumentException e) {
            throw line.fail(e.getMessage());
        }
        Finish.exit("peers", () -> run(settings));
    }
}
