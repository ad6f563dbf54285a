package io.rc10k.harness;

import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntConsumer;

/**
 * The one way every program of the project reads its command line — the experiment tools, the partner stubs and
 * the mashup server: a cursor over the words, each program switching on the option it stands on and taking the
 * option's value as a number, a path or a list.
 *
 * <pre>{@code
 * CommandLine line = new CommandLine("stub-capacity", "--requests N --delay MS", args);
 * while (line.next()) {
 *     switch (line.option()) {
 *         case "--requests" -> requests = line.intValue();
 *         case "--delay" -> delay = line.longValue();
 *         default -> line.unknown();
 *     }
 * }
 * }</pre>
 *
 * <p>{@code --help} (or {@code -h}) prints {@code usage: <tool> <usage>} to stdout and exits 0;
 * {@code --version} prints {@code <tool> <project version>} and exits 0; a bad line — an unknown option, an
 * option without its value, a value that is not a number, or any {@link #fail} of the tool's own — prints
 * {@code <tool>: <option>: <what is wrong>; usage: <tool> <usage>} to stderr and exits 2, having started
 * nothing.
 *
 * <p>A program whose main prints and exits by itself (the mashup server's and the stubs', whose {@code --help} is a
 * page of its own) reads its line with a {@link #silent} cursor instead: the same words, values and messages, but
 * a bad line is an {@link IllegalArgumentException} whose message names the option ({@code --port: not a whole
 * number: http}), and {@code --help} or {@code --version} ends the line for the program to answer
 * ({@link #asksForHelp()}, {@link #asksForVersion()}).
 */
public final class CommandLine {
    /** Exit status of a bad command line. */
    public static final int BAD_LINE = 2;

    private final String tool;
    private final String usage;
    private final String[] args;
    /** Where this line prints and how it ends the program; null for a {@link #silent} one. */
    private final Console console;
    private int at = -1;
    private String option;
    private String asked;

    /**
     * Where a command line prints and how it ends the program: {@code exit} must not return (a test's, or a
     * caller's that turns the status into a return value, throws).
     */
    public record Console(PrintStream out, PrintStream err, IntConsumer exit) {
        /** {@code System.out}, {@code System.err} and {@code System.exit}. */
        public static Console system() {
            return new Console(System.out, System.err, System::exit);
        }
    }

    public CommandLine(String tool, String usage, String[] args) {
        this(tool, usage, args, Console.system());
    }

    public CommandLine(String tool, String usage, String[] args, Console console) {
        this.tool = tool;
        this.usage = usage;
        this.args = args.clone();
        this.console = Objects.requireNonNull(console, "console");
    }

    private CommandLine(String[] args) {
        this.tool = null;
        this.usage = null;
        this.args = args.clone();
        this.console = null;
    }

    /**
     * A cursor that prints nothing and ends nothing, for a program that answers its line itself: a bad line is an
     * {@link IllegalArgumentException} naming the option, and {@code --help} or {@code --version} ends the line
     * ({@link #next} is false from there on; {@link #asksForHelp()}, {@link #asksForVersion()}).
     */
    public static CommandLine silent(String... args) {
        return new CommandLine(args);
    }

    /**
     * Moves to the next word; false at the end of the line. {@code --help} and {@code --version} end the line, so
     * a program's switch never sees them: answered here (exit 0), or for a {@link #silent} line by the program.
     */
    public boolean next() {
        if (asked != null || ++at >= args.length) {
            return false;
        }
        option = args[at];
        if (!option.equals("--help") && !option.equals("-h") && !option.equals("--version")) {
            return true;
        }
        asked = option.equals("--version") ? "--version" : "--help";
        if (console != null) {
            console.out().println(asksForHelp() ? "usage: " + tool + " " + usage : BuildVersion.line(tool));
            end(0);
        }
        return false;
    }

    /** Whether the line asked for {@code --help} (or {@code -h}); only a {@link #silent} line gets to say so. */
    public boolean asksForHelp() {
        return "--help".equals(asked);
    }

    /** Whether the line asked for {@code --version}; only a {@link #silent} line gets to say so. */
    public boolean asksForVersion() {
        return "--version".equals(asked);
    }

    /**
     * The word {@link #next} moved to: an option, or a word of the tool's own (an experiment's name, say); still
     * that word after its value was taken.
     */
    public String option() {
        return option;
    }

    /**
     * The word after the option, consumed. A line that ends at the option, or goes on with another option
     * ({@code --config --port 0}), is a bad line: the option needs a value.
     */
    public String value() {
        if (at + 1 >= args.length || args[at + 1].startsWith("--")) {
            throw fail(option, "needs a value");
        }
        return args[++at];
    }

    /**
     * The word after the option whatever it is, consumed: the value of an option that hands a word on to another
     * program, which may itself start with {@code --} ({@code --jvm-arg --enable-preview}, {@code --stub-arg --h2c}).
     */
    public String anyValue() {
        if (at + 1 >= args.length) {
            throw fail(option, "needs a value");
        }
        return args[++at];
    }

    public int intValue() {
        String value = value();
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw fail(option, "not a whole number: " + value);
        }
    }

    public long longValue() {
        String value = value();
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw fail(option, "not a whole number: " + value);
        }
    }

    public double doubleValue() {
        String value = value();
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw fail(option, "not a number: " + value);
        }
    }

    /** A comma-separated list of whole numbers, such as {@code 1,4,16}. */
    public List<Integer> intList() {
        String value = value();
        List<Integer> list = new ArrayList<>();
        for (String item : value.split(",")) {
            try {
                list.add(Integer.valueOf(item.trim()));
            } catch (NumberFormatException e) {
                throw fail(option, "not a list of whole numbers: " + value);
            }
        }
        return list;
    }

    /** A comma-separated list of numbers, such as {@code 2,10}. */
    public List<Double> doubleList() {
        String value = value();
        List<Double> list = new ArrayList<>();
        for (String item : value.split(",")) {
            try {
                list.add(Double.valueOf(item.trim()));
            } catch (NumberFormatException e) {
                throw fail(option, "not a list of numbers: " + value);
            }
        }
        return list;
    }

    /** A comma-separated list of words. */
    public List<String> list() {
        return List.of(value().split(","));
    }

    public Path path() {
        return Path.of(value());
    }

    public URI uri() {
        String value = value();
        try {
            return URI.create(value);
        } catch (IllegalArgumentException e) {
            throw fail(option, "not a URI: " + value);
        }
    }

    /** The option the cursor stands on is not one of the tool's. */
    public RuntimeException unknown() {
        throw fail(option, "unknown option");
    }

    /**
     * The word the cursor stands on is none of the tool's: an unknown option, or a bare word that is not one of
     * {@code words} (a tool's experiments, say: {@code "overload, soak"}).
     */
    public RuntimeException unknown(String words) {
        throw option.startsWith("-") ? unknown() : fail(option, "not one of " + words);
    }

    /**
     * A bad line: prints {@code <tool>: <option>: <what>; usage: ...} to stderr and exits 2. Declared to
     * return an exception so that a caller can {@code throw} it and the compiler sees the branch end.
     */
    public RuntimeException fail(String option, String what) {
        return fail(option + ": " + what);
    }

    /**
     * A bad line found after the parse, by a check whose {@code message} already names the option
     * ({@code "--calls: 0 (accepted: 1 to 64)"}): prints {@code <tool>: <message>; usage: ...} and exits 2; a
     * {@link #silent} line throws an {@link IllegalArgumentException} with the message instead.
     */
    public RuntimeException fail(String message) {
        if (console == null) {
            throw new IllegalArgumentException(message);
        }
        console.err().println(tool + ": " + message + "; usage: " + tool + " " + usage);
        end(BAD_LINE);
        return new IllegalStateException("exit " + BAD_LINE + " returned");
    }

    private void end(int status) {
        console.out().flush();
        console.err().flush();
        console.exit().accept(status);
        throw new IllegalStateException("exit " + status + " returned");
    }
}
