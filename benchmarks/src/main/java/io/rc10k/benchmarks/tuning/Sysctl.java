package io.rc10k.benchmarks.tuning;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One network sysctl set for the length of a sweep and put back: on {@link #close}, and by a shutdown hook if
 * the JVM ends first (an exception, Ctrl-C, SIGTERM; not SIGKILL). Only {@code net.*} settings, written under
 * {@code /proc/sys/net}, which the kernel keeps per network namespace: run the command under
 * {@code unshare -n} and the host's own settings are never touched.
 *
 * <pre>{@code
 * try (Sysctl somaxconn = Sysctl.set("net.core.somaxconn", "128")) {
 *     // ... measure ...
 * }   // back to what it was
 * }</pre>
 *
 * Every change and every restore is printed.
 */
final class Sysctl implements AutoCloseable {
    private final String name;
    private final Path file;
    private final String before;
    private final Thread restoreAtExit;
    private boolean restored;

    private Sysctl(String name, Path file, String before) {
        this.name = name;
        this.file = file;
        this.before = before;
        this.restoreAtExit = new Thread(this::restore, "sysctl-restore-" + name);
    }

    /**
     * Sets {@code name} (dotted, {@code net.} only) to {@code value}, its old value kept to put back. An
     * {@code IOException} names the setting when it cannot be read or written (not root, no such setting).
     */
    static Sysctl set(String name, String value) throws IOException {
        if (!name.startsWith("net.") || name.contains("/") || name.contains("..")) {
            throw new IllegalArgumentException("sysctl " + name + " (accepted: a net.* setting)");
        }
        Path file = Path.of("/proc/sys", name.replace('.', '/'));
        String before = read(file);
        Sysctl sysctl = new Sysctl(name, file, before);
        Runtime.getRuntime().addShutdownHook(sysctl.restoreAtExit);
        try {
            Files.writeString(file, value);
        } catch (IOException e) {
            Runtime.getRuntime().removeShutdownHook(sysctl.restoreAtExit);
            throw new IOException("cannot set " + name + " to " + value + " (" + e.getMessage()
                    + "); it needs root, or a network namespace of its own: unshare -n", e);
        }
        System.out.println("sysctl " + name + ": " + before + " -> " + read(file) + " in " + namespace()
                + " (restored when the measurement ends, or at exit)");
        return sysctl;
    }

    /** The value of a setting now, whitespace collapsed ({@code 32768 60999}). */
    static String get(String name) throws IOException {
        return read(Path.of("/proc/sys", name.replace('.', '/')));
    }

    /**
     * This process's network namespace and its interfaces ({@code net:[4026532177] (lo)}): under
     * {@code unshare -n} only {@code lo}, and a namespace of its own that vanishes with the command.
     */
    static String namespace() {
        String id;
        try {
            id = Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            id = "network namespace ?";
        }
        try {
            List<String> interfaces = Files.readAllLines(Path.of("/proc/net/dev")).stream().skip(2)
                    .map(l -> l.trim().split(":")[0]).toList();
            return "network namespace " + id + " (interfaces: " + String.join(", ", interfaces) + ")";
        } catch (IOException e) {
            return "network namespace " + id;
        }
    }

    /** A /proc file's text, read to its end: /proc reports a size of 0, which {@code Files.readString} trusts. */
    static String read(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim().replaceAll("\\s+", " ");
        }
    }

    private synchronized void restore() {
        if (restored) {
            return;
        }
        restored = true;
        try {
            Files.writeString(file, before);
            System.out.println("sysctl " + name + ": restored to " + read(file));
        } catch (IOException e) {
            System.err.println("sysctl " + name + ": COULD NOT RESTORE it to " + before + ": " + e.getMessage()
                    + "; set it back by hand: sysctl -w " + name + "=\"" + before + "\"");
        }
    }

    @Override
    public void close() {
        restore();
        try {
            Runtime.getRuntime().removeShutdownHook(restoreAtExit);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down; the hook has run or will find it restored.
        }
    }
}
