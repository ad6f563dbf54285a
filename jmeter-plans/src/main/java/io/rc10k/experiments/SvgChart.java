package io.rc10k.experiments;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A line chart as a standalone SVG file: measured series with points, predictions dashed, either
 * axis linear or logarithmic (ticks at 1, 2, 5 of each decade).
 *
 * <pre>
 * new SvgChart("Live threads", "users", "threads", true, true)
 *         .add(new SvgChart.Series("sync", "#c0392b", false, users, threads))
 *         .write(Path.of("threads.svg"));
 * </pre>
 */
final class SvgChart {
    private static final int WIDTH = 780;
    private static final int HEIGHT = 460;
    private static final int LEFT = 80;
    private static final int RIGHT = 230;
    private static final int TOP = 40;
    private static final int BOTTOM = 50;

    /** One line; {@code dashed} marks a prediction. Points with a y of NaN or, on a log axis, ≤ 0 are left out. */
    record Series(String name, String color, boolean dashed, double[] x, double[] y) {
    }

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final boolean logX;
    private final boolean logY;
    private final List<Series> series = new ArrayList<>();

    SvgChart(String title, String xLabel, String yLabel, boolean logX, boolean logY) {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
        this.logX = logX;
        this.logY = logY;
    }

    SvgChart add(Series s) {
        series.add(s);
        return this;
    }

    void write(Path file) throws IOException {
        double[] xr = range(true);
        double[] yr = range(false);
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, HEIGHT));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, HEIGHT));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"24\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
                LEFT, escape(title)));
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                + "stroke=\"#444\"/>%n", LEFT, TOP, plotW, plotH));
        for (double t : ticks(xr, logX)) {
            double px = LEFT + scale(t, xr, logX) * plotW;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    px, TOP, px, TOP + plotH, px, TOP + plotH + 16, label(t)));
        }
        for (double t : ticks(yr, logY)) {
            double py = TOP + plotH - scale(t, yr, logY) * plotH;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
                    LEFT, py, LEFT + plotW, py, LEFT - 6, py + 4, label(t)));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                LEFT + plotW / 2, HEIGHT - 12, escape(xLabel + (logX ? " (log scale)" : ""))));
        svg.append(String.format(Locale.ROOT, "<text transform=\"translate(18,%d) rotate(-90)\" text-anchor=\"middle\">"
                + "%s</text>%n", TOP + plotH / 2, escape(yLabel + (logY ? " (log scale)" : ""))));
        int legendY = TOP + 8;
        for (Series s : series) {
            StringBuilder points = new StringBuilder();
            StringBuilder dots = new StringBuilder();
            for (int i = 0; i < s.x().length; i++) {
                if (!plottable(s.x()[i], logX) || !plottable(s.y()[i], logY)) {
                    continue;
                }
                double px = LEFT + scale(s.x()[i], xr, logX) * plotW;
                double py = TOP + plotH - scale(s.y()[i], yr, logY) * plotH;
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
                if (!s.dashed()) {
                    dots.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>",
                            px, py, s.color()));
                }
            }
            String dash = s.dashed() ? " stroke-dasharray=\"6,4\"" : "";
            svg.append(String.format(Locale.ROOT, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" "
                    + "stroke-width=\"2\"%s/>%s%n", points.toString().trim(), s.color(), dash, dots));
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                    + "stroke-width=\"2\"%s/><text x=\"%d\" y=\"%d\">%s</text>%n", LEFT + plotW + 12, legendY,
                    LEFT + plotW + 40, legendY, s.color(), dash, LEFT + plotW + 46, legendY + 4, escape(s.name())));
            legendY += 20;
        }
        svg.append("</svg>\n");
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, svg, StandardCharsets.UTF_8);
    }

    private static boolean plottable(double v, boolean log) {
        return !Double.isNaN(v) && !Double.isInfinite(v) && (!log || v > 0);
    }

    private double[] range(boolean xAxis) {
        boolean log = xAxis ? logX : logY;
        double min = Double.MAX_VALUE;
        double max = -Double.MAX_VALUE;
        for (Series s : series) {
            double[] v = xAxis ? s.x() : s.y();
            for (int i = 0; i < v.length; i++) {
                if (plottable(v[i], log) && plottable(xAxis ? s.y()[i] : s.x()[i], xAxis ? logY : logX)) {
                    min = Math.min(min, v[i]);
                    max = Math.max(max, v[i]);
                }
            }
        }
        if (min > max) {
            return new double[] {1, 10};
        }
        if (log) {
            return new double[] {Math.pow(10, Math.floor(Math.log10(min))), Math.pow(10, Math.ceil(Math.log10(max * 1.0001)))};
        }
        double step = niceStep((max - Math.min(0, min)) / 6);
        return new double[] {Math.min(0, Math.floor(min / step) * step), Math.ceil(max * 1.05 / step) * step};
    }

    private static double scale(double v, double[] r, boolean log) {
        return log ? (Math.log10(v) - Math.log10(r[0])) / (Math.log10(r[1]) - Math.log10(r[0]))
                : (v - r[0]) / (r[1] - r[0]);
    }

    private static List<Double> ticks(double[] r, boolean log) {
        List<Double> ticks = new ArrayList<>();
        if (log) {
            for (double decade = r[0]; decade <= r[1] * 1.0001; decade *= 10) {
                for (double m : new double[] {1, 2, 5}) {
                    if (decade * m <= r[1] * 1.0001) {
                        ticks.add(decade * m);
                    }
                }
            }
        } else {
            double step = niceStep((r[1] - r[0]) / 6);
            for (double t = r[0]; t <= r[1] + step / 1000; t += step) {
                ticks.add(t);
            }
        }
        return ticks;
    }

    private static double niceStep(double raw) {
        if (raw <= 0) {
            return 1;
        }
        double decade = Math.pow(10, Math.floor(Math.log10(raw)));
        double m = raw / decade;
        return decade * (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10);
    }

    private static String label(double v) {
        if (Math.abs(v) >= 1_000 && v % 1_000 == 0) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.3g", v);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
