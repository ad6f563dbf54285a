package io.rc10k.experiments;

import io.rc10k.harness.CommandLine;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The experiments of the RC10K paper, run with JMeter against the real jars; one command each, from
 * the repository root after {@code ./mvnw -q package -DskipTests}:
 *
 * <pre>
 * java -jar jmeter-plans/target/experiments.jar thread-count   # Fig. 4 + Table 2 + the cap law, ~30 min
 * java -jar jmeter-plans/target/experiments.jar open-model     # Fig. 5, ~25 min
 * java -jar jmeter-plans/target/experiments.jar reactor-surface   # the Reactor-model study's surface, hours
 * </pre>
 *
 * Exit status: 0 when every check held, 1 when a check failed (the results are written either
 * way), 2 for a bad option or an operating-system limit that is too low, 3 when a run failed (a
 * server that did not start, JMeter that did not finish).
 */
public final class Experiments {
    private static final String USAGE = """
            thread-count|open-model|reactor-surface [options]   (run as java -jar jmeter-plans/target/experiments.jar)
              common:
                --help                 print this and exit
                --version              print the version and exit
                --out DIR              where results go (default docs/results)
                --root DIR             the repository root (default .)
                --jmeter-home DIR      a JMeter 5.6 installation (default jmeter-plans/engine/target/jmeter)
                --modes LIST           default sync,async,virtual (thread-count), async,virtual,sync (open-model)
              thread-count (closed model, /mashup/paper, configs/paper.json):
                --users LIST           default 10,30,50,70,90,200,500,1000,2000
                --pool N               also run sync on a fixed pool of N threads (default 100, 0 = no)
                --rampup S --settle S --window S    default 5, 5, 20 seconds per point
              open-model (configs/c6-h2c.json, /mashup/c6):
                --config FILE          definitions (default c6-h2c.json: partner calls as h2c streams;
                                       c6.json: the same over HTTP/1.1, a connection per call)
                --path PATH            the mashup (default /mashup/c6)
                --inter-arrivals LIST  seconds (default 0.04,0.02,0.01,0.005,0.004,0.003,0.002)
                --phase-seconds S      default 60
                --max-inflight N       the server's admission limit (default 0: the server's own, derived
                                       from the open-file limit, at most 10,000)
              reactor-surface (no JMeter: a closed-loop NIO client, docs/results/reactor-surface.md):
                --models LIST          srst,srmt,mrmt (default all three)
                --selectors LIST       MRMT's selector counts (default 1,2,4)
                --threads LIST         worker threads of SRMT and MRMT (default 1,2,4,8,16,32,64,128)
                --micros LIST          business time, µs (default 0,100,...,1000,5000,50000)
                --kinds LIST           sleep,cpu,c1,c6 (default all four)
                --connections LIST     keep-alive,close (default both)
                --clients N            concurrent clients (default 10000, at most 19000)
                --warmup-ms MS --measure-ms MS    per point (default 1000, 3000)
                --append               keep the points already in reactor-surface.csv; files drawn from all
            """;
    private static String provenance = "";

    private Experiments() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args));
    }

    /** Runs one experiment; returns the exit status (that of {@code --help}, {@code --version} or a bad line too). */
    public static int run(String... args) throws Exception {
        // Stubs, servers and JMeter are child processes: none outlives the harness, however it ends.
        Thread reaper = new Thread(() -> ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly),
                "experiments-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
        try {
            return runChecked(args);
        } catch (Ended e) {
            return e.status;
        } catch (IOException e) {
            System.err.println("experiments: the run failed: " + e.getMessage());
            return 3;
        } finally {
            Runtime.getRuntime().removeShutdownHook(reaper);
        }
    }

    /** How the command line ends {@link #run}: with a status, not with the JVM (the *IT tests call it). */
    private static final class Ended extends RuntimeException {
        private final int status;

        Ended(int status) {
            super(null, null, false, false);
            this.status = status;
        }
    }

    private static int runChecked(String... args) throws Exception {
        CommandLine line = new CommandLine("experiments", USAGE, args,
                new CommandLine.Console(System.out, System.err, status -> {
                    throw new Ended(status);
                }));
        String experiment = null;
        Path root = Path.of(".");
        Path out = null;
        Path jmeterHome = null;
        List<String> modeList = null;
        List<Integer> users = List.of(10, 30, 50, 70, 90, 200, 500, 1000, 2000);
        int pool = 100;
        int rampup = 5;
        int settle = 5;
        int window = 20;
        String config = "c6-h2c.json";
        String path = "/mashup/c6";
        List<Double> interArrivals = List.of(0.04, 0.02, 0.01, 0.005, 0.004, 0.003, 0.002);
        int phaseSeconds = 60;
        int maxInFlight = 0;
        List<String> models = ReactorServer.MODELS;
        List<Integer> selectors = List.of(1, 2, 4);
        List<Integer> threads = List.of(1, 2, 4, 8, 16, 32, 64, 128);
        List<Integer> micros = List.of(0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 5000, 50000);
        List<String> kinds = ReactorSurfaceExperiment.KINDS;
        List<String> connections = List.of("keep-alive", "close");
        int clients = 10_000;
        long warmupMillis = 1_000;
        long measureMillis = 3_000;
        boolean append = false;
        while (line.next()) {
            switch (line.option()) {
                case "thread-count", "open-model", "reactor-surface" -> experiment = line.option();
                case "--out" -> out = line.path();
                case "--root" -> root = line.path();
                case "--jmeter-home" -> jmeterHome = line.path();
                case "--modes" -> modeList = line.list();
                case "--users" -> users = positive(line, line.intList());
                case "--pool" -> pool = line.intValue();
                case "--rampup" -> rampup = positive(line, line.intValue());
                case "--settle" -> settle = positive(line, line.intValue());
                case "--window" -> window = positive(line, line.intValue());
                case "--config" -> config = line.value();
                case "--path" -> path = line.value();
                case "--inter-arrivals" -> interArrivals = positive(line, line.doubleList());
                case "--phase-seconds" -> phaseSeconds = positive(line, line.intValue());
                case "--max-inflight" -> maxInFlight = line.intValue();
                case "--models" -> models = line.list();
                case "--selectors" -> selectors = positive(line, line.intList());
                case "--threads" -> threads = positive(line, line.intList());
                case "--micros" -> micros = line.intList();
                case "--kinds" -> kinds = line.list();
                case "--connections" -> connections = line.list();
                case "--clients" -> clients = line.intValue();
                case "--warmup-ms" -> warmupMillis = line.longValue();
                case "--measure-ms" -> measureMillis = positive(line, line.longValue());
                case "--append" -> append = true;
                default -> line.unknown("thread-count, open-model, reactor-surface");
            }
        }
        if (experiment == null) {
            throw line.fail("no experiment named (accepted: thread-count, open-model, reactor-surface)");
        }
        if (maxInFlight < 0) {
            throw line.fail("--max-inflight", maxInFlight + " (accepted: 0 for the server's own, or at least 1)");
        }
        if (pool < 0) {
            throw line.fail("--pool", pool + " (accepted: numbers > 0, or 0 for no fixed-pool sweep)");
        }
        if (out == null) {
            out = root.resolve("docs").resolve("results");
        }
        if (experiment.equals("reactor-surface")) {
            for (String c : connections) {
                if (!List.of("keep-alive", "close").contains(c)) {
                    throw line.fail("--connections", c + " (accepted: keep-alive, close)");
                }
            }
            ReactorSurfaceExperiment.Settings settings;
            try {
                settings = new ReactorSurfaceExperiment.Settings(models, selectors, threads, micros, kinds,
                        connections.stream().map("keep-alive"::equals).toList(), clients, warmupMillis, measureMillis);
            } catch (IllegalArgumentException e) {
                throw line.fail(e.getMessage());
            }
            return reactorSurface(new Lab(root, out, null), settings, append, args);
        }
        if (jmeterHome == null) {
            jmeterHome = root.resolve("jmeter-plans").resolve("engine").resolve("target").resolve("jmeter");
        }
        List<String> askedModes = modeList != null ? modeList
                : experiment.equals("open-model") ? List.of("async", "virtual", "sync")
                : List.of("sync", "async", "virtual");
        List<String> modes = new ArrayList<>(askedModes);
        for (String mode : modes) {
            if (!List.of("sync", "async", "virtual").contains(mode)) {
                throw line.fail("--modes", mode + " (accepted: sync, async, virtual)");
            }
        }
        Lab lab = new Lab(root, out, new JMeter(jmeterHome));
        if (modes.remove("virtual") && !Lab.virtualThreadsAvailable()) {
            System.out.println("virtual mode skipped: it needs JDK 21 or newer; this is " + Runtime.version()
                    + " (run the harness with a newer java to include it)");
        } else if (askedModes.contains("virtual")) {
            modes.add(Math.min(modes.size(), askedModes.indexOf("virtual")), "virtual");
        }
        if (modes.isEmpty()) {
            System.err.println("experiments: no mode left to run");
            return 2;
        }
        provenance = "Machine: " + Lab.machine() + ". Run " + Instant.now().truncatedTo(ChronoUnit.SECONDS)
                + " with:\n\n    java -jar jmeter-plans/target/experiments.jar " + String.join(" ", args) + "\n";
        System.out.println("RC10K " + experiment + " on " + Lab.machine());
        System.out.println("operating-system limits:");
        List<String> failed;
        if (experiment.equals("thread-count")) {
            ThreadCountExperiment.Settings settings = new ThreadCountExperiment.Settings(users, modes, pool, rampup,
                    settle, window);
            int n = settings.users().stream().mapToInt(Integer::intValue).max().orElse(0);
            // Sync: the server holds N inbound and 2N partner sockets, N + 2N threads; JMeter N threads and sockets.
            List<String> problems = OsLimits.check(3L * n + 1_000, 3L * n, 4L * n + 1_000);
            if (!problems.isEmpty()) {
                problems.forEach(p -> System.err.println("experiments: " + p));
                return 2;
            }
            failed = new ThreadCountExperiment(lab, settings).run();
        } else {
            OpenModelExperiment.Settings settings = new OpenModelExperiment.Settings(modes, config, path,
                    interArrivals, phaseSeconds, maxInFlight);
            double fastest = settings.interArrivals().stream().mapToDouble(Double::doubleValue).min().orElse(1);
            // Requests are taken to be held for half their deadline: c6.json's calls take 5 s of its 10 s.
            long inbound = (long) Math.ceil(OpenModelExperiment.deadline(lab.config(settings.config())) / 2000.0
                    / fastest);
            boolean h2c = settings.config().contains("h2c");
            // At most a deadline's worth of arrivals in flight, 6 calls each (multiplexed over few sockets in h2c).
            long outboundSockets = h2c ? 1_000 : 6 * inbound;
            List<String> problems = OsLimits.check(inbound + outboundSockets + 1_000, inbound + outboundSockets,
                    modes.contains("sync") ? 7 * inbound + 2_000 : inbound + 2_000);
            if (!problems.isEmpty()) {
                problems.forEach(p -> System.err.println("experiments: " + p));
                return 2;
            }
            failed = new OpenModelExperiment(lab, settings).run();
        }
        System.out.println();
        if (failed.isEmpty()) {
            System.out.println("every check held; results in " + out);
            return 0;
        }
        System.out.println(failed.size() + " check(s) failed (results in " + out + "):");
        failed.forEach(f -> System.out.println("  " + f));
        return 1;
    }

    private static int reactorSurface(Lab lab, ReactorSurfaceExperiment.Settings settings, boolean append,
            String... args) throws IOException {
        provenance = "Machine: " + Lab.machine() + ". Run " + Instant.now().truncatedTo(ChronoUnit.SECONDS)
                + " with:\n\n    java -jar jmeter-plans/target/experiments.jar " + String.join(" ", args) + "\n";
        System.out.println("RC10K reactor-surface on " + Lab.machine());
        System.out.println("operating-system limits:");
        // Each client is a socket here and one in the server; the server holds a few partner connections besides.
        List<String> problems = OsLimits.check(settings.clients() + 500L, settings.clients(), 1_000);
        if (!problems.isEmpty()) {
            problems.forEach(p -> System.err.println("experiments: " + p));
            return 2;
        }
        List<ReactorSurfaceExperiment.Point> points = new ArrayList<>(append ? ReactorSurfaceReport.read(lab.out())
                : List.of());
        try {
            new ReactorSurfaceExperiment(lab, settings).run(points);
        } finally {
            // A run that failed part-way keeps what it measured.
            new ReactorSurfaceReport(points).write(lab.out(), provenance);
        }
        ReactorSurfaceReport report = new ReactorSurfaceReport(points);
        System.out.println();
        if (report.checks().isEmpty()) {
            System.out.println("every check held; results in " + lab.out());
            return 0;
        }
        System.out.println(report.checks().size() + " check(s) failed (results in " + lab.out() + "):");
        report.checks().forEach(f -> System.out.println("  " + f));
        return 1;
    }

    /** Machine, date and command of the running experiment, for the head of each results file. */
    static String provenance() {
        return provenance;
    }

    /** The value just read, if every number in it is above 0; otherwise a bad line naming the option. */
    private static <T> T positive(CommandLine line, T value) {
        List<?> numbers = value instanceof List<?> list ? list : List.of(value);
        for (Object n : numbers) {
            if (!(((Number) n).doubleValue() > 0)) {
                throw line.fail(line.option(), value + " (accepted: numbers > 0)");
            }
        }
        return value;
    }
}
