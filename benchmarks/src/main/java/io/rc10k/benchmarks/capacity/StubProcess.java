package io.rc10k.benchmarks.capacity;

import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@code partner-stubs.jar} running as a process of its own, on an ephemeral loopback port, so that
 * what it measures about itself (threads, connections) is not mixed with the load generator's.
 */
public final class StubProcess implements AutoCloseable {
    /** Where the jar is after {@code ./mvnw package}, relative to the repository root. */
    public static final Path DEFAULT_JAR = Path.of("partner-stubs", "target", "partner-stubs.jar");
    private static final Pattern READY = Pattern.compile("partner-stubs ready .* on: (https?://\\S+)");

    private final ServerProcess process;

    private StubProcess(ServerProcess process) {
        this.process = process;
    }

    /** Starts the stub jar with {@code args} (plus {@code --port 0}) and waits, bounded, until it is ready. */
    public static StubProcess start(Path jar, List<String> jvmArgs, List<String> args) throws IOException {
        List<String> all = new ArrayList<>(List.of("--port", "0"));
        all.addAll(args);
        return new StubProcess(ServerProcess.startJar("stubs", jar, jvmArgs, all, READY));
    }

    public URI uri() {
        return process.uri();
    }

    public long pid() {
        return process.pid();
    }

    /** CPU time (user + system) the stub process has used so far, from /proc; -1 where there is no /proc. */
    public long cpuMillis() {
        try {
            long[] cpu = process.cpuMillis();
            return cpu[0] + cpu[1];
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    @Override
    public void close() {
        process.close();
    }
}
