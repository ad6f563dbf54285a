package io.rc10k.mashup;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stock {@code jetty-home} (unpacked by the build) run as a deployer runs it: a fresh base made with
 * {@code --add-modules}, then {@code start.jar} in a process of its own on 127.0.0.1 and a port the kernel picks.
 *
 * <pre>{@code
 * Path base = JettyDistribution.newBase(dir, "http,ee11-deploy");
 * // ... put WARs and context XMLs into base/webapps
 * try (JettyDistribution jetty = JettyDistribution.start(base)) {
 *     URI app = jetty.uri.resolve("/app/");
 *     String log = jetty.output();
 * }
 * }</pre>
 */
final class JettyDistribution implements AutoCloseable {
    static final Path HOME = Path.of(System.getProperty("rc10k.jetty.home", "target/jetty-home"));
    private static final long DEADLINE_SECONDS = 60;
    private static final Pattern CONNECTOR = Pattern.compile(
            "Started oejs\\.ServerConnector@.*\\{127\\.0\\.0\\.1:(\\d+)}");
    private static final String STARTED = "Started oejs.Server@";

    final URI uri;
    private final Process process;
    private final StringBuffer output;

    private JettyDistribution(Process process, URI uri, StringBuffer output) {
        this.process = process;
        this.uri = uri;
        this.output = output;
    }

    /** Makes {@code dir} a Jetty base with the modules named, and a {@code work/} there for unpacked WARs. */
    static Path newBase(Path dir, String modules) throws Exception {
        if (!Files.isRegularFile(HOME.resolve("start.jar"))) {
            throw new IllegalStateException("no jetty-home at " + HOME + " (the build unpacks it before the ITs)");
        }
        Files.createDirectories(dir);
        String add = "--add-modules=" + modules;
        Process process = startJar(dir, List.of(add));
        StringBuffer output = new StringBuffer();
        Thread reader = read(process, output, line -> { }, () -> { });
        if (!process.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new TimeoutException(add + " took over " + DEADLINE_SECONDS + " s:\n" + output);
        }
        reader.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
        if (process.exitValue() != 0) {
            throw new IllegalStateException(add + " exited " + process.exitValue() + ":\n" + output);
        }
        // Jetty unpacks WARs under $JETTY_BASE/work when it exists, so a killed server leaves nothing in /tmp.
        Files.createDirectories(dir.resolve("work"));
        return dir;
    }

    /** Starts the server of {@code base} and waits (bounded) until it has started, every context deployed or failed. */
    static JettyDistribution start(Path base, String... arguments) throws Exception {
        List<String> args = new ArrayList<>(List.of("jetty.http.host=127.0.0.1", "jetty.http.port=0"));
        args.addAll(List.of(arguments));
        Process process = startJar(base, args);
        StringBuffer output = new StringBuffer();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        CompletableFuture<Void> started = new CompletableFuture<>();
        read(process, output, line -> {
            Matcher m = CONNECTOR.matcher(line);
            if (m.find()) {
                port.complete(Integer.parseInt(m.group(1)));
            }
            if (line.contains(STARTED)) {
                started.complete(null);
            }
        }, () -> started.completeExceptionally(new IOException("the output ended, exit " + exit(process))));
        try {
            started.get(DEADLINE_SECONDS, TimeUnit.SECONDS);
            if (!port.isDone()) {
                throw new IllegalStateException("started, but no connector on 127.0.0.1 in the log");
            }
            return new JettyDistribution(process, URI.create("http://127.0.0.1:" + port.join()), output);
        } catch (Exception e) {
            stop(process);
            throw new AssertionError("Jetty did not start (deadline " + DEADLINE_SECONDS + " s):\n" + output, e);
        }
    }

    private static Process startJar(Path base, List<String> arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-jar", HOME.resolve("start.jar").toString(),
                "jetty.home=" + HOME.toAbsolutePath(), "jetty.base=" + base.toAbsolutePath()));
        command.addAll(arguments);
        return new ProcessBuilder(command).directory(base.toFile()).redirectErrorStream(true).start();
    }

    /** Copies the process's output into {@code output}, telling {@code onLine} each line and {@code onEnd} the end. */
    private static Thread read(Process process, StringBuffer output, Consumer<String> onLine, Runnable onEnd) {
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    output.append(line).append('\n');
                    onLine.accept(line);
                }
            } catch (IOException e) {
                output.append("(reading the output failed: ").append(e).append(")\n");
            }
            onEnd.run();
        }, "jetty-distribution-output");
        reader.setDaemon(true);
        reader.start();
        return reader;
    }

    private static String exit(Process process) {
        try {
            return process.waitFor(5, TimeUnit.SECONDS) ? String.valueOf(process.exitValue()) : "still running";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /** Everything the container has written so far, stdout and stderr together: its log. */
    String output() {
        return output.toString();
    }

    @Override
    public void close() {
        stop(process);
    }

    /** SIGTERM (Jetty stops its contexts), then a kill if it has not exited within the deadline. */
    private static void stop(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
