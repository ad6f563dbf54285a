package io.rc10k.mashup;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** mashup-server.jar as a process of its own, started as the README says, for tests that need its own JVM. */
final class JarProcess implements AutoCloseable {
    static final String JAR = System.getProperty("rc10k.mashup.jar", "target/mashup-server.jar");
    private static final Pattern READY = Pattern.compile("mashup-server ready on (http://\\S+)");
    private static final Pattern LIVE_VIEW = Pattern.compile("^live view: (http://\\S+)");

    final Process process;
    final URI uri;
    /** Everything the process printed so far (stdout and stderr), line by line. */
    final StringBuffer output;
    /** The dashboard's address on the admin port, once the server has printed it (never, without an admin port). */
    final CompletableFuture<URI> liveView;
    private final Thread reader;

    private JarProcess(Process process, URI uri, StringBuffer output, Thread reader, CompletableFuture<URI> liveView) {
        this.process = process;
        this.uri = uri;
        this.output = output;
        this.reader = reader;
        this.liveView = liveView;
    }

    static Process run(String... args) throws IOException {
        return run(Map.of(), args);
    }

    /** {@code java -jar mashup-server.jar args}, with {@code environment} added to this process's. */
    static Process run(Map<String, String> environment, String... args) throws IOException {
        return launch(environment, List.of("-jar", JAR), args);
    }

    private static Process launch(Map<String, String> environment, List<String> what, String... args)
            throws IOException {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
        command.addAll(what);
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(environment);
        return builder.start();
    }

    static JarProcess start(String... args) throws Exception {
        return start(Map.of(), args);
    }

    static JarProcess start(Map<String, String> environment, String... args) throws Exception {
        return watch(run(environment, args));
    }

    /**
     * The same server from its modules rather than the shaded jar: the module's jar and its dependencies'
     * on the module path ({@code modulePath}), run as {@code io.rc10k.mashup/io.rc10k.mashup.Main}, with the
     * optional modules the demo and the logging need added to the graph.
     */
    static JarProcess startModules(String modulePath, String... args) throws Exception {
        return watch(launch(Map.of(), List.of("--module-path", modulePath, "--add-modules",
                "io.rc10k.stubs,ch.qos.logback.classic,jul.to.slf4j", "-m", "io.rc10k.mashup/io.rc10k.mashup.Main"),
                args));
    }

    private static JarProcess watch(Process process) throws Exception {
        CompletableFuture<URI> ready = new CompletableFuture<>();
        CompletableFuture<URI> liveView = new CompletableFuture<>();
        JarProcess[] self = new JarProcess[1];
        StringBuffer output = new StringBuffer();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    output.append(line).append('\n');
                    Matcher m = READY.matcher(line);
                    if (m.find()) {
                        ready.complete(URI.create(m.group(1)));
                    }
                    Matcher live = LIVE_VIEW.matcher(line);
                    if (live.find()) {
                        liveView.complete(URI.create(live.group(1)));
                    }
                }
            } catch (IOException e) {
                output.append("[reading the output failed: ").append(e).append("]\n");
                ready.completeExceptionally(e);
            }
            ready.completeExceptionally(new IOException("exited before ready:\n" + output));
            liveView.completeExceptionally(new IOException("exited without printing its live view:\n" + output));
        }, "mashup-jar-output");
        reader.setDaemon(true);
        reader.start();
        try {
            JarProcess jar = new JarProcess(process, ready.get(60, TimeUnit.SECONDS), output, reader, liveView);
            self[0] = jar;
            return jar;
        } catch (Exception e) {
            process.destroyForcibly();
            throw e;
        }
    }

    /**
     * SIGTERM, then waits (bounded) for the exit status and for the last line of output: afterwards
     * {@link #output} holds everything the process printed, its graceful stop included.
     */
    int stop() throws InterruptedException {
        // Through the handle: Process.destroy() would also close the output stream, losing the lines of the stop.
        process.toHandle().destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the server did not exit within 60 s of SIGTERM");
        }
        reader.join(TimeUnit.SECONDS.toMillis(30));
        if (reader.isAlive()) {
            throw new AssertionError("the server's output did not end within 30 s of its exit");
        }
        return process.exitValue();
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
