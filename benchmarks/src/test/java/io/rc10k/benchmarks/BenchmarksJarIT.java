package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The documented commands against the built {@code benchmarks.jar}: {@code -l} lists the whole suite,
 * and a benchmark runs from the jar in a fork of its own with the shortest settings.
 */
class BenchmarksJarIT {
    private static final Path JAR = Path.of(System.getProperty("rc10k.benchmarks.jar", "target/benchmarks.jar"));

    @Test
    void listsEveryBenchmarkOfTheSuite() throws Exception {
        String out = run("-l");
        for (String benchmark : List.of("FanOutBenchmark.brokerAsync", "FanOutBenchmark.blockingSendThreadPerCall",
                "FanOutBenchmark.blockingSendVirtualThreadPerCall", "FanOutBenchmark.jdkHttpClientSendAsync",
                "CompositionBenchmark.compose", "TemplateBenchmark.expand", "TemplateBenchmark.parseAndExpand",
                "MashupEndToEndBenchmark.mashup")) {
            assertTrue(out.contains("io.rc10k.benchmarks." + benchmark + "\n"), benchmark + " missing from:\n" + out);
        }
    }

    @Test
    void runsABenchmarkInAForkWithTheShortestSettings() throws Exception {
        String out = run("TemplateBenchmark.expand", "-p", "value=plain", "-f", "1", "-wi", "0", "-i", "1", "-r",
                "200ms", "-prof", "gc");
        assertTrue(out.contains("TemplateBenchmark.expand:gc.alloc.rate.norm"), out);
    }

    private static String run(String... args) throws IOException, InterruptedException {
        // JMH takes a machine-wide lock (/tmp/jmh.lock) so that two benchmark runs do not measure each other; this
        // test checks only that the commands work, so another build's JMH run on the machine must not fail it.
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-Djmh.ignoreLock=true", "-jar", JAR.toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "still running: " + command);
            assertEquals(0, process.exitValue(), out);
            return out;
        } finally {
            process.destroyForcibly();
        }
    }
}
