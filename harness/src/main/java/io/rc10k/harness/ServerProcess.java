package io.rc10k.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A server JVM of its own — partner stubs, the mashup server, the hello-world — started from a
 * command line, ready once it prints its address, and measured from outside through
 * {@code /proc/<pid>/stat}, so that what the experiment's own process does never counts as the
 * server's. The one launcher of every experiment: benchmarks and jmeter-plans.
 */
public final class ServerProcess implements AutoCloseable {
    /**
     * The mashup server's options that turn its access log off: a line per request is an operator's
     * choice, and in a measured run it is CPU and garbage the mashup itself does not cost.
     */
    public static final List<String> NO_ACCESS_LOG = List.of("--log-level", "org.eclipse.jetty.server.RequestLog=off");
    private static final int KEPT_LINES = 20;

    private final String label;
    private final Process process;
    private final URI uri;
    private final String readyLine;

    private ServerProcess(String label, Process process, URI uri, String readyLine) {
        this.label = label;
        this.process = process;
        this.uri = uri;
        this.readyLine = readyLine;
    }

    /**
     * Runs {@code command} and waits, bounded, for a line matching {@code ready} (group 1: the base URI).
     * Its output is echoed with {@code [label]} in front; if it exits first, its last lines are in the exception.
     */
    public static ServerProcess start(String label, List<String> command, Pattern ready) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<String> address = new CompletableFuture<>();
        Thread reader = new Thread(() -> echoUntilExit(label, process, ready, address), label + "-output");
        reader.setDaemon(true);
        reader.start();
        try {
            String line = address.get(60, TimeUnit.SECONDS);
            Matcher m = ready.matcher(line);
            m.find();
            return new ServerProcess(label, process, URI.create(m.group(1)), line);
        } catch (Exception e) {
            process.destroyForcibly();
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IOException(label + " did not start: " + String.join(" ", command) + "\n" + cause.getMessage(),
                    cause);
        }
    }

    /**
     * Runs {@code java [jvmArgs] -jar jar [args]} on this JVM's own {@code java}; a missing jar is
     * named with the command that builds it.
     */
    public static ServerProcess startJar(String label, Path jar, List<String> jvmArgs, List<String> args, Pattern ready)
            throws IOException {
        if (!Files.isRegularFile(jar)) {
            throw new IOException("no " + label + " jar at " + jar.toAbsolutePath()
                    + "; build it first with ./mvnw -q package -DskipTests");
        }
        List<String> command = new ArrayList<>();
        command.add(javaCommand());
        command.addAll(jvmArgs);
        command.add("-jar");
        command.add(jar.toString());
        command.addAll(args);
        return start(label, command, ready);
    }

    /**
     * The command line of a mashup server JVM: {@code java [jvmArgs] -jar jar --config definitions
     * --port 0 --log-level org.eclipse.jetty.server.RequestLog=off [args]}: the access log off
     * ({@link #NO_ACCESS_LOG}).
     */
    public static List<String> mashupCommand(String java, List<String> jvmArgs, Path jar, Path definitions,
            List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(jvmArgs);
        command.addAll(List.of("-jar", jar.toString(), "--config", definitions.toString(), "--port", "0"));
        command.addAll(NO_ACCESS_LOG);
        command.addAll(args);
        return command;
    }

    /** A port free now (for a server's admin connector, say); another process could take it first. */
    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** This JVM's own {@code java}, so that servers run on the same JDK as the experiment. */
    public static String javaCommand() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    private static void echoUntilExit(String label, Process process, Pattern ready, CompletableFuture<String> address) {
        Deque<String> last = new ArrayDeque<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                Matcher m = ready.matcher(line);
                if (!address.isDone() && m.find()) {
                    address.complete(line);
                } else if (!line.startsWith("try:") && !line.startsWith("      curl")) {
                    System.out.println("[" + label + "] " + line);
                }
                last.addLast(line);
                if (last.size() > KEPT_LINES) {
                    last.removeFirst();
                }
            }
        } catch (IOException e) {
            address.completeExceptionally(e);
        }
        if (!address.isDone()) {
            try {
                address.completeExceptionally(new IOException("exited with status " + process.waitFor()
                        + " before it was ready; its last output:\n  " + String.join("\n  ", last)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public URI uri() {
        return uri;
    }

    /** The line that said it was ready (the mashup server's names the limits it derived). */
    public String readyLine() {
        return readyLine;
    }

    public long pid() {
        return process.pid();
    }

    /** A full GC in the server through {@code jcmd}, so that heap used afterwards is the live heap. */
    public void gc() throws IOException, InterruptedException {
        Path jcmd = Path.of(javaCommand()).resolveSibling("jcmd");
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "GC.run")
                .redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        p.waitFor(30, TimeUnit.SECONDS);
    }

    /**
     * CPU time used so far by all its threads, living and ended: {user, system} in ms, from fields 14
     * and 15 of {@code /proc/<pid>/stat} (clock ticks of 10 ms: USER_HZ is 100 on Linux). System time
     * is kept apart because a JFR execution sample never sees it: it is the kernel's, in system calls.
     * A server that has exited is named in the {@code IOException}, with its exit status.
     */
    public long[] cpuMillis() throws IOException {
        if (!process.isAlive()) {
            throw new IOException(label + " (pid " + process.pid() + ") is no longer running: it exited with status "
                    + process.exitValue() + " (143: SIGTERM, 137: SIGKILL)");
        }
        String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return new long[] {Long.parseLong(fields[11]) * 10, Long.parseLong(fields[12]) * 10};
    }

    /**
     * SIGTERM, then waits at most {@code boundMillis} for the exit: its status (143 after a graceful stop), or -1
     * if it still runs (then it is left running: the caller decides).
     */
    public int terminate(long boundMillis) throws InterruptedException {
        process.destroy();
        return process.waitFor(boundMillis, TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    }

    /** SIGKILL, as a crash would end it: what it had in flight is lost. Returns its exit status (137). */
    public int kill() throws InterruptedException {
        process.destroyForcibly();
        return process.waitFor(30, TimeUnit.SECONDS) ? process.exitValue() : -1;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                System.out.println("[" + label + "] did not stop within 20 s of SIGTERM; killed");
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
