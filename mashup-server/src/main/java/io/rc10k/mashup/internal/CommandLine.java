package io.rc10k.mashup.internal;

import io.rc10k.mashup.MashupOptions;
import io.rc10k.mashup.Mode;
import java.nio.file.Path;

/** The mashup server's command line; every error names the option, the value and what is accepted. */
public record CommandLine(MashupOptions options, Path config, Path check, boolean help) {
    public static final String USAGE = String.join(System.lineSeparator(),
            "Usage: java -jar mashup-server.jar [options]",
            "  (no --config)         start the embedded demo: partner stubs in this JVM and demo mashups",
            "  --config FILE         serve the definitions in FILE (JSON; see docs/mashup-server.md)",
            "  --check FILE          validate FILE, print every problem, exit (0: valid, 2: not)",
            "  --mode MODE           async (default) | sync | virtual (JDK 21+)",
            "  --port N              port (default " + MashupOptions.DEFAULT_PORT + "; 0 picks a free one)",
            "  --host HOST           address to bind (default " + MashupOptions.DEFAULT_HOST + ")",
            "  --max-threads N       the shared thread pool's maximum (default " + MashupOptions.DEFAULT_MAX_THREADS
                    + ")",
            "  --max-inflight N      mashup requests at once; more get 503 + Retry-After (default: derived from",
            "                        the open-file limit, at most " + MashupOptions.DEFAULT_MAX_IN_FLIGHT + ")",
            "  --max-connections N   inbound connections at once; past it accepting pauses (default: derived from",
            "                        the open-file limit)",
            "  --admin-port N        port serving only /health, /health/live, /health/ready and /metrics, outside",
            "                        the connection limit and open during a graceful stop (default: --port + 1,",
            "                        ephemeral with --port 0; -1 for none)",
            "  --observability-on-admin-only",
            "                        serve /metrics and /health* on the admin port only; the main port answers",
            "                        404 for them (needs an admin port)",
            "  --log-config FILE     logging settings (slf4j-simple keys, e.g. org.slf4j.simpleLogger.log.io.rc10k=debug);",
            "                        a -D of the same key wins",
            "  --help                print this and exit",
            "Exit status: 143 after a graceful stop by SIGTERM (130 for Ctrl-C), 1 cannot start,",
            "2 bad command line or definitions, 0 for --help and a valid --check.");

    public static CommandLine parse(String... args) {
        MashupOptions options = MashupOptions.defaults();
        Path config = null;
        Path check = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--help", "-h" -> {
                    return new CommandLine(options, null, null, true);
                }
                case "--config" -> config = Path.of(value(args, ++i, arg));
                case "--check" -> check = Path.of(value(args, ++i, arg));
                case "--mode" -> options = options.withMode(Mode.parse(value(args, ++i, arg)));
                case "--port" -> options = options.withPort(number(args, ++i, arg));
                case "--host" -> options = options.withHost(value(args, ++i, arg));
                case "--max-connections" -> options = options.withMaxConnections(number(args, ++i, arg));
                case "--admin-port" -> options = options.withAdminPort(number(args, ++i, arg));
                case "--max-threads" -> options = options.withMaxThreads(number(args, ++i, arg));
                case "--max-inflight" -> options = options.withMaxInFlight(number(args, ++i, arg));
                case "--observability-on-admin-only" -> options = options.withObservabilityOnAdminOnly(true);
                // Read by MashupServer.main before the first logger exists.
                case "--log-config" -> value(args, ++i, arg);
                default -> throw new IllegalArgumentException("unknown option \"" + arg + "\" (see --help)");
            }
        }
        return new CommandLine(options, config, check, false);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new IllegalArgumentException(option + ": a value is missing (see --help)");
        }
        return args[i];
    }

    private static int number(String[] args, int i, String option) {
        String text = value(args, i, option);
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + ": \"" + text + "\" is not an integer");
        }
    }
}
