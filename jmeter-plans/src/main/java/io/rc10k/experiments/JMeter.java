package io.rc10k.experiments;

import io.rc10k.harness.ServerProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs a plan in non-GUI mode on the JMeter installation that {@code jmeter-plans/engine} lays out,
 * in a JVM of its own (the same {@code java} as the harness):
 * {@code java -jar <home>/bin/ApacheJMeter.jar -n -t plan -l results.jtl -Jname=value…}.
 */
final class JMeter {
    private static final Pattern STARTED = Pattern.compile("^Starting standalone test @ .*\\((\\d+)\\)");
    private final Path home;

    JMeter(Path home) throws IOException {
        Path launcher = home.resolve("bin").resolve("ApacheJMeter.jar");
        if (!Files.isRegularFile(launcher)) {
            throw new IOException("no JMeter at " + home.toAbsolutePath() + " (no bin/ApacheJMeter.jar); build it with "
                    + "./mvnw -q package -DskipTests, or name another installation with --jmeter-home");
        }
        this.home = home;
    }

    /**
     * Runs {@code plan} with {@code properties} and waits for it, at most {@code bound}; JMeter's
     * summary lines are echoed with {@code [jmeter]} in front. The results go to {@code jtl}, JMeter's
     * log beside it.
     *
     * @return when JMeter started the test (epoch ms, from its "Starting standalone test" line; the
     *         schedule and ramp-up count from there), or -1 if it did not say
     */
    long run(Path plan, Path jtl, Map<String, String> properties, Duration bound) throws IOException,
            InterruptedException {
        Files.deleteIfExists(jtl);
        Path log = jtl.resolveSibling(jtl.getFileName().toString().replaceFirst("\\.jtl$", "") + ".log");
        List<String> command = new ArrayList<>(List.of(ServerProcess.javaCommand(),
                // A thread per user: small stacks keep 2,000 of them cheap; the heap holds the results.
                "-Xss512k", "-Xms512m", "-Xmx4g",
                "-jar", home.resolve("bin").resolve("ApacheJMeter.jar").toString(),
                "-n", "-t", plan.toString(), "-l", jtl.toString(), "-j", log.toString(),
                "-Jsummariser.interval=10"));
        properties.forEach((k, v) -> command.add("-J" + k + "=" + v));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        CountDownLatch ended = new CountDownLatch(1);
        AtomicLong started = new AtomicLong(-1);
        Thread echo = new Thread(() -> echo(process, ended, started), "jmeter-output");
        echo.setDaemon(true);
        echo.start();
        long deadline = System.nanoTime() + bound.toNanos();
        while (!ended.await(1, TimeUnit.SECONDS) && process.isAlive()) {
            if (System.nanoTime() > deadline) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new IOException("JMeter did not finish within " + bound.toSeconds() + " s; stopped. Its log: "
                        + log);
            }
        }
        // After "... end of run" an Open Model Thread Group's JVM lingers about a minute (idle pool threads);
        // the results are written by then, so it is stopped after a short grace.
        boolean exited = process.waitFor(5, TimeUnit.SECONDS);
        if (!exited) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        echo.join(5_000);
        if (exited && process.exitValue() != 0) {
            throw new IOException("JMeter exited with status " + process.exitValue() + "; its log: " + log);
        }
        if (!Files.isRegularFile(jtl)) {
            throw new IOException("JMeter wrote no results to " + jtl + "; its log: " + log);
        }
        return started.get();
    }

    private static void echo(Process process, CountDownLatch ended, AtomicLong started) {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("... end of run")) {
                    ended.countDown();
                }
                Matcher start = STARTED.matcher(line);
                if (start.find()) {
                    started.set(Long.parseLong(start.group(1)));
                }
                if (line.startsWith("summary") || line.contains("rror") && !line.contains("StatusConsoleListener")) {
                    System.out.println("[jmeter] " + line);
                }
            }
        } catch (IOException e) {
            // The process ended.
        }
    }
}
