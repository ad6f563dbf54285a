package io.rc10k.benchmarks.tuning;

import io.rc10k.benchmarks.capacity.HeapPerMashup;
import io.rc10k.benchmarks.capacity.HeapReport;
import io.rc10k.benchmarks.launch.Launch;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JVM's knobs: the heap's size against the mashups held in flight ({@link HeapPerMashup}, the memory page's
 * tool, with the server's {@code -Xmx} set), and the garbage collector on each JDK under open-model load
 * ({@link OpenSweep}).
 */
final class JvmKnobs {
    /** A heap or collector value that sets no option: the JVM's own choice (its share of memory, its ergonomics). */
    static final String DEFAULT = "default";
    private static final Pattern VERSION = Pattern.compile("version \"([0-9][^\"]*)\"");

    private JvmKnobs() {
    }

    /** {@code -Xmx<size>}, or nothing for {@link #DEFAULT}. */
    static List<String> heapArgs(String size) {
        return size.equals(DEFAULT) ? List.of() : List.of("-Xmx" + size);
    }

    /** How a table names a heap value: {@code -Xmx512m}, or the JVM's own. */
    static String describeHeap(String size) {
        return size.equals(DEFAULT) ? "the JVM's own heap size" : "-Xmx" + size;
    }

    /**
     * {@code -Xmx} of the server ({@link #DEFAULT}: none) against {@code inflight} mashups held at once (C = 6 h2c
     * calls of {@code delayMillis}): whether it holds them all, answers them all, and its live heap with them.
     */
    static Table heap(Rig rig, List<String> values, int inflight, long delayMillis) throws Exception {
        Table table = new Table("heap", "The server's heap (`-Xmx`) against " + String.format(Locale.ROOT, "%,d",
                inflight) + " mashups in flight at once (C = 6): are they all held and answered, and what live heap "
                + "do they take?", List.of("-Xmx", "in flight", "all held at once", "200 complete", "failed",
                "idle live heap MiB", "loaded live heap MiB", "KiB per in-flight mashup"));
        // One round: whether a heap holds the mashups does not drift with the machine, and each run takes a minute.
        for (String value : values) {
            HeapPerMashup.Settings d = HeapPerMashup.Settings.defaults();
            HeapPerMashup.Settings settings = new HeapPerMashup.Settings(inflight, 6, delayMillis,
                    delayMillis + 5_000, "async", d.maxThreads(), Math.min(d.warmupRequests(), inflight),
                    rig.settings().launch().withMoreJvmArgs(heapArgs(value)));
            try {
                HeapReport r = HeapPerMashup.run(settings);
                table.add(value, String.format(Locale.ROOT, "%,d", inflight), r.measured() ? "yes"
                                : "no: " + ClosedSweep.shorten(r.notMeasured()),
                        String.format(Locale.ROOT, "%,d", r.ok()), String.format(Locale.ROOT, "%,d", r.failed())
                                + (r.firstFailure() == null ? "" : " (" + ClosedSweep.shorten(r.firstFailure())
                                + ")"),
                        mib(r.idle().liveBytes()), r.measured() ? mib(r.loaded().liveBytes()) : "—",
                        r.measured() ? String.format(Locale.ROOT, "%.1f", r.bytesPerMashup() / 1024) : "—");
            } catch (Exception e) {
                table.add(value, String.format(Locale.ROOT, "%,d", inflight), "no: the run failed", "—",
                        ClosedSweep.shorten(String.valueOf(e)), "—", "—", "—");
            }
        }
        table.note("HeapPerMashup (docs/results/memory.md) with the server's -Xmx set (default: none, the JVM's "
                + "own share of memory): partner stubs over h2c, C = 6 calls answered after " + delayMillis
                + " ms, deadline " + (delayMillis + 5_000) + " ms, async, "
                + "G1; live heap = G1 old gen after a full GC (jcmd GC.run). One round.");
        return table;
    }

    /**
     * Each collector ({@code G1}, {@code Parallel}, {@code ZGC}, {@code Shenandoah}, {@code Serial}, or
     * {@link #DEFAULT}: the JVM's ergonomic choice) on each of {@code javas}, the server at {@code -Xmx<heap>}
     * ({@link #DEFAULT}: the JVM's own size): open-model load at {@code rate}/s of C = 6 h2c calls answered after
     * 100 ms, each with a 2 KiB body.
     */
    static Table gc(Rig rig, List<String> collectors, List<String> javas, double rate, String heap)
            throws Exception {
        long deadline = 2_000;
        Path definitions = rig.definitions(Rig.mashup(rig.stubs(), "\"protocol\":\"h2c\"", 6,
                "delay=100&bytes=2048", deadline));
        Map<String, Rig.Server> launches = new LinkedHashMap<>();
        Map<String, List<String>> cells = new LinkedHashMap<>();
        for (String java : javas) {
            Launch l = rig.settings().launch();
            String version = version(new Launch(java, List.of(), l.mashupJar(), l.stubJar(), l.benchmarksJar()));
            int feature = Integer.parseInt(version.split("[.+-]")[0]);
            String jdk = "JDK " + version;
            for (String collector : collectors) {
                List<String> jvmArgs = new ArrayList<>(heapArgs(heap));
                if (!collector.equals(DEFAULT)) {
                    jvmArgs.add(flag(collector));
                }
                if (collector.equals("ZGC") && feature >= 21 && feature < 24) {
                    jvmArgs.add("-XX:+ZGenerational");
                }
                launches.put(jdk + " " + collector, new Rig.Server(definitions, List.of(), jvmArgs, java, 0));
                cells.put(jdk + " " + collector, List.of(jdk, collector));
            }
        }
        Table table = new Table("gc", "The garbage collector, on each JDK, at the same heap (" + describeHeap(heap)
                + "): answer times "
                + "under open-model load, throughput, the server's CPU per mashup and its GC pauses.",
                OpenSweep.columns(List.of("JDK", "collector")));
        OpenSweep.addRows(table, OpenSweep.run(rig, launches, rate, deadline), cells);
        table.note(String.format(Locale.ROOT, "Open model at %.0f requests/s: C = 6 h2c calls answered after 100 ms "
                + "with 2 KiB bodies, deadline 2 s; async mode. ZGC on JDK 21+ is generational (the only ZGC from 24 "
                + "on; on 21–23 it takes -XX:+ZGenerational, added here); on 17 it is the single-generation ZGC; "
                + "default: no collector option, the JVM's own choice.", rate));
        return table;
    }

    /** The JVM option that selects a collector by the name the table shows. */
    static String flag(String collector) {
        return switch (collector) {
            case "G1" -> "-XX:+UseG1GC";
            case "Parallel" -> "-XX:+UseParallelGC";
            case "ZGC" -> "-XX:+UseZGC";
            case "Shenandoah" -> "-XX:+UseShenandoahGC";
            case "Serial" -> "-XX:+UseSerialGC";
            default -> throw new IllegalArgumentException("gc: \"" + collector + "\" (accepted: G1, Parallel, ZGC, "
                    + "Shenandoah, Serial)");
        };
    }

    /** The version the launch's {@code java -version} names ({@code 17.0.15}, {@code 25.0.3}). */
    static String version(Launch launch) throws IOException, InterruptedException {
        String line = launch.javaVersion();
        Matcher m = VERSION.matcher(line);
        if (!m.find()) {
            throw new IOException("no version in the first line of " + launch.java() + " -version: " + line);
        }
        return m.group(1);
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f", bytes / (1024.0 * 1024.0));
    }
}
