package io.rc10k.harness;

import java.util.HashMap;
import java.util.Map;

/**
 * One scrape of the mashup server's {@code /metrics} (Prometheus text), taken at {@code epochMillis}.
 * Series are keyed as printed: {@code name} or {@code name{label="value",...}}.
 */
public record Prometheus(long epochMillis, Map<String, Double> series) {

    public static Prometheus parse(long epochMillis, String text) {
        Map<String, Double> series = new HashMap<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            if (space > 0) {
                try {
                    series.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
                } catch (NumberFormatException e) {
                    // Not a sample line: ignored.
                }
            }
        }
        return new Prometheus(epochMillis, series);
    }

    /** The value of one series, or 0 when the server has not printed it (yet). */
    public double get(String key) {
        return series.getOrDefault(key, 0.0);
    }

    /** The sum over every series of metric {@code name} whose labels contain {@code labelFilter} ("" for all). */
    public double sum(String name, String labelFilter) {
        double sum = 0;
        for (Map.Entry<String, Double> e : series.entrySet()) {
            String key = e.getKey();
            boolean sameName = key.equals(name) || key.startsWith(name + "{");
            if (sameName && key.contains(labelFilter)) {
                sum += e.getValue();
            }
        }
        return sum;
    }
}
