package io.rc10k.harness;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.IntConsumer;

/**
 * The one way every experiment tool reads its command line: a cursor over the words, each tool switching on
 * the option it stands on and taking the option's value as a number, a path or a list.
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
 */
public final class CommandLine {
    /** Exit status of a bad command line. */
    public static final int BAD_LINE = 2;

    private final String tool;
    private final String usage;
    private final String[] args;
    private final Console console;
    private int at = -1;
    private String option;

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
        this.console = console;
    }

    /**
     * Moves to the next word; false at the end of the line. Answers {@code --help} and {@code --version}
     * itself (exit 0), so a tool's switch never sees them.
     */
    public boolean next() {
        if (++at >= args.length) {
            return false;
        }
        option = args[at];
        switch (option) {
            case "--help", "-h" -> {
                console.out().println("usage: " + tool + " " + usage);
                end(0);
            }
            case "--version" -> {
                console.out().println(tool + " " + version());
                end(0);
            }
            default -> {
            }
        }
        return true;
    }

    /**
     * The word {@link #next} moved to: an option, or a word of the tool's own (an experiment's name, say); still
     * that word after its value was taken.
     */
    public String option() {
        return option;
    }

    /** The word after the option, consumed; a line that ends at the option is a bad line. */
    public String value() {
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
     * ({@code "--calls: 0 (accepted: 1 to 64)"}): prints {@code <tool>: <message>; usage: ...} and exits 2.
     */
    public RuntimeException fail(String message) {
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

    /** The project's version, filtered in by Maven; "unknown" when the resource is missing. */
    public static String version() {
        try (InputStream in = CommandLine.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
