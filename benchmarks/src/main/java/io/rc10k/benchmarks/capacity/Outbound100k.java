package io.rc10k.benchmarks.capacity;

import com.sun.management.UnixOperatingSystemMXBean;
import io.rc10k.benchmarks.efficiency.KeepAliveLoad;
import io.rc10k.benchmarks.load.MashupProcess;
import io.rc10k.harness.CommandLine;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One mashup-server JVM holding N·C outbound calls at once — 100,000 by default: N kept-alive HTTP/1.1
 * clients each ask for a mashup of C h2c partner calls answered after a delay, one request after the
 * other, so that the server holds N inbound requests and N·C partner calls together.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.Outbound100k
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.Outbound100k --inbound 100 --delay-ms 3000
 * </pre>
 *
 * <p>Processes: {@code --partners} partner-stubs JVMs ({@code --h2c}), one partner each, the C calls dealt
 * to them in turn; the mashup server ({@code --mode async --max-inflight N}); the N inbound connections come
 * from this JVM ({@link KeepAliveLoad}: one selector thread), so this JVM and the server each hold N
 * sockets, while the partner calls share a few hundred h2c connections. What is held is read from the
 * server's own {@code /metrics} ({@code mashup_inbound_inflight}, {@code mashup_outbound_inflight}) and
 * confirmed at the stubs' {@code /stats}; the run itself is {@link OutboundRun}.</p>
 *
 * <p>Exit status: 0 when all N·C calls were held at once (the server's gauge and the stubs agreeing)
 * and every answer was a complete 200; 1 otherwise; 2 for a bad command line.</p>
 */
public final class Outbound100k {
    private static final String USAGE = """
            [options]   (run as java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.capacity.Outbound100k)
              --inbound N       kept-alive inbound connections, a mashup in flight on each (default 10000)
              --calls C         h2c partner calls per mashup, 1 to 64 (default 10)
              --partners P      partner-stubs processes, one partner each, 1 to 16 (default 2)
              --streams S       h2c streams per partner connection, 1 to 1024 (default 128)
              --delay-ms MS     how long each partner call waits before its answer (default 20000)
              --deadline-ms MS  the mashup's deadline and each call's timeout, over the delay (default 2 x delay)
              --rounds R        about how many requests each connection sends, one after the other: the
                                clients send for the ramp and R - 1/2 delays (default 2)
              --ramp-ms MS      the N connections are opened evenly over this long (default 5000; 0: at once)
              --warmup-ms MS    zero-delay mashups on 64 connections before the run (default 5000; 0: none)
              --max-threads N   the server's --max-threads (default 64)
              --jvm-arg ARG     a JVM option for the server (repeatable)
              --mashup-jar PATH (default mashup-server/target/mashup-server.jar)
              --stub-jar PATH   (default partner-stubs/target/partner-stubs.jar)
              --help            print this and exit
              --version         print the version and exit
            Needs an open-file limit above N + the partner connections + 512 (ulimit -n) in this JVM and the server.
            Exit status: 0 all N x C calls held at once and every answer a complete 200; 1 otherwise; 2 bad line.
            """;

    /**
     * Settings of one run.
     *
     * @param inbound    N: inbound connections, each with one mashup request in flight at a time
     * @param partners   stub processes, one partner each; call k goes to partner {@code (k - 1) % partners}
     * @param streams    the partners' {@code maxStreamsPerConnection}; the stubs are started to allow as many
     * @param rounds     requests each connection sends in turn; the next goes as soon as the answer is in
     * @param rampMillis the N connections are opened evenly over this long, not in one storm of connects
     * @param maxThreads the server's {@code --max-threads}: its one pool, selectors and broker loops included
     */
    public record Settings(int inbound, int calls, int partners, int streams, long delayMillis, long deadlineMillis,
            int rounds, long rampMillis, long warmupMillis, int maxThreads, List<String> jvmArgs, Path mashupJar,
            Path stubJar) {
        public Settings {
            jvmArgs = List.copyOf(jvmArgs);
            if (inbound < 1) {
                throw new IllegalArgumentException("--inbound: " + inbound + " (accepted: at least 1)");
            }
            if (calls < 1 || calls > 64) {
                throw new IllegalArgumentException("--calls: " + calls + " (accepted: 1 to 64)");
            }
            if (partners < 1 || partners > 16) {
                throw new IllegalArgumentException("--partners: " + partners + " (accepted: 1 to 16)");
            }
            if (streams < 1 || streams > 1024) {
                throw new IllegalArgumentException("--streams: " + streams + " (accepted: 1 to 1024)");
            }
            if (delayMillis < 100 || delayMillis > 300_000) {
                throw new IllegalArgumentException("--delay-ms: " + delayMillis + " (accepted: 100 to 300000)");
            }
            if (deadlineMillis <= delayMillis || deadlineMillis > 600_000) {
                throw new IllegalArgumentException("--deadline-ms: " + deadlineMillis + " (accepted: over --delay-ms "
                        + delayMillis + ", at most 600000)");
            }
            if (rounds < 1 || rounds > 100) {
                throw new IllegalArgumentException("--rounds: " + rounds + " (accepted: 1 to 100)");
            }
            if (rampMillis < 0 || rampMillis > 600_000) {
                throw new IllegalArgumentException("--ramp-ms: " + rampMillis + " (accepted: 0 to 600000)");
            }
            if (warmupMillis < 0 || warmupMillis > 600_000) {
                throw new IllegalArgumentException("--warmup-ms: " + warmupMillis + " (accepted: 0 to 600000)");
            }
            if (maxThreads < 8) {
                throw new IllegalArgumentException("--max-threads: " + maxThreads + " (accepted: at least 8)");
            }
        }

        /**
         * 10,000 inbound × C = 10 over 2 stub processes, 128 streams a connection, 20 s partners, 40 s deadline, 2
         * rounds, connections opened over 5 s, a 5 s warm-up, a server pool of 64 threads.
         */
        public static Settings defaults() {
            return new Settings(10_000, 10, 2, 128, 20_000, 40_000, 2, 5_000, 5_000, 64, List.of(),
                    Path.of(System.getProperty("rc10k.mashup.jar", MashupProcess.DEFAULT_JAR.toString())),
                    Path.of(System.getProperty("rc10k.stubs.jar", StubProcess.DEFAULT_JAR.toString())));
        }

        public long outbound() {
            return (long) inbound * calls;
        }

        /** The calls partner {@code p} (0-based) gets per mashup. */
        int callsTo(int p) {
            return calls / partners + (p < calls % partners ? 1 : 0);
        }

        /** The h2c connections partner {@code p} needs for all its streams at once, and two to spare. */
        int connectionsTo(int p) {
            return (int) ((long) inbound * callsTo(p) / streams) + 2;
        }

        int partnerConnections() {
            int sum = 0;
            for (int p = 0; p < partners; p++) {
                sum += connectionsTo(p);
            }
            return sum;
        }

        /**
         * How long the clients keep sending: each connection's next request goes as soon as its answer is in,
         * about a delay apart, so {@code rounds} requests need the ramp and a little over {@code rounds - 1} delays.
         */
        long sendMillis() {
            return rampMillis + (rounds - 1) * delayMillis + delayMillis / 2;
        }
    }

    private Outbound100k() {
    }

    /** Starts the processes, runs the load, and stops everything it started, whatever happened. */
    public static OutboundReport run(Settings settings) throws Exception {
        for (Path jar : List.of(settings.mashupJar(), settings.stubJar())) {
            if (!Files.isRegularFile(jar)) {
                throw new IOException("no jar at " + jar.toAbsolutePath() + "; build first with "
                        + "./mvnw -q package -DskipTests (or pass --mashup-jar, --stub-jar)");
            }
        }
        checkOpenFiles(settings);
        List<StubProcess> stubs = new ArrayList<>();
        Path definitions = Files.createTempFile("outbound-", ".json");
        try {
            for (int p = 0; p < settings.partners(); p++) {
                // The stubs' idle timeout would otherwise end a stream that waits longer than it for its answer.
                stubs.add(StubProcess.start(settings.stubJar(), List.of(), List.of("--h2c", "--max-streams",
                        Integer.toString(settings.streams()), "--idle-timeout",
                        Long.toString(settings.deadlineMillis() + 10_000))));
            }
            Files.writeString(definitions, OutboundDefinitions.json(settings,
                    stubs.stream().map(StubProcess::uri).toList()));
            int adminPort = ServerProcess.freePort();
            try (MashupProcess server = MashupProcess.start(settings.mashupJar(), settings.jvmArgs(), List.of(
                    "--config", definitions.toString(), "--mode", "async", "--max-inflight",
                    Integer.toString(settings.inbound()), "--max-threads", Integer.toString(settings.maxThreads()),
                    "--admin-port", Integer.toString(adminPort)))) {
                return new OutboundRun(settings, server, adminPort, stubs).call();
            }
        } finally {
            stubs.forEach(StubProcess::close);
            Files.deleteIfExists(definitions);
        }
    }

    /** This JVM and the server (which inherits the limit) each hold N sockets; say plainly when that cannot be. */
    private static void checkOpenFiles(Settings settings) {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean os) {
            long need = settings.inbound() + settings.partnerConnections() + 512L;
            long have = os.getMaxFileDescriptorCount();
            if (have < need) {
                throw new IllegalStateException(String.format(Locale.ROOT, "--inbound %d holds %d connections in this "
                        + "JVM and %d sockets in the mashup server, but the open-file limit is %d; raise it (ulimit -n %d "
                        + "or more) or lower --inbound", settings.inbound(), settings.inbound(),
                        settings.inbound() + settings.partnerConnections(), have, need));
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Settings d = Settings.defaults();
        int inbound = d.inbound();
        int calls = d.calls();
        int partners = d.partners();
        int streams = d.streams();
        long delay = d.delayMillis();
        Long deadline = null;
        int rounds = d.rounds();
        long ramp = d.rampMillis();
        long warmup = d.warmupMillis();
        int maxThreads = d.maxThreads();
        List<String> jvmArgs = new ArrayList<>();
        Path mashupJar = d.mashupJar();
        Path stubJar = d.stubJar();
        CommandLine line = new CommandLine("outbound-100k", USAGE, args);
        while (line.next()) {
            switch (line.option()) {
                case "--inbound" -> inbound = line.intValue();
                case "--calls" -> calls = line.intValue();
                case "--partners" -> partners = line.intValue();
                case "--streams" -> streams = line.intValue();
                case "--delay-ms" -> delay = line.longValue();
                case "--deadline-ms" -> deadline = line.longValue();
                case "--rounds" -> rounds = line.intValue();
                case "--ramp-ms" -> ramp = line.longValue();
                case "--warmup-ms" -> warmup = line.longValue();
                case "--max-threads" -> maxThreads = line.intValue();
                case "--jvm-arg" -> jvmArgs.add(line.value());
                case "--mashup-jar" -> mashupJar = line.path();
                case "--stub-jar" -> stubJar = line.path();
                default -> line.unknown();
            }
        }
        Settings settings;
        try {
            settings = new Settings(inbound, calls, partners, streams, delay, deadline != null ? deadline : 2 * delay,
                    rounds, ramp, warmup, maxThreads, jvmArgs, mashupJar, stubJar);
        } catch (IllegalArgumentException e) {
            throw line.fail(e.getMessage());
        }
        OutboundReport report = run(settings);
        System.out.println();
        System.out.print(report.table());
        System.exit(report.passed() ? 0 : 1);
    }
}
