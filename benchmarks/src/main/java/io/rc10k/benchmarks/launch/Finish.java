package io.rc10k.benchmarks.launch;

import java.io.IOException;

/**
 * How an experiment's main ends, the same for every one: it runs the experiment, prints its table and exits 0 when
 * it passed, 1 when it did not — or, when the run could not start (a jar missing, a limit too low, a server that
 * did not come up), 1 with one line saying why.
 *
 * <pre>{@code
 * public static void main(String[] args) throws Exception {
 *     Settings settings = parse(new CommandLine("cold-burst", USAGE, args));
 *     Finish.exit("cold-burst", () -> run(settings));
 * }
 * }</pre>
 */
public final class Finish {
    /** What an experiment's run answers. */
    public interface Result {
        /** Whether every check of the run held. */
        boolean passed();

        /** The Markdown table (and the lines around it) that is the run's answer. */
        String table();
    }

    /** One run of an experiment. */
    public interface Run {
        Result run() throws Exception;
    }

    private Finish() {
    }

    /** Runs {@code run}, prints its table and exits with its status. */
    public static void exit(String tool, Run run) throws Exception {
        Result result;
        try {
            result = run.run();
        } catch (IOException | IllegalStateException e) {
            System.err.println(tool + ": " + e.getMessage());
            System.exit(1);
            return;
        }
        System.out.println();
        System.out.print(result.table());
        System.exit(result.passed() ? 0 : 1);
    }
}
