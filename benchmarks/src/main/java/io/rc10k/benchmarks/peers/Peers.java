package io.rc10k.benchmarks.peers;

import com.sun.management.OperatingSystemMXBean;
import io.rc10k.benchmarks.capacity.StubProcess;
import io.rc10k.benchmarks.efficiency.Efficiency.Window;
import io.rc10k.benchmarks.efficiency.Efficiency;
import io.rc10k.benchmarks.efficiency.Measurement;
import io.rc10k.harness.CommandLine;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
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
    private static final Pattern VERTX_READY = Pattern.compile("vertx-peer ready on (http://\\S+)");
    private static final Pattern JDK_READY = Pattern.compile("jdk-peer ready on (http://\\S+)");
    static final Pattern JETTY_READY = Pattern.compile("jetty-peer ready on (http://\\S+)");
    private static final Pattern LOOP_READY = Pattern.compile("loop-peer ready on (http://\\S+)");
    private static final Pattern JAVA_VERSION = Pattern.compile("version \"(\\d+)");
    /** What a row's name ends with when its partner calls go over h2c; the rest go over HTTP/1.1. */
    static final String H2C = " h2c";
    /** The peers: the best of each protocol (most mashups/s) is what that protocol's rows are divided by. */
    static final List<String> PEERS = List.of("vertx-peer", "jdk-peer", "jetty-peer",
            "jetty-peer non-blocking", NginxSsiPeer.NAME, "vertx-peer" + H2C);

    /**
     * Settings of one run.
     *
     * @param servers the servers' settings, as {@link Efficiency} takes them: C (one value), connections,
     *                first round's longest warm-up, measured window, jars, {@code java} and JVM options
     * @param rounds  how many times every server is measured, in turn
     * @param baselineJar another build of mashup-server.jar, measured in each mode beside this one in the same
     *                    rounds (as {@code baseline async}, {@code baseline async h2c}, and {@code baseline virtual}
     *                    on JDK 21+) to compare two builds in one run; null for none
     */
    public record Settings(Efficiency.Settings servers, int rounds, Path baselineJar) {
        public Settings(Efficiency.Settings servers, int rounds) {
            this(servers, rounds, null);
        }

        public Settings {
            if (servers.calls().size() != 1) {
                throw new IllegalArgumentException("--calls: " + servers.calls() + " (accepted: one C, 1 to 64)");
            }
            if (rounds < 1) {
                throw new IllegalArgumentException("--rounds: " + rounds + " (accepted: at least 1)");
            }
        }

        public int calls() {
            return servers.calls().get(0);
        }

        /** C = 6, 3 rounds, 64 connections (as {@code wrk -c64}), warm-up at most 15 s, 10 s measured. */
        public static Settings defaults() {
            Efficiency.Settings d = Efficiency.Settings.defaults();
            return new Settings(new Efficiency.Settings(List.of(6), List.of("async"), 64, 15_000, 10_000,
                    d.mashupJar(), d.stubJar(), d.benchmarksJar(), d.java(), List.of(), false, false), 3);
        }
    }

    /** Every server's windows, one per round, in the order measured; the first server is the hello floor. */
    public record Report(Settings settings, String machine, Map<String, List<Window>> windows) {
        public boolean passed() {
            return windows.values().stream().flatMap(List::stream)
                    .allMatch(w -> w.failed() == 0 && w.requests() > 0 && w.cpuMillis() > 0);
        }

        /** The table of medians over the rounds, and the mashup server's targets against the peers. */
        public String table() {
            return new PeersTable(settings.calls(), windows, -1).render() + targets();
        }

        /** The table of one round (0-based). */
        public String roundTable(int round) {
            return new PeersTable(settings.calls(), windows, round).render();
        }

        private String targets() {
            PeersTable medians = new PeersTable(settings.calls(), windows, -1);
            StringBuilder out = new StringBuilder();
            for (String server : windows.keySet()) {
                if (!server.startsWith("mashup-server") || server.endsWith(H2C)) {
                    continue;
                }
                double vertx = medians.perSecond(server) / medians.perSecond("vertx-peer");
                double jdk = medians.perSecond(server) / medians.perSecond("jdk-peer");
                double cpu = medians.cpuMicros(server) / medians.cpuMicros("vertx-peer");
                double efficiency = medians.efficiency(server);
                out.append(String.format(Locale.ROOT, "targets, %s at C = %d: mashups/s %.2f× vertx-peer's (≥ 1.0: %s), "
                                + "%.2f× jdk-peer's (≥ 1.5: %s); CPU per mashup %.2f× vertx-peer's (≤ 1.2: %s); "
                                + "efficiency %.2f (≥ 0.6: %s)%n", server, settings.calls(), vertx, met(vertx >= 1.0),
                        jdk, met(jdk >= 1.5), cpu, met(cpu <= 1.2), efficiency, met(efficiency >= 0.6)));
            }
            for (String server : windows.keySet()) {
                if (server.endsWith(H2C) && !server.startsWith("vertx-peer")) {
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
            double[] sorted = ratios.clone();
            java.util.Arrays.sort(sorted);
            int middle = sorted.length / 2;
            double cpu = sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
            String vertx = "vertx-peer" + H2C;
            String rate = windows.containsKey(vertx) ? String.format(Locale.ROOT, "; mashups/s %.2f× %s's (≥ 1.0: %s)",
                    medians.perSecond(server) / medians.perSecond(vertx), vertx,
                    met(medians.perSecond(server) >= medians.perSecond(vertx))) : "";
            return String.format(Locale.ROOT, "targets, %s at C = %d: CPU per mashup %.2f× %s's (median of the rounds' "
                            + "ratios, %.2f–%.2f; ≤ 1.2: %s)%s%n", server, settings.calls(), cpu, twin, sorted[0],
                    sorted[sorted.length - 1], met(cpu <= 1.2), rate);
        }

        private static String met(boolean met) {
            return met ? "met" : "not met";
        }
    }

    private Peers() {
    }

    public static Report run(Settings settings) throws Exception {
        Efficiency.Settings s = settings.servers();
        List<Path> jars = new ArrayList<>(List.of(s.mashupJar(), s.stubJar(), s.benchmarksJar()));
        if (settings.baselineJar() != null) {
            jars.add(settings.baselineJar());
        }
        for (Path jar : jars) {
            if (!Files.isRegularFile(jar)) {
                throw new IOException("no jar at " + jar.toAbsolutePath() + "; build first with "
                        + "./mvnw -q package -DskipTests (or pass --mashup-jar, --stub-jar, --benchmarks-jar)");
            }
        }
        String serversJdk = javaVersion(s.java());
        Matcher feature = JAVA_VERSION.matcher(serversJdk);
        List<String> modes = feature.find() && Integer.parseInt(feature.group(1)) >= 21 ? List.of("async", "virtual")
                : List.of("async");
        String machine = machine(s, settings.rounds(), serversJdk);
        System.out.println("machine: " + machine);
        int c = settings.calls();
        Map<String, ServerProcess> servers = new LinkedHashMap<>();
        Map<String, List<Window>> windows = new LinkedHashMap<>();
        Path definitions = Files.createTempFile("peers-", ".json");
        Path h2cDefinitions = Files.createTempFile("peers-h2c-", ".json");
        Path nginxFiles = Files.createTempDirectory("peers-nginx-");
        // One stub process for every row: HTTP/1.1 and h2c (prior knowledge) on the same port.
        try (StubProcess stubs = StubProcess.start(s.stubJar(), List.of(), List.of("--h2c"))) {
            Files.writeString(definitions, Efficiency.definitionsJson(stubs.uri(), List.of(c), false));
            Files.writeString(h2cDefinitions, Efficiency.definitionsJson(stubs.uri(), List.of(c), true));
            servers.put("hello", Efficiency.startHello(s));
            String partner = stubs.uri().resolve("/stub").toString();
            servers.put("vertx-peer", ServerProcess.start("vertx-peer",
                    peerCommand(s, VertxFanOut.class, partner, c), VERTX_READY));
            List<String> vertxH2c = peerCommand(s, VertxFanOut.class, partner, c);
            vertxH2c.add(1, "-Dvertx-peer.h2c=true");
            servers.put("vertx-peer" + H2C, ServerProcess.start("vertx-peer" + H2C, vertxH2c, VERTX_READY));
            servers.put("jdk-peer", ServerProcess.start("jdk-peer", peerCommand(s, JdkFanOut.class, partner, c),
                    JDK_READY));
            servers.put("jetty-peer", ServerProcess.start("jetty-peer",
                    peerCommand(s, JettyFanOut.class, partner, c), JETTY_READY));
            List<String> nonBlocking = peerCommand(s, JettyFanOut.class, partner, c);
            nonBlocking.add(1, "-Djetty-peer.nonBlocking=true");
            servers.put("jetty-peer non-blocking", ServerProcess.start("jetty-peer non-blocking", nonBlocking,
                    JETTY_READY));
            Path nginx = NginxSsiPeer.onPath();
            if (nginx == null) {
                System.out.println(NginxSsiPeer.NAME + ": skipped — no nginx on the PATH (Debian: apt-get install nginx)");
            } else {
                ServerProcess ssi = NginxSsiPeer.start(nginx, nginxFiles, stubs.uri().resolve("/stub"), c);
                servers.put(NginxSsiPeer.NAME, ssi);
                NginxSsiPeer.check(ssi, c);
            }
            servers.put("loop-peer", ServerProcess.start("loop-peer", peerCommand(s, LoopFanOut.class, partner, c),
                    LOOP_READY));
            List<String> servlet = peerCommand(s, LoopFanOut.class, partner, c);
            servlet.add(1, "-Dloop-peer.servlet=true");
            servers.put("loop-peer servlet", ServerProcess.start("loop-peer servlet", servlet, LOOP_READY));
            for (String mode : modes) {
                servers.put("mashup-server " + mode, Efficiency.startMashup(s, definitions, mode));
            }
            servers.put("mashup-server async" + H2C, Efficiency.startMashup(s, h2cDefinitions, "async"));
            if (settings.baselineJar() != null) {
                Efficiency.Settings baseline = s.withMashupJar(settings.baselineJar());
                for (String mode : modes) {
                    servers.put("baseline " + mode, Efficiency.startMashup(baseline, definitions, mode));
                }
                servers.put("baseline async" + H2C, Efficiency.startMashup(baseline, h2cDefinitions, "async"));
            }
            Map<String, InterleavedRounds.Target> targets = new LinkedHashMap<>();
            servers.forEach((name, server) -> targets.put(name, name.equals("hello")
                    ? new InterleavedRounds.Target(server, null, server.uri().resolve("/"), 0)
                    : new InterleavedRounds.Target(server, stubs, server.uri().resolve("/mashup/c" + c), c)));
            new InterleavedRounds(s.connections(), s.warmupMillis(), s.measureMillis(), settings.rounds())
                    .measure(targets, windows, round -> {
                        System.out.println();
                        System.out.print(new PeersTable(c, windows, round).render());
                        System.out.println();
                    });
        } finally {
            servers.values().forEach(ServerProcess::close);
            Files.deleteIfExists(definitions);
            Files.deleteIfExists(h2cDefinitions);
            deleteTree(nginxFiles);
        }
        return new Report(settings, machine, windows);
    }

    private static void deleteTree(Path directory) throws IOException {
        try (var paths = Files.walk(directory)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    static List<String> peerCommand(Efficiency.Settings s, Class<?> peer, String partner, int calls) {
        List<String> command = new ArrayList<>();
        command.add(s.java());
        command.addAll(s.jvmArgs());
        command.addAll(List.of("-cp", s.benchmarksJar().toString(), peer.getName(), "--port", "0", "--partner",
                partner, "--calls", Integer.toString(calls)));
        return command;
    }

    /** The first line of {@code java -version} of the servers' JVM, e.g. {@code openjdk version "25.0.3" …}. */
    static String javaVersion(String java) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(java, "-version").redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor();
        return out.lines().findFirst().orElse("unknown");
    }

    /** Cores, memory, OS, the servers' JVM and this one, and how the windows were taken. */
    static String machine(Efficiency.Settings s, int rounds, String serversJdk) {
        long memory = ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        return String.format(Locale.ROOT, "%d cores, %d GiB, %s; servers on %s (%s)%s, this JVM %s; C = %d, "
                        + "%d rounds, %d connections, warm-up %d to %d ms (later rounds at most %d ms), measure %d ms",
                Runtime.getRuntime().availableProcessors(), memory >> 30, System.getProperty("os.name") + " "
                        + System.getProperty("os.version"), s.java(), serversJdk,
                s.jvmArgs().isEmpty() ? "" : " " + s.jvmArgs(), Runtime.version(), s.calls().get(0),
                rounds, s.connections(), s.warmupMillis() / 2, s.warmupMillis(),
                Math.min(s.warmupMillis(), InterleavedRounds.LATER_WARMUP_MILLIS),
                s.measureMillis());
    }

    public static void main(String[] args) throws Exception {
        Settings d = Settings.defaults();
        Efficiency.Settings e = d.servers();
        int calls = d.calls();
        int rounds = d.rounds();
        int connections = e.connections();
        long warmup = e.warmupMillis();
        long measure = e.measureMillis();
        Path mashupJar = e.mashupJar();
        Path stubJar = e.stubJar();
        Path benchmarksJar = e.benchmarksJar();
        String java = e.java();
        List<String> jvmArgs = new ArrayList<>();
        Path baselineJar = null;
        String usage = "--calls C (6) --rounds R (3) --connections N (64) --warmup MS (15000; round 1 at least "
                + "half of it, later rounds at most " + InterleavedRounds.LATER_WARMUP_MILLIS + ") --measure MS (10000) --mashup-jar PATH --stub-jar PATH "
                + "--benchmarks-jar PATH --java PATH (the servers' JVM; default: this one) --jvm-arg ARG (repeatable) "
                + "--baseline-jar PATH (another mashup-server.jar, measured beside it in each mode, as \"baseline async\", \"baseline async h2c\" and, on JDK 21+, \"baseline virtual\") --help --version";
        CommandLine line = new CommandLine("peers", usage, args);
        while (line.next()) {
            switch (line.option()) {
                case "--calls" -> calls = line.intValue();
                case "--rounds" -> rounds = line.intValue();
                case "--connections" -> connections = line.intValue();
                case "--warmup" -> warmup = line.longValue();
                case "--measure" -> measure = line.longValue();
                case "--mashup-jar" -> mashupJar = line.path();
                case "--stub-jar" -> stubJar = line.path();
                case "--benchmarks-jar" -> benchmarksJar = line.path();
                case "--java" -> java = line.value();
                case "--jvm-arg" -> jvmArgs.add(line.value());
                case "--baseline-jar" -> baselineJar = line.path();
                default -> line.unknown();
            }
        }
        Settings settings;
        try {
            settings = new Settings(new Efficiency.Settings(List.of(calls), List.of("async"), connections, warmup,
                    measure, mashupJar, stubJar, benchmarksJar, java, jvmArgs, false, false), rounds, baselineJar);
        } catch (IllegalArgumentException ex) {
            throw line.fail(ex.getMessage());
        }
        Report report = run(settings);
        System.out.println("machine: " + report.machine());
        System.out.print(report.table());
        System.exit(report.passed() ? 0 : 1);
    }
}
