package io.rc10k.benchmarks.load;

import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** {@code mashup-server.jar} as a process of its own, on an ephemeral port, access log off, as a load experiment needs it. */
public final class MashupProcess implements AutoCloseable {
    public static final Path DEFAULT_JAR = Path.of("mashup-server", "target", "mashup-server.jar");
    private static final Pattern READY = Pattern.compile("mashup-server ready on (http://\\S+)");

    private final ServerProcess process;

    private MashupProcess(ServerProcess process) {
        this.process = process;
    }

    public static MashupProcess start(Path jar, List<String> jvmArgs, List<String> args) throws IOException {
        List<String> all = new ArrayList<>(List.of("--port", "0"));
        all.addAll(ServerProcess.NO_ACCESS_LOG);
        all.addAll(args);
        return new MashupProcess(ServerProcess.startJar("mashup", jar, jvmArgs, all, READY));
    }

    public URI uri() {
        return process.uri();
    }

    public long pid() {
        return process.pid();
    }

    /** A full GC in the server, so that heap used afterwards is the live heap. */
    public void gc() throws IOException, InterruptedException {
        process.gc();
    }

    @Override
    public void close() {
        process.close();
    }
}
