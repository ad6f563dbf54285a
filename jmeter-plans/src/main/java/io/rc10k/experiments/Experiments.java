package io.rc10k.experiments;

import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The experiments of the RC10K paper, run with JMeter against the real jars; one command each, from
 * the repository root after {@code ./mvnw -q package -DskipTests}:
 *
 * <pre>
 * java -jar jmeter-plans/target/experiments.jar thread-count   # Fig. 4 + Table 2 + the cap law, ~30 min
 * java -jar jmeter-plans/target/experiments.jar open-model     # Fig. 5, ~25 min
 * </pre>
 *
 * Exit status: 0 when every check held, 1 when a check failed (the results are written either
 * way), 2 for a bad option or an operating-system limit that is too low, 3 when a run failed (a
 * server that did not start, JMeter that did not finish).
 */
public final class Experiments {
    private static final String USAGE = """
            usage: java -jar jmeter-plans/target/experiments.jar thread-count|open-model [options]
              common:
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
            """;
    private static String provenance = "";

    private Experiments() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args));
    }

    /** Runs one experiment; returns the exit status. */
    public static int run(String... args) throws Exception {
        // Stubs, servers and JMeter are child processes: none outlives the harness, however it ends.
        Thread reaper = new Thread(() -> ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly),
                "experiments-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
        try {
            return runChecked(args);
        } catch (NumberFormatException e) {
            System.err.println("experiments: not a number: " + e.getMessage() + "\n" + USAGE);
            return 2;
        } catch (java.io.IOException e) {
            System.err.println("experiments: the run failed: " + e.getMessage());
            return 3;
        } finally {
            Runtime.getRuntime().removeShutdownHook(reaper);
        }
    }

    private static int runChecked(String... args) throws Exception {
        if (args.length == 0 || !List.of("thread-count", "open-model").contains(args[0])) {
            System.err.print(USAGE);
            return 2;
        }
        Map<String, String> options = new TreeMap<>();
        for (int i = 1; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 == args.length) {
                System.err.println("experiments: " + args[i] + ": expected --option value\n" + USAGE);
                return 2;
            }
            options.put(args[i].substring(2), args[++i]);
        }
        List<String> known = List.of("out", "root", "jmeter-home", "modes", "users", "pool", "rampup", "settle",
                "window", "config", "path", "inter-arrivals", "phase-seconds");
        for (String name : options.keySet()) {
            if (!known.contains(name)) {
                System.err.println("experiments: unknown option --" + name + "\n" + USAGE);
                return 2;
            }
        }
        for (String name : List.of("users", "pool", "rampup", "settle", "window", "inter-arrivals", "phase-seconds")) {
            String value = options.get(name);
            if (value != null && Arrays.stream(value.split(",")).anyMatch(v -> !(Double.parseDouble(v.trim()) > 0)
                    && !(name.equals("pool") && Double.parseDouble(v.trim()) == 0))) {
                System.err.println("experiments: --" + name + ": " + value + " (accepted: numbers > 0"
                        + (name.equals("pool") ? ", or 0 for no fixed-pool sweep" : "") + ")");
                return 2;
            }
        }
        Path root = Path.of(options.getOrDefault("root", "."));
        Path out = Path.of(options.getOrDefault("out", root.resolve("docs").resolve("results").toString()));
        Lab lab = new Lab(root, out, new JMeter(Path.of(options.getOrDefault("jmeter-home",
                root.resolve("jmeter-plans").resolve("engine").resolve("target").resolve("jmeter").toString()))));
        String defaultModes = args[0].equals("open-model") ? "async,virtual,sync" : "sync,async,virtual";
        List<String> modes = new ArrayList<>(Arrays.asList(options.getOrDefault("modes", defaultModes).split(",")));
        for (String mode : modes) {
            if (!List.of("sync", "async", "virtual").contains(mode)) {
                System.err.println("experiments: --modes: " + mode + " (accepted: sync, async, virtual)");
                return 2;
            }
        }
        if (modes.remove("virtual") && !Lab.virtualThreadsAvailable()) {
            System.out.println("virtual mode skipped: it needs JDK 21 or newer; this is " + Runtime.version()
                    + " (run the harness with a newer java to include it)");
        } else if (options.getOrDefault("modes", defaultModes).contains("virtual")) {
            modes.add(Math.min(modes.size(), List.of(options.getOrDefault("modes", defaultModes).split(","))
                    .indexOf("virtual")), "virtual");
        }
        if (modes.isEmpty()) {
            System.err.println("experiments: no mode left to run");
            return 2;
        }
        provenance = "Machine: " + Lab.machine() + ". Run " + Instant.now().truncatedTo(ChronoUnit.SECONDS)
                + " with:\n\n    java -jar jmeter-plans/target/experiments.jar " + String.join(" ", args) + "\n";
        System.out.println("RC10K " + args[0] + " on " + Lab.machine());
        System.out.println("operating-system limits:");
        List<String> failed;
        if (args[0].equals("thread-count")) {
            ThreadCountExperiment.Settings settings = new ThreadCountExperiment.Settings(
                    ints(options.getOrDefault("users", "10,30,50,70,90,200,500,1000,2000")), modes,
                    Integer.parseInt(options.getOrDefault("pool", "100")),
                    Integer.parseInt(options.getOrDefault("rampup", "5")),
                    Integer.parseInt(options.getOrDefault("settle", "5")),
                    Integer.parseInt(options.getOrDefault("window", "20")));
            int n = settings.users().stream().mapToInt(Integer::intValue).max().orElse(0);
            // Sync: the server holds N inbound and 2N partner sockets, N + 2N threads; JMeter N threads and sockets.
            List<String> problems = OsLimits.check(3L * n + 1_000, 3L * n, 4L * n + 1_000);
            if (!problems.isEmpty()) {
                problems.forEach(p -> System.err.println("experiments: " + p));
                return 2;
            }
            failed = new ThreadCountExperiment(lab, settings).run();
        } else {
            OpenModelExperiment.Settings settings = new OpenModelExperiment.Settings(modes,
                    options.getOrDefault("config", "c6-h2c.json"), options.getOrDefault("path", "/mashup/c6"),
                    doubles(options.getOrDefault("inter-arrivals", "0.04,0.02,0.01,0.005,0.004,0.003,0.002")),
                    Integer.parseInt(options.getOrDefault("phase-seconds", "60")));
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

    /** Machine, date and command of the running experiment, for the head of each results file. */
    static String provenance() {
        return provenance;
    }

    private static List<Integer> ints(String list) {
        return Arrays.stream(list.split(",")).map(String::trim).map(Integer::parseInt).toList();
    }

    private static List<Double> doubles(String list) {
        return Arrays.stream(list.split(",")).map(String::trim).map(Double::parseDouble).toList();
    }
}
