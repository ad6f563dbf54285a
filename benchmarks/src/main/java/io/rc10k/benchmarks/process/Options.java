package io.rc10k.benchmarks.process;

/** What the tools' command lines share: an option's value, or an error that names the option. */
public final class Options {
    private Options() {
    }

    /**
     * The value after the option at {@code i - 1}; an {@link IllegalArgumentException} naming the option
     * when the line ends there (each tool turns it into exit status 2 with its usage).
     */
    public static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value");
        }
        return args[i];
    }
}
