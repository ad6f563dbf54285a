package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.capacity.ColdBurst;
import io.rc10k.benchmarks.capacity.DeadlineOvershoot;
import io.rc10k.benchmarks.capacity.HeapPerMashup;
import io.rc10k.benchmarks.capacity.OpenModelH2c;
import io.rc10k.benchmarks.capacity.RequiredFailureLatency;
import io.rc10k.benchmarks.capacity.StubCapacity;
import io.rc10k.benchmarks.efficiency.Efficiency;
import io.rc10k.benchmarks.efficiency.HelloServer;
import io.rc10k.benchmarks.fleet.FleetExperiment;
import io.rc10k.benchmarks.fleet.RollingRestart;
import io.rc10k.benchmarks.load.LoadExperiment;
import io.rc10k.benchmarks.peers.HttpsCost;
import io.rc10k.benchmarks.peers.JdkFanOut;
import io.rc10k.benchmarks.peers.JettyFanOut;
import io.rc10k.benchmarks.peers.Peers;
import io.rc10k.benchmarks.peers.VertxFanOut;
import io.rc10k.benchmarks.tuning.Tuning;
import io.rc10k.harness.BuildVersion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each tool with a main, run as a user runs it (a JVM of its own): {@code --help} prints the usage and exits 0;
 * {@code --version} prints the project's version and exits 0; an unknown option, an option without its value
 * or with a value that is not a number exits 2 naming it — and starts nothing.
 */
class ToolCommandLinesTest {
    private record Run(int exit, String out, String err) {
    }

    /** A tool's main class and one of its options that takes a number. */
    private record Tool(Class<?> main, String numberOption) {
    }

    private static Tool tool(String name) {
        return switch (name) {
            case "efficiency" -> new Tool(Efficiency.class, "--measure");
            case "stub-capacity" -> new Tool(StubCapacity.class, "--requests");
            case "load-experiment" -> new Tool(LoadExperiment.class, "--max-inflight");
            case "fleet" -> new Tool(FleetExperiment.class, "--phase-seconds");
            case "rolling-restart" -> new Tool(RollingRestart.class, "--instances");
            case "peers" -> new Tool(Peers.class, "--measure");
            case "https-cost" -> new Tool(HttpsCost.class, "--measure");
            case "cold-burst" -> new Tool(ColdBurst.class, "--concurrent");
            case "heap-per-mashup" -> new Tool(HeapPerMashup.class, "--inflight");
            case "deadline-overshoot" -> new Tool(DeadlineOvershoot.class, "--repeats");
            case "required-failure-latency" -> new Tool(RequiredFailureLatency.class, "--requests");
            case "hello" -> new Tool(HelloServer.class, "--port");
            case "jdk-peer" -> new Tool(JdkFanOut.class, "--calls");
            case "jetty-peer" -> new Tool(JettyFanOut.class, "--calls");
            case "vertx-peer" -> new Tool(VertxFanOut.class, "--calls");
            case "tuning" -> new Tool(Tuning.class, "--rounds");
            case "open-model-h2c" -> new Tool(OpenModelH2c.class, "--seconds");
            default -> throw new IllegalArgumentException(name);
        };
    }

    private static Run run(String name, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), tool(name).main().getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).start();
        process.getOutputStream().close();
        byte[] out = process.getInputStream().readAllBytes();
        byte[] err = process.getErrorStream().readAllBytes();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), name + " did not end");
        return new Run(process.exitValue(), new String(out, StandardCharsets.UTF_8),
                new String(err, StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @ValueSource(strings = {"efficiency", "stub-capacity", "load-experiment", "fleet", "rolling-restart", "peers",
            "https-cost", "cold-burst", "heap-per-mashup", "deadline-overshoot", "required-failure-latency", "hello",
            "jdk-peer", "jetty-peer", "vertx-peer", "tuning", "open-model-h2c"})
    void helpPrintsTheUsageAndExits0(String name) throws Exception {
        Run run = run(name, "--help");
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().startsWith("usage: " + name + " "), run.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"efficiency", "stub-capacity", "load-experiment", "fleet", "rolling-restart", "peers",
            "https-cost", "cold-burst", "heap-per-mashup", "deadline-overshoot", "required-failure-latency", "hello",
            "jdk-peer", "jetty-peer", "vertx-peer", "tuning", "open-model-h2c"})
    void versionPrintsTheProjectVersionAndExits0(String name) throws Exception {
        Run run = run(name, "--version");
        assertEquals(0, run.exit(), run.toString());
        assertEquals(name + " " + BuildVersion.version(), run.out().strip());
    }

    @ParameterizedTest
    @ValueSource(strings = {"efficiency", "stub-capacity", "load-experiment", "fleet", "rolling-restart", "peers",
            "https-cost", "cold-burst", "heap-per-mashup", "deadline-overshoot", "required-failure-latency", "hello",
            "jdk-peer", "jetty-peer", "vertx-peer", "tuning", "open-model-h2c"})
    void aBadLineExits2NamingTheOption(String name) throws Exception {
        assertBadLine(name, "--colour: unknown option", "--colour");
        String option = tool(name).numberOption();
        assertBadLine(name, option + ": needs a value", option);
        assertBadLine(name, option + ": not a whole number: many", option, "many");
    }

    private static void assertBadLine(String name, String named, String... args) throws Exception {
        Run run = run(name, args);
        assertEquals(2, run.exit(), run.toString());
        assertTrue(run.err().startsWith(name + ": " + named + "; usage: " + name + " "), run.toString());
        assertEquals("", run.out(), run.toString());
    }
}
