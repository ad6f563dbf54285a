package io.rc10k.broker.fuzz;

import io.rc10k.broker.Outcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The checked-in partner answers the fuzzer replays on every build:
 * {@code src/test/resources/fuzz/http1-responses/corpus.txt}, one case a line, four fields split by tabs —
 * a name, the outcome when the partner closes after the bytes, the outcome when it keeps the connection
 * open, and the bytes ({@link Escapes}). An outcome is a kind, with the status for a response:
 * {@code OK 200}, {@code MALFORMED}, {@code TIMEOUT}. Lines starting with {@code #} are comments.
 *
 * <pre>{@code
 * for (Corpus.Case c : Corpus.load()) { ... c.bytes() ... c.closeExpect() ... }
 * }</pre>
 */
public final class Corpus {
    static final String RESOURCE = "/fuzz/http1-responses/corpus.txt";

    private Corpus() {
    }

    /** An outcome as the corpus writes it. */
    public record Expect(Outcome.Kind kind, int status) {
        static Expect parse(String text) {
            String[] parts = text.strip().split(" +");
            return new Expect(Outcome.Kind.valueOf(parts[0]), parts.length > 1 ? Integer.parseInt(parts[1]) : 0);
        }

        public boolean matches(Outcome outcome) {
            return outcome.kind() == kind && (status == 0 || outcome.status() == status);
        }

        @Override
        public String toString() {
            return kind + (status > 0 ? " " + status : "");
        }
    }

    public record Case(String name, Expect closeExpect, Expect keepOpenExpect, byte[] bytes) {
        @Override
        public String toString() {
            return name;
        }
    }

    public static List<Case> load() {
        InputStream in = Corpus.class.getResourceAsStream(RESOURCE);
        if (in == null) {
            throw new IllegalStateException("no corpus at " + RESOURCE);
        }
        List<Case> cases = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            int number = 0;
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                number++;
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] fields = line.split("\t", 4);
                if (fields.length != 4) {
                    throw new IllegalStateException(RESOURCE + ":" + number + ": four tab-separated fields expected: "
                            + line);
                }
                cases.add(new Case(fields[0], Expect.parse(fields[1]), Expect.parse(fields[2]),
                        Escapes.unescape(fields[3])));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return cases;
    }

    /** The corpus line for a new case, to paste into the file after checking its two outcomes. */
    public static String line(String name, Outcome.Kind close, int closeStatus, Outcome.Kind keepOpen,
            int keepOpenStatus, byte[] bytes) {
        return name + "\t" + new Expect(close, closeStatus) + "\t" + new Expect(keepOpen, keepOpenStatus) + "\t"
                + Escapes.escape(bytes);
    }
}
