package io.rc10k.benchmarks.launch;

import io.rc10k.benchmarks.capacity.StubProcess;
import io.rc10k.harness.CommandLine;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How an experiment starts the servers it measures: the {@code java} and JVM options of the server processes and
 * the jars they run. The options of every experiment that launches servers — {@code --java}, {@code --jvm-arg},
 * {@code --mashup-jar}, {@code --stub-jar} and, where this module's own servers run too, {@code --benchmarks-jar}
 * — are read ({@link Reader}), checked ({@link #requireJars}) and told ({@link #usage}) here, and so are the
 * mashup server's {@code --mode} and {@code --max-threads} as experiments pass them on.
 *
 * <pre>{@code
 * Launch.Reader launch = Launch.reader(Launch.defaults(), false);
 * while (line.next()) {
 *     switch (line.option()) {
 *         case "--rounds" -> rounds = line.intValue();
 *         default -> launch.readOrUnknown(line);
 *     }
 * }
 * ServerProcess server = launch.get().startMashup("mashup-async", definitions, List.of("--mode", "async"));
 * }</pre>
 *
 * @param java          the {@code java} of the server processes (the stubs run on this JVM's own)
 * @param jvmArgs       JVM options given to every server this launch starts, the stubs aside
 * @param benchmarksJar this module's shaded jar, which runs the hello-world and the peers
 */
public record Launch(String java, List<String> jvmArgs, Path mashupJar, Path stubJar, Path benchmarksJar) {
    /** The mashup server's modes, as its {@code --mode} takes them. */
    public static final List<String> MODES = List.of("async", "sync", "virtual");
    private static final Pattern MASHUP_READY = Pattern.compile("mashup-server ready on (http://\\S+)");
    private static final Pattern FEATURE = Pattern.compile("version \"(\\d+)");
    private static final String MASHUP_JAR = "mashup-server/target/mashup-server.jar";

    public Launch {
        jvmArgs = List.copyOf(jvmArgs);
    }

    /**
     * This JVM's {@code java}, no JVM options, and the jars where the build puts them relative to the repository
     * root — or where the system properties {@code rc10k.mashup.jar}, {@code rc10k.stubs.jar} and
     * {@code rc10k.benchmarks.jar} say (the integration tests set them).
     */
    public static Launch defaults() {
        return new Launch(ServerProcess.javaCommand(), List.of(),
                Path.of(System.getProperty("rc10k.mashup.jar", MASHUP_JAR)),
                Path.of(System.getProperty("rc10k.stubs.jar", StubProcess.DEFAULT_JAR.toString())), ownJar());
    }

    /** The same launch with these JVM options instead. */
    public Launch withJvmArgs(List<String> options) {
        return new Launch(java, options, mashupJar, stubJar, benchmarksJar);
    }

    /** The same launch with {@code more} JVM options after these ones. */
    public Launch withMoreJvmArgs(List<String> more) {
        List<String> all = new ArrayList<>(jvmArgs);
        all.addAll(more);
        return withJvmArgs(all);
    }

    /** The same launch with another build of mashup-server.jar. */
    public Launch withMashupJar(Path jar) {
        return new Launch(java, jvmArgs, jar, stubJar, benchmarksJar);
    }

    /**
     * Fails, naming the missing jar and how to build it, unless the mashup server's and the stubs' jars are there,
     * and with {@code benchmarks} this module's too.
     */
    public void requireJars(boolean benchmarks) throws IOException {
        List<Path> jars = benchmarks ? List.of(mashupJar, stubJar, benchmarksJar) : List.of(mashupJar, stubJar);
        for (Path jar : jars) {
            if (!Files.isRegularFile(jar)) {
                throw new IOException("no jar at " + jar.toAbsolutePath() + "; build first with "
                        + "./mvnw -q package -DskipTests (or pass --mashup-jar, --stub-jar"
                        + (benchmarks ? ", --benchmarks-jar)" : ")"));
            }
        }
    }

    /**
     * The mashup server on this launch's {@code java} and JVM options, serving {@code definitions} on an ephemeral
     * port with its access log off ({@link ServerProcess#mashupCommand}), {@code args} after; ready to measure.
     */
    public ServerProcess startMashup(String label, Path definitions, List<String> args) throws IOException {
        return ServerProcess.start(label, ServerProcess.mashupCommand(java, jvmArgs, mashupJar, definitions, args),
                MASHUP_READY);
    }

    /** {@code java [jvmArgs] -cp benchmarks.jar main [args]}: one of this module's servers as a process. */
    public List<String> command(Class<?> main, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(jvmArgs);
        command.addAll(List.of("-cp", benchmarksJar.toString(), main.getName()));
        command.addAll(args);
        return command;
    }

    /** The first line of {@code java -version} of the servers' java, e.g. {@code openjdk version "25.0.3" …}. */
    public String javaVersion() throws IOException, InterruptedException {
        Process process = new ProcessBuilder(java, "-version").redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor(30, TimeUnit.SECONDS);
        return out.lines().findFirst().orElse("unknown").trim();
    }

    /** Whether the JDK of that {@code java -version} line has virtual threads (21 or newer). */
    public static boolean hasVirtualThreads(String javaVersion) {
        Matcher feature = FEATURE.matcher(javaVersion);
        return feature.find() && Integer.parseInt(feature.group(1)) >= 21;
    }

    /** {@code modes}, each one of {@link #MODES}, at least one; else an error naming {@code option}. */
    public static List<String> checkModes(String option, List<String> modes) {
        if (modes.isEmpty()) {
            throw new IllegalArgumentException(option + ": none (accepted: async, sync, virtual)");
        }
        for (String mode : modes) {
            if (!MODES.contains(mode)) {
                throw new IllegalArgumentException(option + ": \"" + mode + "\" (accepted: async, sync, virtual)");
            }
        }
        return List.copyOf(modes);
    }

    /** The mashup server's {@code --max-threads} as an experiment passes it on: at least 8, as the server asks. */
    public static int checkMaxThreads(int maxThreads) {
        if (maxThreads < 8) {
            throw new IllegalArgumentException("--max-threads: " + maxThreads + " (accepted: at least 8)");
        }
        return maxThreads;
    }

    /**
     * The launch options' lines of a tool's usage, each described from {@code column}; {@code javaNote} says what
     * the servers' java is for.
     */
    public static String usage(int column, String javaNote) {
        String format = "  %-" + (column - 2) + "s%s%n";
        return String.format(Locale.ROOT, format, "--java PATH", javaNote + " (default: this JVM's)")
                + String.format(Locale.ROOT, format, "--jvm-arg ARG", "a JVM option for the server (repeatable)")
                + String.format(Locale.ROOT, format, "--mashup-jar PATH", "(default " + MASHUP_JAR + ")")
                + String.format(Locale.ROOT, format, "--stub-jar PATH", "(default " + StubProcess.DEFAULT_JAR + ")");
    }

    public static Reader reader(Launch defaults, boolean benchmarksJar) {
        return new Reader(defaults, benchmarksJar);
    }

    /** The launch options of a command line, read as the cursor reaches them. Not thread-safe. */
    public static final class Reader {
        private final boolean takesBenchmarksJar;
        private String java;
        private final List<String> jvmArgs = new ArrayList<>();
        private Path mashupJar;
        private Path stubJar;
        private Path benchmarksJar;

        private Reader(Launch defaults, boolean takesBenchmarksJar) {
            this.takesBenchmarksJar = takesBenchmarksJar;
            this.java = defaults.java();
            this.jvmArgs.addAll(defaults.jvmArgs());
            this.mashupJar = defaults.mashupJar();
            this.stubJar = defaults.stubJar();
            this.benchmarksJar = defaults.benchmarksJar();
        }

        /** Takes the launch option the line stands on, with its value; false for any other option. */
        public boolean read(CommandLine line) {
            switch (line.option()) {
                case "--java" -> java = line.value();
                case "--jvm-arg" -> jvmArgs.add(line.anyValue());
                case "--mashup-jar" -> mashupJar = line.path();
                case "--stub-jar" -> stubJar = line.path();
                case "--benchmarks-jar" -> {
                    if (!takesBenchmarksJar) {
                        return false;
                    }
                    benchmarksJar = line.path();
                }
                default -> {
                    return false;
                }
            }
            return true;
        }

        /** As {@link #read}; any other option is unknown: a bad line. */
        public void readOrUnknown(CommandLine line) {
            if (!read(line)) {
                line.unknown();
            }
        }

        public Launch get() {
            return new Launch(java, jvmArgs, mashupJar, stubJar, benchmarksJar);
        }
    }

    /** The jar this class was loaded from (benchmarks.jar when run as documented), else the built one. */
    private static Path ownJar() {
        String configured = System.getProperty("rc10k.benchmarks.jar");
        if (configured != null) {
            return Path.of(configured);
        }
        try {
            Path self = Path.of(Launch.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (Files.isRegularFile(self)) {
                return self;
            }
        } catch (Exception e) {
            // Fall back to where the build puts it.
        }
        return Path.of("benchmarks", "target", "benchmarks.jar");
    }
}
