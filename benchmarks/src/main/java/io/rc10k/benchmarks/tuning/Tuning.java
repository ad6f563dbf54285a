package io.rc10k.benchmarks.tuning;

import com.sun.management.OperatingSystemMXBean;
import io.rc10k.benchmarks.launch.Launch;
import io.rc10k.harness.CommandLine;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The tuning guide's measurements (docs/tuning.md): every knob a user may turn, swept over a few values, each
 * value a mashup server of its own, compared within one run; a Markdown table per knob, printed and written.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.tuning.Tuning                 # every knob
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.tuning.Tuning --knobs threads --values 16,200
 * # the sysctl sweeps in a network namespace of their own, which vanishes with the command:
 * unshare -n sh -c 'ip link set lo up &amp;&amp; java -cp … Tuning --knobs somaxconn,ports'
 * </pre>
 *
 * <p>Run from the repository root after {@code ./mvnw -q package -DskipTests}. Every sweep stops by itself; the
 * sysctl sweeps ({@code somaxconn}, {@code ports}) change a {@code net.*} setting for one measurement at a time
 * and put it back ({@link Sysctl}). Exit status: 0 when every sweep ran, 1 when one failed (its table says why;
 * the others are written), 2 for a bad command line.</p>
 */
public final class Tuning {
    /** Every knob, in the order run. */
    static final List<String> KNOBS = List.of("selectors", "threads", "min-threads", "reserved-threads",
            "idle-timeout", "max-inflight", "partner-connections", "streams", "partner-idle-timeout",
            "max-response-bytes", "max-buffered-bytes", "files", "somaxconn", "accept-queue", "ports", "heap", "gc");

    private static final String USAGE = """
            [options]   (run as java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.tuning.Tuning)
              --knobs LIST       which sweeps, in order (default all): selectors, threads, min-threads,
                                 reserved-threads, idle-timeout, max-inflight, partner-connections, streams,
                                 partner-idle-timeout, max-response-bytes, max-buffered-bytes, files, somaxconn,
                                 accept-queue, ports, heap, gc
              --values LIST      the values of the one knob named by --knobs (default: the knob's own), e.g.
                                 selectors 1/1,0/1 (ACCEPTORS/SELECTORS); threads 16,200; min-threads 8,64;
                                 reserved-threads -1,0; idle-timeout 30000,1000; max-inflight 50,10000;
                                 partner-connections 16,256; streams 1,128; partner-idle-timeout 30000,50;
                                 max-response-bytes 256k/1m (BODY/LIMIT);
                                 max-buffered-bytes 4m,default; files 1024,20000,1024/unbounded (ulimit -n;
                                 unbounded: the limits of 20000 files); somaxconn 128,4096;
                                 accept-queue 4096,16;
                                 ports keep-alive,close,timeout/1000/noreuse (MODE[/N ports][/noreuse]);
                                 heap 128m,256m (-Xmx; default: none, the JVM's own);
                                 gc G1,Parallel,ZGC,Shenandoah,Serial (default: no option, the JVM's choice)
              --rounds N         interleaved rounds per sweep (default 2)
              --warmup-ms MS     the longest warm-up per server (default 10000)
              --measure-ms MS    a measured window or phase (default 5000)
              --quick            one round, 1 s warm-up, 1 s windows, small bursts and rates: checks the sweeps run
              --connections N    selectors, threads, min-threads, reserved-threads: closed-loop clients (default 64)
              --partner-protocol P   their partner calls: h2c (default) or http/1.1
              --streams-load CLIENTS[/BYTES]   streams: closed-loop clients, C = 6 calls each, and the size of
                                 each partner answer (default 128, the stub's small answer)
              --rates LIST       max-inflight: arrivals per second (default 500,3000)
              --gc-rate N        gc: arrivals per second (default 1000)
              --gc-java LIST     gc: the java commands to compare (default: this JVM's)
              --gc-heap SIZE     gc: the servers' -Xmx (default 512m; default: none, the JVM's own share of memory)
              --burst N          files, somaxconn, accept-queue: connections at once (default 2000, 8000, 8000)
              --heap-inflight N  heap: mashups held at once (default 4000)
            """ + Launch.usage(21, "the servers' java") + """
              --out FILE         where the tables go (default tuning-tables.md)
              --help             print this and exit
              --version          print the version and exit
            Exit status: 0 every sweep ran, 1 a sweep failed (its table says why), 2 bad command line.
            """;

    /** One sweep: the server's default first where the knob has one (the baseline of its ratios). */
    @FunctionalInterface
    interface Sweep {
        Table run(Rig rig, List<String> values) throws Exception;
    }

    /** A knob: its name, the values swept by default, and how. */
    record Knob(String name, List<String> values, Sweep sweep) {
    }

    /** The run's parameters beyond {@link Rig.Settings}. */
    record Params(List<Double> rates, double gcRate, List<String> gcJavas, String gcHeap, int burst, int heapInflight,
            boolean quick, ServerKnobs.Load load, PartnerKnobs.StreamsLoad streamsLoad) {
    }

    /** The columns of the table of a sweep that failed. */
    static final List<String> NOT_RUN = List.of("not run: why");

    private Tuning() {
    }

    static Map<String, Knob> knobs(Params p) {
        int burst = p.burst() > 0 ? p.burst() : p.quick() ? 200 : 0;
        Map<String, Knob> knobs = new LinkedHashMap<>();
        add(knobs, "selectors", "1/1,0/1,0/2,1/2,1/4", (rig, v) -> ServerKnobs.selectors(rig, v, v.get(0), p.load()));
        add(knobs, "threads", "200,16,64", (rig, v) -> ServerKnobs.poolOption(rig, "threads", "--max-threads",
                "The shared pool's maximum (`--max-threads N`)", v, v.get(0), p.load()));
        add(knobs, "min-threads", "8,1,64,200", (rig, v) -> ServerKnobs.poolOption(rig, "min-threads",
                "--min-threads", "Threads the pool keeps started (`--min-threads N`, of 200)", v, v.get(0), p.load()));
        add(knobs, "reserved-threads", "-1,0,8", (rig, v) -> ServerKnobs.poolOption(rig, "reserved-threads",
                "--reserved-threads", "Threads kept ready to take a job at once (`--reserved-threads N`; -1: Jetty's "
                        + "choice)", v, v.get(0), p.load()));
        add(knobs, "idle-timeout", "30000,1000", (rig, v) -> ServerKnobs.idleTimeout(rig, v, p.quick() ? 100 : 1_000,
                p.quick() ? 1_500 : 3_000));
        add(knobs, "max-inflight", "10000,50,200,1000", (rig, v) -> ServerKnobs.maxInflight(rig, v, p.rates()));
        add(knobs, "partner-connections", "256,16,64,1024", (rig, v) -> PartnerKnobs.connections(rig, v, v.get(0)));
        add(knobs, "streams", "128,1,8,1024", (rig, v) -> PartnerKnobs.streams(rig, v, v.get(0), p.streamsLoad()));
        add(knobs, "partner-idle-timeout", "30000,1000,50", (rig, v) -> PartnerKnobs.idleTimeout(rig, v,
                p.quick() ? 20 : 10));
        add(knobs, "max-response-bytes", "1k/1m,256k/1m,256k/64k",
                (rig, v) -> PartnerKnobs.maxResponseBytes(rig, v, v.get(0)));
        add(knobs, "max-buffered-bytes", "default,4m,16m,64m", (rig, v) -> PartnerKnobs.maxBufferedBytes(rig, v,
                v.get(0)));
        add(knobs, "files", "20000,1024,4096,1024/unbounded",
                (rig, v) -> OsKnobs.files(rig, v, burst > 0 ? burst : 2_000));
        add(knobs, "somaxconn", "4096,128", (rig, v) -> OsKnobs.backlog(rig, v, burst > 0 ? burst : 8_000, true));
        add(knobs, "accept-queue", "4096,128,16", (rig, v) -> OsKnobs.backlog(rig, v, burst > 0 ? burst : 8_000,
                false));
        add(knobs, "ports", "keep-alive,close,timeout,timeout/1000/noreuse", OsKnobs::ports);
        add(knobs, "heap", "64m,128m,256m", (rig, v) -> JvmKnobs.heap(rig, v, p.heapInflight(),
                p.quick() ? 1_000 : 10_000));
        add(knobs, "gc", "G1,Parallel,ZGC,Shenandoah", (rig, v) -> JvmKnobs.gc(rig, v, p.gcJavas(), p.gcRate(),
                p.gcHeap()));
        return knobs;
    }

    private static void add(Map<String, Knob> knobs, String name, String values, Sweep sweep) {
        knobs.put(name, new Knob(name, List.of(values.split(",")), sweep));
    }

    public static void main(String[] args) throws Exception {
        Launch.Reader launch = Launch.reader(Launch.defaults(), false);
        List<String> names = KNOBS;
        List<String> values = null;
        int rounds = 2;
        long warmup = 10_000;
        long measure = 5_000;
        boolean quick = false;
        List<Double> rates = null;
        double gcRate = 0;
        List<String> gcJavas = null;
        String gcHeap = "512m";
        int burst = 0;
        int heapInflight = 0;
        int connections = ServerKnobs.Load.DEFAULT.connections();
        String protocol = ServerKnobs.Load.DEFAULT.protocol();
        String streamsLoad = null;
        Path out = Path.of("tuning-tables.md");
        CommandLine line = new CommandLine("tuning", USAGE, args);
        while (line.next()) {
            switch (line.option()) {
                case "--knobs" -> names = line.list();
                case "--values" -> values = line.list();
                case "--rounds" -> rounds = line.intValue();
                case "--warmup-ms" -> warmup = line.longValue();
                case "--measure-ms" -> measure = line.longValue();
                case "--quick" -> quick = true;
                case "--rates" -> rates = line.doubleList();
                case "--gc-rate" -> gcRate = line.doubleValue();
                case "--gc-java" -> gcJavas = line.list();
                case "--gc-heap" -> gcHeap = line.value();
                case "--burst" -> burst = line.intValue();
                case "--heap-inflight" -> heapInflight = line.intValue();
                case "--connections" -> connections = line.intValue();
                case "--partner-protocol" -> protocol = line.value();
                case "--streams-load" -> streamsLoad = line.value();
                case "--out" -> out = line.path();
                default -> launch.readOrUnknown(line);
            }
        }
        for (String name : names) {
            if (!KNOBS.contains(name)) {
                throw line.fail("--knobs", "\"" + name + "\" (accepted: " + String.join(", ", KNOBS) + ")");
            }
        }
        if (values != null && names.size() != 1) {
            throw line.fail("--values", "needs exactly one knob in --knobs, not " + names.size());
        }
        if (burst < 0 || heapInflight < 0 || gcRate < 0) {
            throw line.fail("--burst " + burst + ", --heap-inflight " + heapInflight + ", --gc-rate " + gcRate
                    + " (accepted: more than 0)");
        }
        Params params;
        Rig.Settings settings;
        try {
            Launch servers = launch.get();
            params = new Params(rates != null ? rates : quick ? List.of(50.0, 400.0) : List.of(500.0, 3_000.0),
                    gcRate > 0 ? gcRate : quick ? 100 : 1_000, gcJavas != null ? gcJavas : List.of(servers.java()),
                    gcHeap, burst,
                    heapInflight > 0 ? heapInflight : quick ? 200 : 4_000, quick,
                    new ServerKnobs.Load(connections, protocol), streamsLoad == null ? PartnerKnobs.StreamsLoad.DEFAULT
                            : PartnerKnobs.StreamsLoad.parse(streamsLoad));
            settings = quick ? new Rig.Settings(servers, 1, 1_000, 1_000)
                    : new Rig.Settings(servers, rounds, warmup, measure);
        } catch (IllegalArgumentException e) {
            throw line.fail(e.getMessage());
        }
        String head = "# Tuning sweeps\n\nMachine: " + machine() + ". Run " + Instant.now().truncatedTo(
                ChronoUnit.SECONDS) + " with:\n\n    java -cp benchmarks/target/benchmarks.jar "
                + Tuning.class.getName() + (args.length == 0 ? "" : " " + String.join(" ", args)) + "\n\n";
        System.out.print(head);
        List<Table> tables = run(settings, params, names, values, out, head);
        System.exit(tables.stream().anyMatch(t -> t.columns().equals(NOT_RUN)) ? 1 : 0);
    }

    /**
     * Runs the sweeps of {@code names} in order, each table printed and {@code out} rewritten after each (so a run
     * cut short keeps what it measured); a sweep that fails gives a table that says why ({@link #NOT_RUN}).
     *
     * @param values the values of the one knob named, or null for each knob's own
     */
    static List<Table> run(Rig.Settings settings, Params params, List<String> names, List<String> values, Path out,
            String head) throws Exception {
        Map<String, Knob> knobs = knobs(params);
        List<Table> tables = new ArrayList<>();
        try (Rig rig = new Rig(settings)) {
            for (String name : names) {
                Knob knob = knobs.get(name);
                long start = System.nanoTime();
                System.out.println("== " + name + " (load average " + loadAverage() + ")");
                Table table;
                try {
                    table = knob.sweep().run(rig, values != null ? values : knob.values());
                } catch (Exception e) {
                    table = new Table(name, "Not run.", NOT_RUN);
                    table.add(ClosedSweep.shorten(String.valueOf(e)));
                    e.printStackTrace();
                }
                table.note(String.format(Locale.ROOT, "Sweep time %.1f min; load average after it %s.",
                        (System.nanoTime() - start) / 6e10, loadAverage()));
                tables.add(table);
                System.out.println();
                System.out.print(table.markdown());
                write(out, head, tables);
            }
        }
        return tables;
    }

    private static void write(Path out, String head, List<Table> tables) throws IOException {
        StringBuilder text = new StringBuilder(head);
        tables.forEach(t -> text.append(t.markdown()).append('\n'));
        Path parent = out.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(out, text);
    }

    /** Cores, memory, this JVM, the network namespace: what the tables were measured on. */
    static String machine() {
        long memory = ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
        return String.format(Locale.ROOT, "%d cores, %.1f GiB, %s %s, %s %s; load average at the start %s; %s",
                Runtime.getRuntime().availableProcessors(), memory / (double) (1L << 30),
                System.getProperty("java.vm.name"), Runtime.version(), System.getProperty("os.name"),
                System.getProperty("os.version"), loadAverage(), Sysctl.namespace());
    }

    /** The 1, 5 and 15 minute load averages, from {@code /proc/loadavg}; "?" where there is none. */
    static String loadAverage() {
        try {
            String[] f = Sysctl.read(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }
}
