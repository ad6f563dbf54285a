package io.rc10k.benchmarks.load;

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

/** {@code mashup-server.jar} as a process of its own, on an ephemeral port, as a load experiment needs it. */
final class MashupProcess implements AutoCloseable {
    static final Path DEFAULT_JAR = Path.of("mashup-server", "target", "mashup-server.jar");
    private static final Pattern READY = Pattern.compile("mashup-server ready on (http://\\S+)");

    private final Process process;
    private final URI uri;

    private MashupProcess(Process process, URI uri) {
        this.process = process;
        this.uri = uri;
    }

    static MashupProcess start(Path jar, List<String> jvmArgs, List<String> args) throws IOException {
        if (!Files.isRegularFile(jar)) {
            throw new IOException("no mashup-server jar at " + jar.toAbsolutePath()
                    + "; build it first with ./mvnw -q package -DskipTests");
        }
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmArgs);
        command.addAll(List.of("-Dorg.slf4j.simpleLogger.log.org.eclipse.jetty.server.RequestLog=warn", "-jar",
                jar.toString(), "--port", "0"));
        command.addAll(args);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<URI> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    Matcher m = READY.matcher(line);
                    if (m.find()) {
                        ready.complete(URI.create(m.group(1)));
                    } else if (!line.startsWith("try:") && !line.startsWith("      curl")) {
                        System.out.println("[mashup] " + line);
                    }
                }
            } catch (IOException e) {
                ready.completeExceptionally(e);
            }
            ready.completeExceptionally(new IOException("mashup-server exited before it was ready"));
        }, "mashup-process-output");
        reader.setDaemon(true);
        reader.start();
        try {
            return new MashupProcess(process, ready.get(60, TimeUnit.SECONDS));
        } catch (Exception e) {
            process.destroyForcibly();
            throw new IOException("mashup-server did not start: " + String.join(" ", command), e);
        }
    }

    URI uri() {
        return uri;
    }

    long pid() {
        return process.pid();
    }

    /** A full GC in the server, through {@code jcmd}, so that heap used afterwards is the live heap. */
    void gc() throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        Path jcmd = Path.of(java).resolveSibling("jcmd");
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "GC.run")
                .redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        p.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
