package io.rc10k.benchmarks.capacity;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code partner-stubs.jar} running as a process of its own, on an ephemeral loopback port, so that
 * what it measures about itself (threads, connections) is not mixed with the load generator's.
 */
public final class StubProcess implements AutoCloseable {
    /** Where the jar is after {@code ./mvnw package}, relative to the repository root. */
    public static final Path DEFAULT_JAR = Path.of("partner-stubs", "target", "partner-stubs.jar");
    private static final Pattern READY = Pattern.compile("partner-stubs ready .* on: (http://\\S+)");

    private final Process process;
    private final URI uri;

    private StubProcess(Process process, URI uri) {
        this.process = process;
        this.uri = uri;
    }

    /** Starts the stub jar with {@code args} (plus {@code --port 0}) and waits, bounded, until it is ready. */
    public static StubProcess start(Path jar, List<String> jvmArgs, List<String> args) throws IOException {
        if (!Files.isRegularFile(jar)) {
            throw new IOException("no stub jar at " + jar.toAbsolutePath()
                    + "; build it first with ./mvnw -q package -DskipTests (or pass --stub-jar)");
        }
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmArgs);
        command.add("-jar");
        command.add(jar.toString());
        command.add("--port");
        command.add("0");
        command.addAll(args);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<URI> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> echoUntilExit(process, ready), "stub-process-output");
        reader.setDaemon(true);
        reader.start();
        try {
            return new StubProcess(process, ready.get(30, TimeUnit.SECONDS));
        } catch (Exception e) {
            process.destroyForcibly();
            throw new IOException("partner stubs did not start: " + String.join(" ", command), e);
        }
    }

    private static void echoUntilExit(Process process, CompletableFuture<URI> ready) {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                Matcher m = READY.matcher(line);
                if (m.find()) {
                    ready.complete(URI.create(m.group(1)));
                } else if (!line.startsWith("try:") && !line.startsWith("      curl")) {
                    System.out.println("[stubs] " + line);
                }
            }
        } catch (IOException e) {
            ready.completeExceptionally(e);
        }
        if (!ready.isDone()) {
            try {
                ready.completeExceptionally(new IOException("stub process exited with " + process.waitFor()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public URI uri() {
        return uri;
    }

    public long pid() {
        return process.pid();
    }

    /** CPU time (user + system) the stub process has used so far, from /proc; -1 where there is no /proc. */
    public long cpuMillis() {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            return ticks * 1000 / 100; // USER_HZ is 100 on Linux
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
