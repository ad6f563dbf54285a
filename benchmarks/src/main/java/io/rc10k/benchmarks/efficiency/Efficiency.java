package io.rc10k.benchmarks.efficiency;

import com.sun.management.OperatingSystemMXBean;
import io.rc10k.benchmarks.capacity.StubProcess;
import io.rc10k.benchmarks.launch.Finish;
import io.rc10k.benchmarks.launch.Launch;
import io.rc10k.harness.CommandLine;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The efficiency experiment (docs/results/efficiency.md): the mashup server's CPU per mashup against a bare Jetty
 * hello-world's CPU per request, both under the same load generator in the same run on the same box:
 *
 * <pre>
 * efficiency = (1 + C) × CPU per hello ÷ CPU per mashup
 * </pre>
 *
 * A mashup of C calls handles 1 + C HTTP exchanges (one in, C out); were each as cheap as the bare
 * hello-world's, efficiency would be 1.0. Every server is a process of its own — mashup server
 * ({@code mashup-server.jar --config FILE --mode M --port 0}), partner stubs ({@code partner-stubs.jar
 * --port 0}, zero-delay {@code /stub}) and hello-world ({@link HelloServer}) — and its CPU is read
 * from {@code /proc/<pid>/stat} around each measured window, so the load generator's CPU never counts.
 * The stubs' CPU is not the mashup server's and is not counted either; it is shown per call, a second
 * yardstick beside the hello-world.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.efficiency.Efficiency
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.efficiency.Efficiency --calls 6 --modes async
 * </pre>
 *
 * Order: the hello-world is measured first and last (its two windows are pooled, so drift over the
 * run shows), and between them each mode's server in turn, for every C: warm-up windows until the CPU
 * per request settles (or {@code --warmup} ms have passed), then the measured window (both taken by
 * {@link Measurement}). The mashup server's access log is turned off: a line per request is an
 * operator's choice, not the mashup's cost. Exit status: 0 when every request was answered 200, 1 otherwise, 2 for a bad command line.
 */
public final class Efficiency {
    private static final Pattern HELLO_READY = Pattern.compile("hello ready on (http://\\S+)");

    /**
     * Settings of one run.
     *
     * @param load          how each window is taken: connections, longest warm-up, measured window
     * @param launch        the {@code java}, JVM options and jars of the mashup server and hello-world processes
     * @param helloBlocking declare the hello handler blocking (a dispatch per request, as a servlet has)
     * @param h2cPartners   call the partner stubs over h2c (C calls multiplexed on shared connections)
     *                      instead of HTTP/1.1 (one connection per call in flight)
     */
    public record Settings(List<Integer> calls, List<String> modes, Load load, Launch launch, boolean helloBlocking,
            boolean h2cPartners) {
        public Settings {
            calls = List.copyOf(calls);
            for (int c : calls) {
                if (c < 1 || c > 64) {
                    throw new IllegalArgumentException("--calls: " + c + " (accepted: 1 to 64)");
                }
            }
            modes = Launch.checkModes("--modes", modes);
        }

        /**
         * The defaults of the command line: C = 1, 6, 16; every mode this JDK runs; 8 connections; warm-up
         * until steady, at most 30 s; 10 s measured.
         */
        public static Settings defaults() {
            List<String> modes = Runtime.version().feature() >= 21 ? Launch.MODES : List.of("async", "sync");
            return new Settings(List.of(1, 6, 16), modes, new Load(8, 30_000, 10_000), Launch.defaults(), false,
                    false);
        }
    }

    /**
     * One measured window against one server. {@code stubCpuMillis} is the partner stubs' CPU in the
     * same window (0 for the hello-world, which calls no partner); {@code warmupMillis} how long the
     * warm-up before it ran, and {@code steady} whether it ended because the cost had settled.
     */
    public record Window(String server, String mode, int calls, long requests, long failed, String firstFailure,
            long userMillis, long systemMillis, long stubCpuMillis, long elapsedNanos, long warmupMillis,
            boolean steady) {
        /** The server's CPU time in the window, user and system. */
        public long cpuMillis() {
            return userMillis + systemMillis;
        }

        public double cpuMicrosPerRequest() {
            return cpuMillis() * 1000.0 / requests;
        }

        /** The kernel's share of the server's CPU: system calls, wake-ups, loopback TCP. */
        public double systemPercent() {
            return 100.0 * systemMillis / Math.max(1, cpuMillis());
        }

        public double perSecond() {
            return requests * 1e9 / elapsedNanos;
        }

        /** Every request answered 200, and the server's CPU seen: a window whose figures count. */
        public boolean clean() {
            return failed == 0 && requests > 0 && cpuMillis() > 0;
        }
    }

    /** The hello-world's windows (first and last) and one window per mode and C. */
    public record Report(Settings settings, String machine, List<Window> hello, List<Window> mashups)
            implements Finish.Result {
        /** CPU per hello, pooled over its windows. */
        public double helloCpuMicros() {
            long cpu = hello.stream().mapToLong(Window::cpuMillis).sum();
            long requests = hello.stream().mapToLong(Window::requests).sum();
            return cpu * 1000.0 / requests;
        }

        public double efficiency(Window mashup) {
            return (1 + mashup.calls()) * helloCpuMicros() / mashup.cpuMicrosPerRequest();
        }

        @Override
        public boolean passed() {
            return List.of(hello, mashups).stream().flatMap(List::stream).allMatch(Window::clean);
        }

        @Override
        public String table() {
            StringBuilder out = new StringBuilder();
            out.append("| server | mode | C | warm-up s | requests | failed | requests/s | server CPU ms "
                    + "| CPU µs per request | of which system | efficiency | stub CPU µs per call |\n"
                    + "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
            for (Window w : hello) {
                out.append(row(w, "—", "—"));
            }
            for (Window w : mashups) {
                out.append(row(w, String.format(Locale.ROOT, "%.2f", efficiency(w)),
                        String.format(Locale.ROOT, "%.1f", w.stubCpuMillis() * 1000.0 / (w.requests() * w.calls()))));
            }
            out.append(String.format(Locale.ROOT, "hello CPU per request, pooled: %.1f µs%n", helloCpuMicros()));
            return out.toString();
        }

        private static String row(Window w, String efficiency, String stub) {
            return String.format(Locale.ROOT, "| %s | %s | %s | %.0f%s | %,d | %,d | %,.0f | %,d | %.1f | %.0f %% | %s "
                            + "| %s |%n",
                    w.server(), w.mode(), w.calls() == 0 ? "—" : Integer.toString(w.calls()),
                    w.warmupMillis() / 1000.0, w.steady() ? "" : " (not steady)", w.requests(),
                    w.failed(), w.perSecond(), w.cpuMillis(), w.cpuMicrosPerRequest(), w.systemPercent(), efficiency,
                    stub)
                    + (w.firstFailure() == null ? "" : "  first failure: " + w.firstFailure() + "\n");
        }
    }

    private Efficiency() {
    }

    public static Report run(Settings settings) throws Exception {
        Launch launch = settings.launch();
        launch.requireJars(true);
        String machine = machine(settings);
        System.out.println("machine: " + machine);
        List<Window> hello = new ArrayList<>();
        List<Window> mashups = new ArrayList<>();
        Path definitions = Files.createTempFile("efficiency-", ".json");
        try (StubProcess stubs = StubProcess.start(launch.stubJar(), List.of(),
                settings.h2cPartners() ? List.of("--h2c") : List.of());
                ServerProcess helloServer = startHello(launch, settings.helloBlocking())) {
            Files.writeString(definitions, definitionsJson(stubs.uri(), settings.calls(), settings.h2cPartners()));
            Load load = settings.load();
            Measurement measurement = new Measurement(load.connections(), load.warmupMillis(), load.measureMillis());
            hello.add(measurement.measure(helloServer, null, helloServer.uri(), "hello", "—", 0));
            for (String mode : settings.modes()) {
                try (ServerProcess server = startMashup(launch, definitions, mode)) {
                    for (int c : settings.calls()) {
                        mashups.add(measurement.measure(server, stubs, server.uri().resolve("/mashup/c" + c),
                                "mashup", mode, c));
                    }
                }
            }
            hello.add(measurement.measure(helloServer, null, helloServer.uri(), "hello", "—", 0));
        } finally {
            Files.deleteIfExists(definitions);
        }
        return new Report(settings, machine, hello, mashups);
    }

    /** The hello-world on the launch's {@code java} and JVM options, ready to measure; {@code blocking}: see --blocking. */
    public static ServerProcess startHello(Launch launch, boolean blocking) throws IOException {
        return ServerProcess.start("hello", launch.command(HelloServer.class, blocking
                ? List.of("--port", "0", "--blocking") : List.of("--port", "0")), HELLO_READY);
    }

    /** The mashup server in {@code mode} on the launch's {@code java} and JVM options, access log off. */
    public static ServerProcess startMashup(Launch launch, Path definitions, String mode) throws IOException {
        return launch.startMashup("mashup-" + mode, definitions, List.of("--mode", mode));
    }

    /** One partner (the stubs) and one mashup per C, {@code /mashup/c<C>}, whose calls all GET {@code /stub}. */
    public static String definitionsJson(URI stubs, List<Integer> calls, boolean h2c) {
        StringBuilder json = new StringBuilder("{\"partners\":{\"stub\":{\"baseUri\":\"" + stubs
                + "\",\"maxConnections\":256" + (h2c ? ",\"protocol\":\"h2c\"" : "") + "}},\"mashups\":{");
        List<Integer> distinct = calls.stream().distinct().toList();
        for (int i = 0; i < distinct.size(); i++) {
            int c = distinct.get(i);
            json.append(i > 0 ? "," : "").append("\"c").append(c).append("\":{\"calls\":[");
            for (int k = 1; k <= c; k++) {
                json.append(k > 1 ? "," : "").append("{\"name\":\"p").append(k)
                        .append("\",\"partner\":\"stub\",\"template\":\"/stub\"}");
            }
            json.append("]}");
        }
        return json.append("}}").toString();
    }

    private static String machine(Settings settings) {
        long memory = ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        Launch launch = settings.launch();
        Load load = settings.load();
        return String.format(Locale.ROOT, "%d cores, %d GiB, servers on %s%s (this JVM: %s); load: %d connections, "
                        + "warm-up at most %d ms, measure %d ms per window; partners over %s; hello handler %s",
                Runtime.getRuntime().availableProcessors(), memory >> 30, launch.java(),
                launch.jvmArgs().isEmpty() ? "" : " " + launch.jvmArgs(), Runtime.version(), load.connections(),
                load.warmupMillis(), load.measureMillis(), settings.h2cPartners() ? "h2c" : "HTTP/1.1",
                settings.helloBlocking() ? "blocking" : "non-blocking");
    }

    private static final String USAGE = "--calls 1,6,16 --modes async,sync,virtual --connections N --warmup MS "
            + "--measure MS --mashup-jar PATH --stub-jar PATH --benchmarks-jar PATH --java PATH --jvm-arg ARG (repeatable) "
            + "--hello-blocking --h2c-partners --help --version";

    public static void main(String[] args) throws Exception {
        Settings d = Settings.defaults();
        List<Integer> calls = d.calls();
        List<String> modes = d.modes();
        boolean helloBlocking = false;
        boolean h2cPartners = false;
        Load.Reader load = Load.reader(d.load());
        Launch.Reader launch = Launch.reader(d.launch(), true);
        CommandLine line = new CommandLine("efficiency", USAGE, args);
        while (line.next()) {
            switch (line.option()) {
                case "--calls" -> calls = line.intList();
                case "--modes" -> modes = line.list();
                case "--hello-blocking" -> helloBlocking = true;
                case "--h2c-partners" -> h2cPartners = true;
                default -> {
                    if (!load.read(line)) {
                        launch.readOrUnknown(line);
                    }
                }
            }
        }
        Settings settings;
        try {
            settings = new Settings(calls, modes, load.get(), launch.get(), helloBlocking, h2cPartners);
        } catch (IllegalArgumentException e) {
            throw line.fail(e.getMessage());
        }
        Finish.exit("efficiency", () -> run(settings));
    }
}
