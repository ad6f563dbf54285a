package io.rc10k.benchmarks;

import io.rc10k.broker.Outcome;
import io.rc10k.mashup.Composite;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What writing one composite response costs: {@link Composite#compose} over C JSON parts of a given
 * size — each body checked in one pass over its bytes and copied in, never turned into objects — as
 * every mode does once per mashup after the last answer.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar CompositionBenchmark -prof gc
 * </pre>
 *
 * The bodies are realistic JSON (an array of small records, then one padding string to the exact
 * size), not one long string, so the parser meets many tokens: a body of one string token would make
 * the check look nearly free.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
public class CompositionBenchmark {
    @Param({"2", "6", "16"})
    public int parts;

    @Param({"64", "1024", "16384"})
    public int bodyBytes;

    private List<String> names;
    private List<Outcome> outcomes;

    @Setup(Level.Trial)
    public void build() {
        names = new ArrayList<>(parts);
        outcomes = new ArrayList<>(parts);
        for (int i = 0; i < parts; i++) {
            names.add("part" + i);
            outcomes.add(Outcome.response("partner" + i, 200, "application/json; charset=utf-8",
                    json(bodyBytes, i), 3_000_000L + i, 1));
        }
        Composite.Response check = compose();
        if (check.status() != 200 || !check.complete()) {
            throw new IllegalStateException("the bodies were not accepted as JSON: " + check.outcome());
        }
    }

    @Benchmark
    public Composite.Response compose() {
        return Composite.compose("bench", names, outcomes, 12);
    }

    /** A JSON object of exactly {@code size} bytes: records while they fit, then a padding string. */
    static byte[] json(int size, int seed) {
        String head = "{\"items\":[";
        String tail = "],\"pad\":\"\"}";
        StringBuilder items = new StringBuilder();
        for (int n = 0; ; n++) {
            String item = (n > 0 ? "," : "") + "{\"id\":" + (seed * 1000 + n) + ",\"name\":\"item-" + n
                    + "\",\"price\":" + (n % 97) + ".5,\"tags\":[\"a\",\"b\"],\"ok\":true}";
            if (head.length() + items.length() + item.length() + tail.length() > size) {
                break;
            }
            items.append(item);
        }
        int pad = size - head.length() - items.length() - tail.length();
        if (pad < 0) {
            throw new IllegalArgumentException("bodyBytes: " + size + " (accepted: at least " + (head.length()
                    + tail.length()) + ")");
        }
        String text = head + items + "],\"pad\":\"" + "x".repeat(pad) + "\"}";
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
