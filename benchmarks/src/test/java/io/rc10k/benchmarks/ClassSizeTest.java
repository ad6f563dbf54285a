package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No main source file of any module is longer than {@value #MAX_LINES} lines: a class that grows past it holds
 * more than one concern, and is split along them (docs/architecture.md). Counted as {@code wc -l} counts, over
 * the sources of every module of the build (this module runs from its own directory, beside the others).
 */
class ClassSizeTest {
    private static final int MAX_LINES = 350;
    private static final List<String> MODULES = List.of("broker-client", "concurrency-tests", "harness",
            "partner-stubs", "mashup-server", "benchmarks", "jmeter-plans");

    @Test
    void noMainClassIsLongerThanTheLimit() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        int read = 0;
        StringBuilder over = new StringBuilder();
        for (String module : MODULES) {
            Path sources = root.resolve(module).resolve("src/main/java");
            assertTrue(Files.isDirectory(sources), () -> "no sources at " + sources);
            List<Path> files;
            try (Stream<Path> walk = Files.walk(sources)) {
                files = walk.filter(file -> file.toString().endsWith(".java")).collect(Collectors.toList());
            }
            for (Path file : files) {
                read++;
                long lines = lines(file);
                if (lines > MAX_LINES) {
                    over.append('\n').append(root.relativize(file)).append(": ").append(lines).append(" lines");
                }
            }
        }
        assertTrue(read > 200, "read only " + read + " source files: is the module list right?");
        assertEquals("", over.toString(), "main classes over " + MAX_LINES + " lines:");
    }

    /** Newlines in the file, as {@code wc -l} counts. */
    private static long lines(Path file) {
        try {
            byte[] bytes = Files.readAllBytes(file);
            long count = 0;
            for (byte b : bytes) {
                if (b == '\n') {
                    count++;
                }
            }
            return count;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
