package io.rc10k.experiments;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A heat map as a standalone SVG file: one cell per row and column, shaded from white (0) to dark blue (the
 * largest value) and labelled with its value; a missing value (NaN) is a grey cell. The study's surface
 * (QPS over threads × business time), seen from above.
 *
 * <pre>
 * new HeatMap("QPS, SRMT, sleep", "business time µs", "worker threads", columns, rows, values)
 *         .write(Path.of("heat.svg"));
 * </pre>
 */
record HeatMap(String title, String columnLabel, String rowLabel, List<String> columns, List<String> rows,
        double[][] values) {
    private static final int CELL_W = 64;
    private static final int CELL_H = 30;
    private static final int LEFT = 110;
    private static final int TOP = 60;

    void write(Path file) throws IOException {
        double max = 0;
        for (double[] row : values) {
            for (double v : row) {
                if (!Double.isNaN(v)) {
                    max = Math.max(max, v);
                }
            }
        }
        int width = LEFT + CELL_W * columns.size() + 20;
        int height = TOP + CELL_H * rows.size() + 50;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"11\">%n<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n",
                width, height, width, height));
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s"
                + "</text>%n", escape(title)));
        for (int c = 0; c < columns.size(); c++) {
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    LEFT + c * CELL_W + CELL_W / 2, TOP - 8, escape(columns.get(c))));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                LEFT + CELL_W * columns.size() / 2, TOP - 26, escape(columnLabel)));
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"%d\">%s</text>%n", TOP + CELL_H * rows.size() + 24,
                escape(rowLabel + " (rows); shade: QPS, white 0 to dark at " + String.format(Locale.ROOT, "%,.0f", max))));
        for (int r = 0; r < rows.size(); r++) {
            int y = TOP + r * CELL_H;
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                    LEFT - 8, y + CELL_H / 2 + 4, escape(rows.get(r))));
            for (int c = 0; c < columns.size(); c++) {
                double v = values[r][c];
                int x = LEFT + c * CELL_W;
                String fill = Double.isNaN(v) ? "#cccccc" : shade(max == 0 ? 0 : v / max);
                boolean dark = !Double.isNaN(v) && max > 0 && v / max > 0.55;
                svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                        + "stroke=\"white\"/><text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\">%s</text>%n",
                        x, y, CELL_W, CELL_H, fill, x + CELL_W / 2, y + CELL_H / 2 + 4, dark ? "white" : "black",
                        Double.isNaN(v) ? "—" : String.format(Locale.ROOT, "%,.0f", v)));
            }
        }
        svg.append("</svg>\n");
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, svg, StandardCharsets.UTF_8);
    }

    /** White to #1a3c8c as the share goes from 0 to 1. */
    private static String shade(double share) {
        double s = Math.max(0, Math.min(1, share));
        int r = (int) Math.round(255 + (26 - 255) * s);
        int g = (int) Math.round(255 + (60 - 255) * s);
        int b = (int) Math.round(255 + (140 - 255) * s);
        return String.format(Locale.ROOT, "#%02x%02x%02x", r, g, b);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
