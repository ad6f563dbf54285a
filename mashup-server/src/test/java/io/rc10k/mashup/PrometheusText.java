package io.rc10k.mashup;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One scrape of {@code /metrics}, read as Prometheus text: the samples, with their labels. */
final class PrometheusText {
    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");

    record Sample(String name, Map<String, String> labels, double value) {
    }

    final String text;
    final List<Sample> samples = new ArrayList<>();

    PrometheusText(String text) {
        this.text = text;
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches()) {
                throw new AssertionError("not a Prometheus sample: " + line);
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null) {
                Matcher label = LABEL.matcher(m.group(2));
                while (label.find()) {
                    labels.put(label.group(1), label.group(2));
                }
            }
            samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(3))));
        }
    }

    /** The one sample of that name (a gauge without labels); fails naming it when absent. */
    double value(String name) {
        return samples.stream().filter(s -> s.name().equals(name)).findFirst().map(Sample::value)
                .orElseThrow(() -> new AssertionError(name + " missing from /metrics:\n" + text));
    }

    /** The sum over every sample of that name whose labels pass {@code labels}; 0 when none does. */
    double sum(String name, Predicate<Map<String, String>> labels) {
        return samples.stream().filter(s -> s.name().equals(name) && labels.test(s.labels()))
                .mapToDouble(Sample::value).sum();
    }

    /** The largest sample of that name whose labels pass; 0 when none does (as a timer that has recorded nothing). */
    double max(String name, Predicate<Map<String, String>> labels) {
        return samples.stream().filter(s -> s.name().equals(name) && labels.test(s.labels()))
                .mapToDouble(Sample::value).max().orElse(0);
    }

    /** Sums by the value of one label: e.g. {@code mashup_requests_total} by {@code outcome}. */
    Map<String, Double> sumBy(String name, String label) {
        Map<String, Double> sums = new LinkedHashMap<>();
        for (Sample s : samples) {
            if (s.name().equals(name)) {
                sums.merge(s.labels().get(label), s.value(), Double::sum);
            }
        }
        return sums;
    }

    static Predicate<Map<String, String>> label(String name, String value) {
        return labels -> value.equals(labels.get(name));
    }
}
