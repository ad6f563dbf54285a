package io.rc10k.benchmarks.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A server JVM's safepoint log ({@code -Xlog:safepoint}, wall-clock times): every stop of all its threads, for a
 * GC or anything else, with how long it lasted. Set beside the times of late answers, it tells a pause of the
 * JVM from a process the OS did not run (a busy machine), which leaves no line here.
 *
 * <pre>{@code
 * PauseLog pauses = PauseLog.create("async");
 * List<String> jvmArgs = List.of("-Xmx512m", pauses.jvmArg());
 * // ... run the server ...
 * System.out.println(pauses.longest(3, soakBegun, soakEnded));   // "12.4 ms G1CollectForAllocation at 2026-…", …
 * }</pre>
 */
final class PauseLog {
    /** The {@code time} decoration: {@code 2026-11-26T06:13:56.194+0000}. */
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSZ");
    private static final Pattern SAFEPOINT = Pattern.compile("^\\[([^\\]]+)] Safepoint \"([^\"]+)\".*Total: (\\d+) ns");

    private final Path file;

    private PauseLog(Path file) {
        this.file = file;
    }

    /** A fresh file in the temporary directory, kept after the run (its path is printed). */
    static PauseLog create(String label) throws IOException {
        return new PauseLog(Files.createTempFile("chaos-soak-" + label + "-safepoints-", ".log"));
    }

    String jvmArg() {
        return "-Xlog:safepoint:file=" + file + ":time";
    }

    Path file() {
        return file;
    }

    /**
     * The {@code n} longest stops that ended between {@code from} and {@code to}, longest first, each as
     * "ms cause at time"; empty if the log cannot be read.
     */
    List<String> longest(int n, Instant from, Instant to) {
        try (var lines = Files.lines(file)) {
            return lines.map(SAFEPOINT::matcher).filter(Matcher::find)
                    .filter(m -> {
                        Instant at = TIME.parse(m.group(1), Instant::from);
                        return !at.isBefore(from) && !at.isAfter(to);
                    })
                    .sorted(Comparator.comparingLong((Matcher m) -> Long.parseLong(m.group(3))).reversed()).limit(n)
                    .map(m -> String.format(Locale.ROOT, "%.1f ms %s at %s", Long.parseLong(m.group(3)) / 1e6,
                            m.group(2), m.group(1)))
                    .toList();
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }
}
