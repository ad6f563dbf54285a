package io.rc10k.experiments;

import io.rc10k.mashup.Mode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The files of the thread-count experiment, from its points: charts, Table 2, a summary with its checks. */
final class ThreadCountReport {
    private static final String[][] COLORS = {{"sync", "#c0392b"}, {"async", "#2471a3"}, {"virtual", "#229954"}};

    private final List<ThreadCountExperiment.Point> points;
    private final int fixedPool;
    private final Checks checks = new Checks();

    ThreadCountReport(List<ThreadCountExperiment.Point> points, int fixedPool) {
        this.points = points;
        this.fixedPool = fixedPool;
        check();
    }

    List<String> checks() {
        return checks.failures();
    }

    private List<ThreadCountExperiment.Point> series(String label) {
        return points.stream().filter(p -> p.label().equals(label))
                .sorted(Comparator.comparingInt(ThreadCountExperiment.Point::users)).toList();
    }

    private Optional<ThreadCountExperiment.Point> at(String label, int users) {
        return series(label).stream().filter(p -> p.users() == users).findFirst();
    }

    private void check() {
        for (ThreadCountExperiment.Point p : series("sync")) {
            double off = (p.requestThreads() - p.eq1()) / p.eq1();
            checks.add(Math.abs(off) <= 0.20, String.format(Locale.ROOT, "sync, %d users: %.0f request threads "
                    + "(live %.0f − idle %.0f) vs Eq. 1 %.0f: %+.1f %% (within 20 %%); in use %.0f (%+.1f %%)",
                    p.users(), p.requestThreads(), p.liveMean(), p.baseline(), p.eq1(), off * 100, p.threadsInUse(),
                    (p.threadsInUse() - p.eq1()) / p.eq1() * 100));
        }
        for (ThreadCountExperiment.Point p : series("async")) {
            checks.add(p.liveMax() <= 64 + p.jvmBaseline(), String.format(Locale.ROOT, "async, %d users: at most %.0f "
                    + "live threads ≤ 64 + JVM baseline %.0f", p.users(), p.liveMax(), p.jvmBaseline()));
        }
        for (ThreadCountExperiment.Point a : series("async")) {
            at("sync", a.users()).ifPresent(s -> checks.add(a.throughput() >= s.throughput(), String.format(Locale.ROOT,
                    "%d users: async %.1f req/s ≥ sync %.1f req/s (ratio %.3f)", a.users(), a.throughput(),
                    s.throughput(), a.throughput() / s.throughput())));
        }
        for (ThreadCountExperiment.Point p : points) {
            checks.add(p.errors() == 0, String.format(Locale.ROOT, "%s, %d users: %d errors in %d requests",
                    p.label(), p.users(), p.errors(), p.samples()));
        }
    }

    void write(Path out) throws IOException {
        SvgChart threads = new SvgChart("Live JVM threads against concurrent users (/mashup/paper, C = 2)",
                "concurrent users N", "live threads", true, true);
        SvgChart throughput = new SvgChart("Throughput against concurrent users (/mashup/paper)",
                "concurrent users N", "requests per second", true, true);
        for (String[] mode : COLORS) {
            List<ThreadCountExperiment.Point> s = series(mode[0]);
            if (s.isEmpty()) {
                continue;
            }
            threads.add(new SvgChart.Series(mode[0] + ", measured", mode[1], false, x(s),
                    s.stream().mapToDouble(ThreadCountExperiment.Point::liveMean).toArray()));
            throughput.add(new SvgChart.Series(mode[0], mode[1], false, x(s),
                    s.stream().mapToDouble(ThreadCountExperiment.Point::throughput).toArray()));
            if (mode[0].equals("sync")) {
                threads.add(new SvgChart.Series("sync, Eq. 1 + idle", mode[1], true, x(s),
                        s.stream().mapToDouble(p -> p.eq1() + p.baseline()).toArray()));
            } else if (mode[0].equals("async")) {
                threads.add(new SvgChart.Series("async, Eq. 2 + idle", mode[1], true, x(s),
                        s.stream().mapToDouble(p -> p.eq2() + p.baseline()).toArray()));
            }
        }
        List<ThreadCountExperiment.Point> pool = series("sync-pool" + fixedPool);
        if (!pool.isEmpty()) {
            threads.add(new SvgChart.Series("sync, pool of " + fixedPool, "#8e44ad", false, x(pool),
                    pool.stream().mapToDouble(ThreadCountExperiment.Point::liveMean).toArray()));
            throughput.add(new SvgChart.Series("sync, pool of " + fixedPool, "#8e44ad", false, x(pool),
                    pool.stream().mapToDouble(ThreadCountExperiment.Point::throughput).toArray()));
            SvgChart cap = new SvgChart("Sync mode on a pool of " + fixedPool + " threads: the cap law",
                    "concurrent users N", "requests per second", true, true);
            double s0 = pool.get(0).sMillis() / 1000;
            // What sync mode lets block at once on this pool: the "pool size" of the law.
            double usable = Mode.blockingConcurrency(fixedPool, (int) Math.round(pool.get(0).reserved()));
            cap.add(new SvgChart.Series("measured, pool of " + fixedPool, "#8e44ad", false, x(pool),
                    pool.stream().mapToDouble(ThreadCountExperiment.Point::throughput).toArray()));
            cap.add(new SvgChart.Series(String.format(Locale.ROOT, "min(N, %.0f) / %.2f s", usable, s0), "#8e44ad",
                    true, x(pool), pool.stream().mapToDouble(p -> Math.min(p.users(), usable) / s0).toArray()));
            List<ThreadCountExperiment.Point> sync = series("sync");
            if (!sync.isEmpty()) {
                cap.add(new SvgChart.Series("sync, pool grows with N", "#c0392b", false, x(sync),
                        sync.stream().mapToDouble(ThreadCountExperiment.Point::throughput).toArray()));
            }
            cap.write(out.resolve("thread-pool-cap.svg"));
        }
        threads.write(out.resolve("thread-count-threads.svg"));
        throughput.write(out.resolve("thread-count-throughput.svg"));
        writeTable2(out.resolve("table2.md"));
        writeSummary(out.resolve("thread-count.md"), pool);
    }

    private static double[] x(List<ThreadCountExperiment.Point> s) {
        return s.stream().mapToDouble(ThreadCountExperiment.Point::users).toArray();
    }

    private void writeTable2(Path file) throws IOException {
        StringBuilder md = new StringBuilder()
                .append(Experiments.provenance())
                .append("\nD: time a request held a container thread (`mashup_thread_hold_seconds`); S: time from "
                        + "routing to the written response (`mashup_request_seconds`); both means over the measured "
                        + "window. Eq. 2's claim is that for an async server D/S is close to 0, so N·D/S threads serve N users.\n\n"
                        + "| mode | users | D (ms) | S (ms) | D/S |\n|---|---:|---:|---:|---:|\n");
        for (ThreadCountExperiment.Point p : points) {
            md.append(String.format(Locale.ROOT, "| %s | %,d | %.3f | %.1f | %.5f |%n", p.label(), p.users(),
                    p.dMillis(), p.sMillis(), p.dMillis() / p.sMillis()));
        }
        ResultsPage.write(file, "Table 2: how long a request holds a thread", md.toString());
    }

    private void writeSummary(Path file, List<ThreadCountExperiment.Point> pool) throws IOException {
        StringBuilder md = new StringBuilder()
                .append(Experiments.provenance())
                .append("\nCharts: [threads](thread-count-threads.svg), [throughput](thread-count-throughput.svg)")
                .append(pool.isEmpty() ? "" : ", [cap law](thread-pool-cap.svg)")
                .append("; every number: [thread-count.csv](thread-count.csv); D and S: [table2.md](table2.md).\n\n")
                .append("| mode | users | req/s (200s) | errors | live threads (mean / max) | idle | request threads "
                        + "| in use | Eq. 1 | Eq. 2 | S (ms) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (ThreadCountExperiment.Point p : points) {
            md.append(String.format(Locale.ROOT, "| %s | %,d | %.1f | %,d | %.0f / %.0f | %.0f | %.0f | %.0f | %.0f | "
                    + "%.2f | %.0f |%n", p.label(), p.users(), p.throughput(), p.errors(), p.liveMean(), p.liveMax(),
                    p.baseline(), p.requestThreads(), p.threadsInUse(), p.eq1(), p.eq2(), p.sMillis()));
        }
        md.append(checks.markdown());
        ResultsPage.write(file, "Thread count against users (the paper's Fig. 4)", md.toString());
    }
}
