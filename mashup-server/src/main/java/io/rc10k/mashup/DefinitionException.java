package io.rc10k.mashup;

import java.util.List;

/**
 * Definitions that cannot be served, with every problem found — each names its location, the value
 * and what would be accepted, e.g. {@code mashups.travel.calls[1].partner: unknown partner "hotel"
 * (known: weather, hotels)}. Definitions read from a file also say where in it each problem is:
 *
 * <pre>{@code
 * try {
 *     DefinitionsJson.load(file);
 * } catch (DefinitionException e) {
 *     e.located().forEach(p -> System.err.println(p.line() + ":" + p.column() + " " + p.message()));
 * }
 * }</pre>
 */
public final class DefinitionException extends Exception {
    private final List<Problem> problems;

    /**
     * One problem.
     *
     * @param message what is wrong, starting with its location in the definitions ({@code partners.weather.retries:})
     * @param line    where in the file (from 1), or 0 for definitions built in Java and problems of the whole file
     * @param column  where in that line (from 1), or 0 with line 0
     */
    public record Problem(String message, int line, int column) {
        /** A problem of definitions that have no file, or of a whole file. */
        public static Problem of(String message) {
            return new Problem(message, 0, 0);
        }

        /** {@code source:line:column: message} (the form compilers print and editors jump to), or just the message. */
        String describe(String source) {
            return line > 0 ? source + ":" + line + ":" + column + ": " + message : message;
        }
    }

    /** Problems of definitions built in Java: they have no file, so no lines. */
    public DefinitionException(List<String> problems) {
        this(null, problems.stream().map(Problem::of).toList());
    }

    /** Problems of the definitions file {@code source}, each with its line and column where it has them. */
    public DefinitionException(String source, List<Problem> problems) {
        super(problems.size() + " problem(s) in the definitions:" + System.lineSeparator() + "  "
                + String.join(System.lineSeparator() + "  ", problems.stream().map(p -> p.describe(source)).toList()));
        this.problems = List.copyOf(problems);
    }

    /** What is wrong, one message per problem, without lines and columns. */
    public List<String> problems() {
        return problems.stream().map(Problem::message).toList();
    }

    /** Every problem with its line and column in the file (0 where it has none). */
    public List<Problem> located() {
        return problems;
    }
}
