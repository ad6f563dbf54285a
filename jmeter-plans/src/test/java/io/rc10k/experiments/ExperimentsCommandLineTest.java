package io.rc10k.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.harness.BuildVersion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The experiments' command line, run as a user runs it (a JVM of its own): {@code --help} and {@code --version}
 * exit 0; a bad line exits 2 naming the option — and starts no stub, server or JMeter.
 */
class ExperimentsCommandLineTest {
    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Experiments.class.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).start();
        process.getOutputStream().close();
        byte[] out = process.getInputStream().readAllBytes();
        byte[] err = process.getErrorStream().readAllBytes();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "experiments did not end");
        return new Run(process.exitValue(), new String(out, StandardCharsets.UTF_8),
                new String(err, StandardCharsets.UTF_8));
    }

    @Test
    void helpPrintsTheUsageAndExits0() throws Exception {
        Run run = run("thread-count", "--help");
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().startsWith("usage: experiments thread-count|open-model|reactor-surface [options]"), run.toString());
    }

    @Test
    void versionPrintsTheProjectVersionAndExits0() throws Exception {
        Run run = run("--version");
        assertEquals(0, run.exit(), run.toString());
        assertEquals("experiments " + BuildVersion.version(), run.out().strip());
    }

    @Test
    void aBadLineExits2NamingTheOption() throws Exception {
        assertBadLine("--colour: unknown option", "thread-count", "--colour");
        assertBadLine("--users: needs a value", "thread-count", "--users");
        assertBadLine("--users: not a list of whole numbers: 10,many", "thread-count", "--users", "10,many");
        assertBadLine("--phase-seconds: 0 (accepted: numbers > 0)", "open-model", "--phase-seconds", "0");
        assertBadLine("--modes: fast (accepted: sync, async, virtual)", "open-model", "--modes", "fast");
        assertBadLine("fig-4: not one of thread-count, open-model, reactor-surface", "fig-4");
        assertBadLine("no experiment named (accepted: thread-count, open-model, reactor-surface)");
        assertBadLine("--kinds: \"nap\" (accepted: sleep, cpu, c1, c6)", "reactor-surface", "--kinds", "nap");
        assertBadLine("--clients: 30000 (accepted: 1 to 19000: the client holds a socket each, under a limit of 20,000 "
                + "open files)", "reactor-surface", "--clients", "30000");
        assertBadLine("--connections: pipelined (accepted: keep-alive, close)", "reactor-surface", "--connections",
                "pipelined");
    }

    private static void assertBadLine(String named, String... args) throws Exception {
        Run run = run(args);
        assertEquals(2, run.exit(), run.toString());
        assertTrue(run.err().startsWith("experiments: " + named + "; usage: experiments "), run.toString());
        assertEquals("", run.out(), run.toString());
    }
}
