package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The quick variant of the JMH suite, so that its benchmarks never rot: each benchmark runs once,
 * in this JVM (fork 0), for one 200 ms iteration with one parameter set, through JMH's own
 * {@link Runner}. Checks that it ran and returned a score, never what the score is. Each parameter
 * is pinned, so that one run gives one result.
 */
class BenchmarkSuiteTest {
    /**
     * JMH takes a machine-wide lock (/tmp/jmh.lock) so that two benchmark runs do not measure each other.
     * This suite checks only that each benchmark runs and scores, so another build's JMH run on the same
     * machine must not fail it (it did, with two builds side by side).
     */
    @BeforeAll
    static void shareTheMachine() {
        System.setProperty("jmh.ignoreLock", "true");
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
            "FanOutBenchmark.brokerAsync, calls=6",
            "FanOutBenchmark.blockingSendThreadPerCall, calls=6",
            "FanOutBenchmark.jdkHttpClientSendAsync, calls=6",
            "CompositionBenchmark.compose, parts=6 bodyBytes=1024",
            "TemplateBenchmark.expand, value=encoded",
            "TemplateBenchmark.parseAndExpand, value=plain",
            "MashupEndToEndBenchmark.mashup, mode=async calls=6",
            "MashupEndToEndBenchmark.mashup, mode=sync calls=1",
    })
    void benchmarkRunsOneShortIterationAndScores(String benchmark, String params) throws Exception {
        ChainedOptionsBuilder options = quick(benchmark);
        for (String pair : params.split(" ")) {
            String[] nameAndValue = pair.split("=");
            options.param(nameAndValue[0], nameAndValue[1]);
        }
        Collection<RunResult> results = new Runner(options.build()).run();
        assertEquals(1, results.size(), benchmark + ": one parameter set, one result");
        double score = results.iterator().next().getPrimaryResult().getScore();
        assertTrue(score > 0, benchmark + " scored " + score);
    }

    @Test
    void virtualThreadBenchmarkRunsOnJdk21AndFailsWithAClearMessageBefore() throws Exception {
        ChainedOptionsBuilder options = quick("FanOutBenchmark.blockingSendVirtualThreadPerCall").param("calls", "1");
        if (Runtime.version().feature() >= 21) {
            Collection<RunResult> results = new Runner(options.build()).run();
            assertTrue(results.iterator().next().getPrimaryResult().getScore() > 0);
        } else {
            RunnerException failure = assertThrows(RunnerException.class, () -> new Runner(options.build()).run());
            assertTrue(causes(failure).contains("needs virtual threads (JDK 21 or newer)"), causes(failure));
        }
    }

    private static ChainedOptionsBuilder quick(String benchmark) {
        return new OptionsBuilder()
                .include("io\\.rc10k\\.benchmarks\\." + benchmark.replace(".", "\\.") + "$")
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(200))
                .timeout(TimeValue.seconds(30))
                .threads(2)
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .timeUnit(TimeUnit.SECONDS);
    }

    private static String causes(Throwable t) {
        StringBuilder all = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            all.append(c).append('\n');
            for (Throwable s : c.getSuppressed()) {
                all.append(causes(s));
            }
        }
        return all.toString();
    }
}
