package io.rc10k.benchmarks;

import io.rc10k.mashup.UriTemplate;
import java.util.Map;
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
 * What expanding one call's URI template costs, with every value percent-encoded: a plain value
 * ({@code Paris}, nothing to encode) against one that needs much encoding (spaces, reserved
 * characters and multi-byte UTF-8). {@link #expand} is what each call pays per request (the router
 * parses templates once, at load); {@link #parseAndExpand} adds the parse, for scale.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar TemplateBenchmark -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
public class TemplateBenchmark {
    static final String TEMPLATE = "/cities/{city}/weather?city={city}&days={days}&units=metric";

    /** {@code plain}: unreserved characters only; {@code encoded}: almost every byte becomes {@code %XX}. */
    @Param({"plain", "encoded"})
    public String value;

    private UriTemplate template;
    private Map<String, String> values;

    @Setup(Level.Trial)
    public void build() {
        String city = switch (value) {
            case "plain" -> "Paris";
            case "encoded" -> "São Paulo / Zürich & 東京?x=1#top";
            default -> throw new IllegalArgumentException("value: \"" + value + "\" (accepted: plain, encoded)");
        };
        values = Map.of("city", city, "days", "3");
        template = UriTemplate.parse(TEMPLATE);
    }

    @Benchmark
    public String expand() {
        return template.expand(values);
    }

    @Benchmark
    public String parseAndExpand() {
        return UriTemplate.parse(TEMPLATE).expand(values);
    }
}
