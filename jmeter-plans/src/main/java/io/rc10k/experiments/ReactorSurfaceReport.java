package io.rc10k.experiments;

import io.rc10k.experiments.ReactorSurfaceExperiment.Point;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The files of the reactor experiment, from its points (and, with {@code --append}, the points of earlier runs
 * in the same CSV): {@code reactor-surface.csv}, the generated part of {@code reactor-surface.md} (provenance and checks) and the
 * study's charts — QPS against business time per model, QPS against threads per selector count at 200 µs, and a
 * heat map of threads × business time per kind.
 */
final class ReactorSurfaceReport {
    static final String CSV = "reactor-surface.csv";
    private static final String[] COLORS = {"#c0392b", "#2471a3", "#229954", "#8e44ad", "#d68910", "#17202a",
        "#7f8c8d", "#a04000", "#1abc9c"};

    private final List<Point> points;
    private final Checks checks = new Checks();

    ReactorSurfaceReport(List<Point> points) {
        this.points = List.copyOf(points);
        check();
    }

    /** The points of an earlier run's CSV, or none. */
    static List<Point> read(Path out) throws IOException {
        Path csv = out.resolve(CSV);
        if (!Files.exists(csv)) {
            return List.of();
        }
        List<String> lines = Files.readAllLines(csv);
        return lines.subList(1, lines.size()).stream().filter(l -> !l.isBlank()).map(Point::parse).toList();
    }

    List<String> checks() {
        return checks.failures();
    }

    private OptionalDouble best(Predicate<Point> which) {
        return points.stream().filter(which).mapToDouble(Point::qps).max();
    }

    private static Predicate<Point> at(String model, String kind, int micros, boolean keepAlive) {
        return p -> p.model().equals(model) && p.kind().equals(kind) && p.micros() == micros
                && p.keepAlive() == keepAlive;
    }

    /** The study's shape, and the async partner's difference from it, wherever the points allow the comparison. */
    private void check() {
        for (Point p : points) {
            checks.add(p.failed() == 0 && p.ok() > 0, String.format(Locale.ROOT, "%s %d/%d %s %d µs %s: %,d answered, "
                    + "%,d failed%s", p.model(), p.selectors(), p.threads(), p.kind(), p.micros(),
                    p.keepAlive() ? "keep-alive" : "close", p.ok(), p.failed(),
                    p.firstFailure() == null ? "" : " (first: " + p.firstFailure() + ")"));
        }
        for (boolean alive : List.of(true, false)) {
            // The longest business time that both a sleep and a partner call (whole milliseconds) were measured at.
            int longest = points.stream().filter(p -> p.kind().equals("sleep") && p.keepAlive() == alive
                    && p.micros() % 1_000 == 0 && p.micros() > 0).mapToInt(Point::micros).max().orElse(-1);
            if (longest < 0) {
                continue;
            }
            String connections = alive ? "keep-alive" : "a connection per request";
            OptionalDouble srst0 = best(at("srst", "sleep", 0, alive));
            OptionalDouble srstLong = best(at("srst", "sleep", longest, alive));
            if (srst0.isPresent() && srstLong.isPresent()) {
                checks.add(srstLong.getAsDouble() < srst0.getAsDouble() / 2, String.format(Locale.ROOT,
                        "SRST falls with business time (%s): a %,d µs sleep %,.0f/s against %,.0f/s at 0 µs",
                        connections, longest, srstLong.getAsDouble(), srst0.getAsDouble()));
            }
            for (String kind : List.of("c1", "c6")) {
                for (String model : ReactorServer.MODELS) {
                    OptionalDouble c0 = best(at(model, kind, 0, alive));
                    OptionalDouble cLong = best(at(model, kind, longest, alive));
                    if (c0.isEmpty() || cLong.isEmpty()) {
                        continue;
                    }
                    checks.add(cLong.getAsDouble() >= c0.getAsDouble() / 2, String.format(Locale.ROOT,
                            "%s, %s (%s): a partner call of %,d µs waited for without a thread keeps QPS flat: "
                                    + "%,.0f/s against %,.0f/s at 0 µs", model.toUpperCase(Locale.ROOT), kind,
                            connections, longest, cLong.getAsDouble(), c0.getAsDouble()));
                    if (model.equals("srst") && srstLong.isPresent()) {
                        checks.add(cLong.getAsDouble() > 2 * srstLong.getAsDouble(), String.format(Locale.ROOT,
                                "SRST, %s (%s): at %,d µs the partner call waited for on the selector serves more "
                                        + "than twice the sleep's QPS: %,.0f/s against %,.0f/s", kind, connections,
                                longest, cLong.getAsDouble(), srstLong.getAsDouble()));
                    }
                }
            }
        }
    }

    void write(Path out, String provenance) throws IOException {
        Files.createDirectories(out);
        List<String> csv = new ArrayList<>(List.of(Point.CSV_HEADER));
        points.forEach(p -> csv.add(p.csv()));
        Files.write(out.resolve(CSV), csv);
        String md = provenance + "\nEvery point of this run: [" + CSV + "](" + CSV + ").\n" + checks.markdown();
        ResultsPage.write(out.resolve("reactor-surface.md"), "Reactor surface: the Reactor-model study's question, "
                + "on this server", md);
        timeCharts(out);
        threadChart(out);
        heatMaps(out);
    }

    /** The study's Fig. 20 and 25: QPS against business time, a line per model (the best of its configurations). */
    private void timeCharts(Path out) throws IOException {
        SvgChart upTo1000 = new SvgChart("QPS against business time, 0–1,000 µs (keep-alive; best configuration per "
                + "model)", "business time µs", "QPS", false, false);
        SvgChart toFifty = new SvgChart("QPS against business time, 100 µs – 50 ms (keep-alive; best per model)",
                "business time µs", "QPS", true, true);
        int color = 0;
        for (String kind : ReactorSurfaceExperiment.KINDS) {
            for (String model : ReactorServer.MODELS) {
                List<Integer> micros = new TreeSet<>(points.stream().filter(p -> p.kind().equals(kind)
                        && p.model().equals(model) && p.keepAlive()).map(Point::micros).toList()).stream().toList();
                if (micros.isEmpty()) {
                    continue;
                }
                double[] x = micros.stream().mapToDouble(Integer::doubleValue).toArray();
                double[] y = micros.stream().mapToDouble(us -> best(at(model, kind, us, true)).orElse(Double.NaN))
                        .toArray();
                String name = model.toUpperCase(Locale.ROOT) + " " + kind;
                String c = COLORS[color++ % COLORS.length];
                boolean dashed = kind.matches("c\\d+");
                upTo1000.add(new SvgChart.Series(name, c, dashed, limit(x, y, 1_000)[0], limit(x, y, 1_000)[1]));
                toFifty.add(new SvgChart.Series(name, c, dashed, x, y));
            }
        }
        upTo1000.write(out.resolve("reactor-surface-time.svg"));
        toFifty.write(out.resolve("reactor-surface-time-long.svg"));
    }

    private static double[][] limit(double[] x, double[] y, double max) {
        int n = (int) java.util.Arrays.stream(x).filter(v -> v <= max).count();
        return new double[][] {java.util.Arrays.copyOf(x, n), java.util.Arrays.copyOf(y, n)};
    }

    /** The study's Fig. 23(a): QPS against worker threads at 200 µs, a line per selector count and kind. */
    private void threadChart(Path out) throws IOException {
        SvgChart chart = new SvgChart("QPS against worker threads at 200 µs (keep-alive), per selector count",
                "worker threads", "QPS", true, false);
        int color = 0;
        for (String kind : List.of("sleep", "cpu")) {
            List<Integer> selectorCounts = new TreeSet<>(points.stream().filter(p -> p.threads() > 0).map(
                    Point::selectors).toList()).stream().toList();
            for (int s : selectorCounts) {
                List<Point> line = points.stream().filter(p -> p.kind().equals(kind) && p.micros() == 200
                        && p.keepAlive() && p.threads() > 0 && p.selectors() == s)
                        .sorted(Comparator.comparingInt(Point::threads)).toList();
                if (line.size() < 2) {
                    continue;
                }
                chart.add(new SvgChart.Series(kind + ", " + s + " selector" + (s > 1 ? "s (MRMT)" : " (SRMT)"),
                        COLORS[color++ % COLORS.length], false,
                        line.stream().mapToDouble(Point::threads).toArray(),
                        line.stream().mapToDouble(Point::qps).toArray()));
            }
        }
        chart.write(out.resolve("reactor-surface-threads.svg"));
    }

    /** The study's Fig. 21: QPS over worker threads × business time, one selector (SRMT), per kind. */
    private void heatMaps(Path out) throws IOException {
        for (String kind : List.of("sleep", "cpu")) {
            List<Point> surface = points.stream().filter(p -> p.kind().equals(kind) && p.model().equals("srmt")
                    && p.keepAlive()).toList();
            List<Integer> threads = new TreeSet<>(surface.stream().map(Point::threads).toList()).stream().toList();
            List<Integer> micros = new TreeSet<>(surface.stream().map(Point::micros).toList()).stream().toList();
            if (threads.size() < 2 || micros.size() < 2) {
                continue;
            }
            double[][] values = new double[threads.size()][micros.size()];
            for (int r = 0; r < threads.size(); r++) {
                for (int c = 0; c < micros.size(); c++) {
                    int t = threads.get(r);
                    int us = micros.get(c);
                    values[r][c] = surface.stream().filter(p -> p.threads() == t && p.micros() == us)
                            .mapToDouble(Point::qps).max().orElse(Double.NaN);
                }
            }
            new HeatMap("QPS, SRMT (1 selector), " + kind + " on the request's thread, keep-alive",
                    "business time µs", "worker threads",
                    micros.stream().map(us -> String.format(Locale.ROOT, "%,d", us)).toList(),
                    threads.stream().map(String::valueOf).toList(), values)
                    .write(out.resolve("reactor-surface-heat-" + kind + ".svg"));
        }
    }
}
