package io.rc10k.benchmarks.load;

import com.sun.management.OperatingSystemMXBean;
import io.rc10k.benchmarks.capacity.StubProcess;
import io.rc10k.harness.CommandLine;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A chaos soak: open-model load at a steady rate against a mashup server whose mashup calls four
 * partners, three of them a hostile partner in chaos mode (about 5 % of its answers one of its HTTP/1.1
 * misbehaviours, stalls longer than the deadline among them) and one well-behaved; each mode (async,
 * sync, virtual) in turn on a fresh server, for its share of the minutes. Per mode it checks that every
 * request was answered exactly once by its deadline + 50 ms, that nothing hung, that no partner
 * connection leaked, and that the live heap stayed flat ({@link ModeResult} says exactly how).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.load.ChaosSoak              # 30 min, 200/s
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.load.ChaosSoak --minutes 2 --warm-up-seconds 5
 * </pre>
 *
 * Run from the repository root after {@code ./mvnw -q package -DskipTests}, or name the jars with
 * {@code -Drc10k.stubs.jar=…} and {@code -Drc10k.mashup.jar=…}. The server and the partners run on this
 * JVM's {@code java}: virtual mode needs JDK 21+ and is skipped, saying so, on an older one. Exit 0 when
 * every check of every mode that ran held, 1 otherwise, 2 for a bad command line. Results:
 * docs/results/chaos-soak.md.
 */
public final class ChaosSoak {
    static final List<String> MODES = List.of("async", "sync", "virtual");

    private ChaosSoak() {
    }

    /**
     * Settings of one soak.
     *
     * @param minutes       the whole soak, shared equally by the modes asked for (warm-ups and drains come on top)
     * @param chaos         the chance that one hostile call misbehaves
     * @param warmUpSeconds load at the same rate before the first full GC of each mode, not measured for heap
     */
    public record Settings(double minutes, double rate, List<String> modes, double chaos, long deadlineMillis,
            long seed, int warmUpSeconds, Path mashupJar, Path stubsJar, long slackMillis) {
        public Settings {
            modes = List.copyOf(modes);
            if (!(minutes > 0)) {
                throw new IllegalArgumentException("--minutes: " + minutes + " (accepted: more than 0)");
            }
            if (!(rate > 0 && rate <= 10_000)) {
                throw new IllegalArgumentException("--rate: " + rate + " (accepted: more than 0, at most 10000 per s)");
            }
            if (modes.isEmpty() || !MODES.containsAll(modes) || modes.stream().distinct().count() != modes.size()) {
                throw new IllegalArgumentException("--modes: " + String.join(",", modes)
                        + " (accepted: one or more of async,sync,virtual, each once)");
            }
            if (!(chaos >= 0 && chaos <= 1)) {
                throw new IllegalArgumentException("--chaos: " + chaos + " (accepted: 0 to 1, e.g. 0.05)");
            }
            if (deadlineMillis < 1 || deadlineMillis > 60_000) {
                throw new IllegalArgumentException("--deadline-ms: " + deadlineMillis + " (accepted: 1 to 60000)");
            }
            if (slackMillis < 0) {
                throw new IllegalArgumentException("slack: " + slackMillis + " ms (accepted: 0 or more)");
            }
            if (warmUpSeconds < 1) {
                throw new IllegalArgumentException("--warm-up-seconds: " + warmUpSeconds + " (accepted: at least 1)");
            }
            if (secondsPerMode(minutes, modes) < 1) {
                throw new IllegalArgumentException("--minutes: " + minutes + " leaves less than 1 s per mode");
            }
        }

        /** 30 minutes at 200/s over the three modes, chaos 0.05, deadline 1 s, seed 42, 20 s of warm-up. */
        public static Settings defaults() {
            return new Settings(30, 200, MODES, 0.05, 1_000, 42, 20,
                    Path.of(System.getProperty("rc10k.mashup.jar", MashupProcess.DEFAULT_JAR.toString())),
                    Path.of(System.getProperty("rc10k.stubs.jar", StubProcess.DEFAULT_JAR.toString())),
                    ModeResult.ANSWER_SLACK_MILLIS);
        }

        /**
         * The same checks with {@code slackMillis} past the deadline allowed to an answer and to the drain,
         * instead of 50 ms: what the quick variant in the test suite uses, on a machine that may be busy with
         * the rest of the build. Counts (answered once, nothing hung or leaked, heap) stay exact.
         */
        public Settings withSlack(long slackMillis) {
            return new Settings(minutes, rate, modes, chaos, deadlineMillis, seed, warmUpSeconds, mashupJar, stubsJar,
                    slackMillis);
        }

        public Settings with(double minutes, int warmUpSeconds) {
            return new Settings(minutes, rate, modes, chaos, deadlineMillis, seed, warmUpSeconds, mashupJar, stubsJar,
                    slackMillis);
        }

        long secondsPerMode() {
            return secondsPerMode(minutes, modes);
        }

        private static long secondsPerMode(double minutes, List<String> modes) {
            return Math.round(minutes * 60 / modes.size());
        }
    }

    /** What a soak saw: one result per mode asked for, in order. */
    public static final class Report {
        private final List<ModeResult> modes;

        Report(List<ModeResult> modes) {
            this.modes = List.copyOf(modes);
        }

        /** The modes that ran (not skipped). */
        public List<String> modesRun() {
            return modes.stream().filter(ModeResult::ran).map(ModeResult::mode).toList();
        }

        /** Every failed check, one line each. */
        public List<String> failures() {
            return modes.stream().flatMap(m -> m.failures().stream()).toList();
        }

        public boolean passed() {
            return failures().isEmpty();
        }

        /** The table of docs/results/chaos-soak.md, then each mode's server-side counts. */
        public String table() {
            StringBuilder out = new StringBuilder(ModeResult.header()).append('\n');
            modes.forEach(m -> out.append(m.row()).append('\n'));
            for (ModeResult m : modes) {
                if (m.completed()) {
                    out.append(String.format(Locale.ROOT, "%s: server CPU %.0f %% of one core, the soak's processes "
                            + "%.0f %% of the machine, the machine %.0f %% busy; the composites' own elapsedMillis at most "
                            + "%d; live heap %.1f → %.1f MiB (allowed growth %.1f MiB), heap used after GC %.1f → %.1f "
                            + "MiB%n", m.mode(), m.cpu().serverPercentOfCore(), m.cpu().processesPercentOfMachine(),
                            m.cpu().machineBusyPercent(), m.soak().counts().maxServerElapsedMillis(),
                            m.heap().liveStart() / ModeResult.MIB, m.heap().liveEnd() / ModeResult.MIB,
                            m.heap().allowedGrowth() / ModeResult.MIB, m.heap().usedStart() / ModeResult.MIB,
                            m.heap().usedEnd() / ModeResult.MIB));
                    m.serverCounts().forEach((k, v) -> out.append(String.format(Locale.ROOT, "  %s %,d%n", k, v)));
                }
            }
            return out.toString();
        }
    }

    public static void main(String[] args) throws Exception {
        String usage = "--minutes M --rate R --modes async,sync,virtual --chaos P --deadline-ms D --seed N "
                + "--warm-up-seconds S --help --version";
        Settings d = Settings.defaults();
        double minutes = d.minutes();
        double rate = d.rate();
        List<String> modes = d.modes();
        double chaos = d.chaos();
        long deadline = d.deadlineMillis();
        long seed = d.seed();
        int warmUp = d.warmUpSeconds();
        CommandLine line = new CommandLine("chaos-soak", usage, args);
        while (line.next()) {
            switch (line.option()) {
                case "--minutes" -> minutes = line.doubleValue();
                case "--rate" -> rate = line.doubleValue();
                case "--modes" -> modes = line.list();
                case "--chaos" -> chaos = line.doubleValue();
                case "--deadline-ms" -> deadline = line.longValue();
                case "--seed" -> seed = line.longValue();
                case "--warm-up-seconds" -> warmUp = line.intValue();
                default -> line.unknown();
            }
        }
        Settings settings;
        try {
            settings = new Settings(minutes, rate, modes, chaos, deadline, seed, warmUp, d.mashupJar(), d.stubsJar(),
                    d.slackMillis());
        } catch (IllegalArgumentException e) {
            throw line.fail(e.getMessage());
        }
        Report report = run(settings);
        System.exit(report.passed() ? 0 : 1);
    }

    /** Runs every mode of {@code settings} in turn and prints the table and every failure. */
    public static Report run(Settings settings) throws Exception {
        System.out.println("machine: " + Runtime.getRuntime().availableProcessors() + " cores, "
                + ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize()
                / (1L << 30) + " GiB, JDK " + Runtime.version() + " (" + System.getProperty("java.home") + ")");
        System.out.printf(Locale.ROOT, "chaos soak: %.0f requests/s, %d s per mode of %s, chaos %.3f, seed %d, "
                + "deadline %d ms, warm-up %d s%n", settings.rate(), settings.secondsPerMode(), settings.modes(),
                settings.chaos(), settings.seed(), settings.deadlineMillis(), settings.warmUpSeconds());
        List<CompletableFuture<ModeResult>> pending = new ArrayList<>();
        HttpClient client = loadClient();
        try (ChaosPartners partners = ChaosPartners.start(settings.stubsJar(), settings.chaos(), settings.seed(),
                settings.deadlineMillis())) {
            Path definitions = partners.writeDefinitions(settings.deadlineMillis());
            System.out.println("partners: hostile (chaos " + settings.chaos() + ", stall cap " + partners.maxStallMillis()
                    + " ms) × 3 calls, partner-stubs × 1 call; partner idle timeout "
                    + ChaosPartners.PARTNER_IDLE_MILLIS + " ms");
            for (String mode : settings.modes()) {
                pending.add(runMode(mode, settings, definitions, partners.pids(), client));
            }
            List<ModeResult> results = new ArrayList<>();
            for (int i = 0; i < pending.size(); i++) {
                results.add(outcome(settings.modes().get(i), pending.get(i)));
            }
            Report report = new Report(results);
            System.out.println();
            System.out.print(report.table());
            List<String> failures = report.failures();
            System.out.println(!failures.isEmpty() ? "chaos soak: FAILED\n  " + String.join("\n  ", failures)
                    : report.modesRun().isEmpty() ? "chaos soak: no mode ran (each was skipped)"
                    : "chaos soak: every check held in " + report.modesRun());
            return report;
        } finally {
            client.stop();
        }
    }

    private static CompletableFuture<ModeResult> runMode(String mode, Settings settings, Path definitions,
            List<Long> partnerPids, HttpClient client) {
        if (mode.equals("virtual") && Runtime.version().feature() < 21) {
            String why = "skipped: JDK " + Runtime.version() + " has no virtual threads (JDK 21+ runs them)";
            System.out.println("chaos-soak virtual: " + why + "; the server runs on this JVM's java, so run the soak "
                    + "on a JDK 21+ to include virtual mode");
            return CompletableFuture.completedFuture(ModeResult.skipped(mode, why));
        }
        try {
            return new SoakMode(mode, settings, definitions, partnerPids, client).run();
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** A mode that could not run to its end is a failure that names why, never a pass. */
    private static ModeResult outcome(String mode, CompletableFuture<ModeResult> pending) {
        try {
            return pending.join();
        } catch (RuntimeException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            System.out.println("chaos-soak " + mode + ": did not complete: " + cause);
            cause.printStackTrace(System.out);
            return ModeResult.incomplete(mode, String.valueOf(cause));
        }
    }

    /**
     * The load's client: connections enough for every request in flight, a pool of its own. It closes an idle
     * connection after 20 s, before the server's 30 s: with equal timeouts a request can go out on a connection
     * the server is closing just then, and the EOF that follows is the client's race, not the server's fault.
     */
    private static HttpClient loadClient() throws Exception {
        QueuedThreadPool pool = new QueuedThreadPool(32, 4);
        pool.setName("chaos-load");
        HttpClient client = new HttpClient();
        client.setExecutor(pool);
        client.setIdleTimeout(20_000);
        client.setMaxConnectionsPerDestination(4_096);
        client.setMaxRequestsQueuedPerDestination(65_536);
        client.start();
        return client;
    }
}
