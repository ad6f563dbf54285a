package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.benchmarks.capacity.StubCapacity;
import io.rc10k.benchmarks.efficiency.Efficiency;
import io.rc10k.benchmarks.load.LoadExperiment;
import io.rc10k.benchmarks.peers.Peers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each tool, run as a user runs it (a JVM of its own): {@code --help} prints the usage and exits 0; an
 * unknown option, or an option without its value, exits 2 naming it — and starts nothing.
 */
class ToolCommandLinesTest {
    private record Run(int exit, String out, String err) {
    }

    private static Run run(Class<?> tool, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), tool.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).start();
        process.getOutputStream().close();
        byte[] out = process.getInputStream().readAllBytes();
        byte[] err = process.getErrorStream().readAllBytes();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), tool.getSimpleName() + " did not end");
        return new Run(process.exitValue(), new String(out, StandardCharsets.UTF_8),
                new String(err, StandardCharsets.UTF_8));
    }

    private static Class<?> tool(String name) {
        return switch (name) {
            case "efficiency" -> Efficiency.class;
            case "stub-capacity" -> StubCapacity.class;
            case "load-experiment" -> LoadExperiment.class;
            case "peers" -> Peers.class;
            default -> throw new IllegalArgumentException(name);
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"efficiency", "stub-capacity", "load-experiment", "peers"})
    void helpPrintsTheUsage(String name) throws Exception {
        Run run = run(tool(name), "--help");
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().startsWith("usage: "), run.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"efficiency", "stub-capacity", "load-experiment", "peers"})
    void aBadLineExits2NamingTheOption(String name) throws Exception {
        Run unknown = run(tool(name), "--colour");
        assertEquals(2, unknown.exit(), unknown.toString());
        assertTrue(unknown.err().contains("--colour"), unknown.toString());
        String option = name.equals("load-experiment") ? "--minutes" : name.equals("stub-capacity") ? "--requests"
                : "--measure";
        List<String> line = name.equals("load-experiment") ? List.of("soak", option) : List.of(option);
        Run missing = run(tool(name), line.toArray(String[]::new));
        assertEquals(2, missing.exit(), missing.toString());
        assertTrue(missing.err().contains(option), missing.toString());
    }
}
