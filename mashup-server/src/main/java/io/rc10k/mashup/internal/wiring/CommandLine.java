package io.rc10k.mashup.internal.wiring;

import io.rc10k.mashup.MashupOptions;
import io.rc10k.mashup.Mode;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The mashup server's command line; every error names the option, the value and what is accepted.
 *
 * @param version   {@code --version}: print {@link BuildVersion#nameAndVersion()} and exit
 * @param probe     {@code --probe URL}: GET it and exit 0 on 200, 1 otherwise ({@link Probe}), or null
 * @param logConfig a Logback configuration file to use instead of the bundled one, or null
 * @param logLevels {@code LOGGER=LEVEL} settings applied after the configuration, in order
 */
public record CommandLine(MashupOptions options, Path config, Path check, boolean help, boolean version,
        URI probe, Path logConfig, List<String> logLevels) {
    /** The levels {@code --log-level} takes (Logback's, lowercase). */
    static final Set<String> LEVELS = Set.of("trace", "debug", "info", "warn", "error", "off");

    public static final String USAGE = String.join(System.lineSeparator(),
            "Usage: java -jar mashup-server.jar [options]",
            "  (no --config)         start the embedded demo: partner stubs in this JVM and demo mashups",
            "  --config FILE         serve the definitions in FILE (JSON; see docs/mashup-server.md)",
            "  --check FILE          validate FILE, print every problem at its line:column, exit (0: valid, 2: not)",
            "  --mode MODE           async (default) | sync | virtual (JDK 21+)",
            "  --port N              port (default " + MashupOptions.DEFAULT_PORT + "; 0 picks a free one)",
            "  --host HOST           address to bind (default " + MashupOptions.DEFAULT_HOST + ")",
            "  --max-threads N       the shared thread pool's maximum (default " + MashupOptions.DEFAULT_MAX_THREADS
                    + ")",
            "  --min-threads N       threads the pool keeps started while idle, 1 to --max-threads (default "
                    + MashupOptions.DEFAULT_MIN_THREADS + ")",
            "  --reserved-threads N  threads kept ready to take a job at once (Jetty's reserved threads); 0: none",
            "                        (default: Jetty's choice, by the cores and the pool)",
            "  --acceptors N         the main connector's acceptor threads, 0 to 64; 0: its selectors accept",
            "                        (default: Jetty's, by the cores)",
            "  --selectors N         the main connector's selector threads, 1 to 256 (default: Jetty's, by the",
            "                        cores); acceptors and selectors are threads of --max-threads",
            "  --max-inflight N      mashup requests at once; more get 503 + Retry-After (default: derived from",
            "                        the open-file limit, at most " + MashupOptions.DEFAULT_MAX_IN_FLIGHT + ")",
            "  --max-connections N   inbound connections at once; past it accepting pauses (default: derived from",
            "                        the open-file limit)",
            "  --idle-timeout MS     close an inbound connection idle this long: kept alive between requests, or a",
            "                        client that stops reading (default " + MashupOptions.DEFAULT_IDLE_TIMEOUT_MILLIS
                    + "; " + ServerAssembly.NEAR_LIMIT_IDLE_TIMEOUT_MILLIS + " or less at --max-connections)",
            "  --accept-queue N      the listen backlog, 1 to 65535, capped by net.core.somaxconn (default "
                    + MashupOptions.DEFAULT_ACCEPT_QUEUE + ")",
            "  --admin-port N        port serving only /health, /health/live, /health/ready, /metrics and the",
            "                        live view /dashboard, outside the connection limit and open during a",
            "                        graceful stop (default: --port + 1, ephemeral with --port 0; -1 for none)",
            "  --admin-host HOST     address the admin port binds (default " + MashupOptions.DEFAULT_ADMIN_HOST
                    + ", whatever --host says);",
            "                        0.0.0.0 when probes or scrapers come from other hosts or containers",
            "  --observability-on-admin-only",
            "                        serve /metrics and /health* on the admin port only; the main port answers",
            "                        404 for them (needs an admin port)",
            "  --max-buffered-bytes N",
            "                        partner response bytes held at once while they arrive, over every partner;",
            "                        a call past it ends memory_budget (k, m, g accepted; default: a quarter",
            "                        of the heap)",
            "  --otlp-endpoint URL   export a span per mashup and per partner call with OTLP/HTTP to URL",
            "                        (http://collector:4318 sends to its /v1/traces; a URL with a path, there);",
            "                        default: no export",
            "  --log-config FILE     a Logback configuration (XML) to log by instead of the bundled one; a file that",
            "                        is missing or not a valid configuration exits 2",
            "  --log-level LOGGER=LEVEL",
            "                        one logger's level (trace, debug, info, warn, error, off; LOGGER may be root),",
            "                        set after the configuration; repeatable. No access log:",
            "                        --log-level org.eclipse.jetty.server.RequestLog=off",
            "  --help                print this and exit",
            "  --version             print the name and version (" + BuildVersion.NAME + " x.y.z) and exit",
            "  --probe URL           start no server: GET URL and exit 0 if it answers 200, else 1 (a container's",
            "                        health check without curl: --probe http://127.0.0.1:8081/health/ready)",
            "Exit status: 143 after a graceful stop by SIGTERM (130 for Ctrl-C), 1 cannot start,",
            "2 bad command line, definitions or --log-config file, 0 for --help, --version and a valid --check;",
            "--probe: 0 for a 200, 1 for anything else.");

    /** @throws IllegalArgumentException naming the option, the value and what is accepted */
    public static CommandLine parse(String... args) {
        MashupOptions.Builder options = MashupOptions.builder();
        Path config = null;
        Path check = null;
        Path logConfig = null;
        URI probe = null;
        List<String> logLevels = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--help", "-h" -> {
                    return new CommandLine(options.build(), null, null, true, false, null, null, List.of());
                }
                case "--version" -> {
                    return new CommandLine(options.build(), null, null, false, true, null, null, List.of());
                }
                case "--config" -> config = Path.of(value(args, ++i, arg));
                case "--check" -> check = Path.of(value(args, ++i, arg));
                case "--mode" -> options.mode(Mode.parse(value(args, ++i, arg)));
                case "--port" -> options.port(number(args, ++i, arg));
                case "--host" -> options.host(value(args, ++i, arg));
                case "--max-connections" -> options.maxConnections(number(args, ++i, arg));
                case "--admin-port" -> options.adminPort(number(args, ++i, arg));
                case "--admin-host" -> options.adminHost(value(args, ++i, arg));
                case "--max-threads" -> options.maxThreads(number(args, ++i, arg));
                case "--min-threads" -> options.minThreads(number(args, ++i, arg));
                case "--reserved-threads" -> options.reservedThreads(number(args, ++i, arg));
                case "--idle-timeout" -> options.idleTimeoutMillis(number(args, ++i, arg));
                case "--accept-queue" -> options.acceptQueue(number(args, ++i, arg));
                case "--acceptors" -> options.acceptors(number(args, ++i, arg));
                case "--selectors" -> options.selectors(number(args, ++i, arg));
                case "--max-inflight" -> options.maxInFlight(number(args, ++i, arg));
                case "--observability-on-admin-only" -> options.observabilityOnAdminOnly(true);
                case "--max-buffered-bytes" -> options.maxBufferedBytes(bytes(args, ++i, arg));
                case "--otlp-endpoint" -> options.otlpEndpoint(url(args, ++i, arg));
                case "--probe" -> probe = probeUrl(args, ++i, arg);
                case "--log-config" -> logConfig = Path.of(value(args, ++i, arg));
                case "--log-level" -> logLevels.add(logLevel(value(args, ++i, arg)));
                default -> throw new IllegalArgumentException("unknown option \"" + arg + "\" (see --help)");
            }
        }
        // Built once all are read: an admin port given before --port stays where it was given.
        return new CommandLine(options.build(), config, check, false, false, probe, logConfig, List.copyOf(logLevels));
    }

    /** {@code LOGGER=LEVEL}, checked; the level lowercased. */
    private static String logLevel(String text) {
        int eq = text.indexOf('=');
        String logger = eq < 0 ? "" : text.substring(0, eq).trim();
        String level = eq < 0 ? "" : text.substring(eq + 1).trim().toLowerCase(Locale.ROOT);
        if (logger.isEmpty() || !LEVELS.contains(level)) {
            throw new IllegalArgumentException("--log-level: \"" + text + "\" (accepted: LOGGER=LEVEL, LEVEL one of "
                    + "trace, debug, info, warn, error, off; e.g. io.rc10k=debug)");
        }
        return logger + "=" + level;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new IllegalArgumentException(option + ": a value is missing (see --help)");
        }
        return args[i];
    }

    private static URI url(String[] args, int i, String option) {
        String text = value(args, i, option);
        try {
            return new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(option + ": \"" + text + "\" is not a URL (" + e.getReason() + ")");
        }
    }

    /** An http or https URL with a host: what {@code --probe} asks. */
    private static URI probeUrl(String[] args, int i, String option) {
        String text = value(args, i, option);
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            uri = null;
        }
        if (uri == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
                || uri.getHost() == null) {
            throw new IllegalArgumentException(option + ": \"" + text + "\" (accepted: an http or https URL with a "
                    + "host, e.g. http://127.0.0.1:8081/health/ready)");
        }
        return uri;
    }

    /** A count of bytes, with an optional binary suffix: {@code 268435456}, {@code 256m}, {@code 1g}. */
    private static long bytes(String[] args, int i, String option) {
        String text = value(args, i, option).trim().toLowerCase(Locale.ROOT);
        int shift = text.endsWith("k") ? 10 : text.endsWith("m") ? 20 : text.endsWith("g") ? 30 : 0;
        String digits = shift == 0 ? text : text.substring(0, text.length() - 1);
        try {
            long n = Long.parseLong(digits);
            if (n < 1 || n > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + ": \"" + text + "\" (accepted: a positive number of bytes, "
                    + "with an optional k, m or g, e.g. 256m)");
        }
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
