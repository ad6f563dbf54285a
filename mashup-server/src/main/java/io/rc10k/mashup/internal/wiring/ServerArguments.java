package io.rc10k.mashup.internal.wiring;

import io.rc10k.harness.CommandLine;
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
 * The mashup server's command line, read with the harness's {@link CommandLine}; every error names the option, the
 * value and what is accepted.
 *
 * @param version   {@code --version}: print {@code BuildVersion.line(NAME)} and exit
 * @param probe     {@code --probe URL}: GET it and exit 0 on 200, 1 otherwise ({@link Probe}), or null
 * @param logConfig a Logback configuration file to use instead of the bundled one, or null
 * @param logLevels {@code LOGGER=LEVEL} settings applied after the configuration, in order
 */
public record ServerArguments(MashupOptions options, Path config, Path check, boolean help, boolean version,
        URI probe, Path logConfig, List<String> logLevels) {
    /** What {@code --version} prints before the version, as the jar's manifest titles it; the probe's agent too. */
    public static final String NAME = "rc10k-mashup-server";

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
            "  --version             print the name and version (" + NAME + " x.y.z) and exit",
            "  --probe URL           start no server: GET URL and exit 0 if it answers 200, else 1 (a container's",
            "                        health check without curl: --probe http://127.0.0.1:8081/health/ready)",
            "Exit status: 143 after a graceful stop by SIGTERM (130 for Ctrl-C), 1 cannot start,",
            "2 bad command line, definitions or --log-config file, 0 for --help, --version and a valid --check;",
            "--probe: 0 for a 200, 1 for anything else.");

    /** @throws IllegalArgumentException naming the option, the value and what is accepted */
    public static ServerArguments parse(String... args) {
        MashupOptions.Builder options = MashupOptions.builder();
        Path config = null;
        Path check = null;
        Path logConfig = null;
        URI probe = null;
        List<String> logLevels = new ArrayList<>();
        CommandLine line = CommandLine.silent(args);
        while (line.next()) {
            switch (line.option()) {
                case "--config" -> config = line.path();
                case "--check" -> check = line.path();
                case "--mode" -> options.mode(Mode.parse(line.value()));
                case "--port" -> options.port(line.intValue());
                case "--host" -> options.host(line.value());
                case "--max-connections" -> options.maxConnections(line.intValue());
                case "--admin-port" -> options.adminPort(line.intValue());
                case "--admin-host" -> options.adminHost(line.value());
                case "--max-threads" -> options.maxThreads(line.intValue());
                case "--min-threads" -> options.minThreads(line.intValue());
                case "--reserved-threads" -> options.reservedThreads(line.intValue());
                case "--idle-timeout" -> options.idleTimeoutMillis(line.intValue());
                case "--accept-queue" -> options.acceptQueue(line.intValue());
                case "--acceptors" -> options.acceptors(line.intValue());
                case "--selectors" -> options.selectors(line.intValue());
                case "--max-inflight" -> options.maxInFlight(line.intValue());
                case "--observability-on-admin-only" -> options.observabilityOnAdminOnly(true);
                case "--max-buffered-bytes" -> options.maxBufferedBytes(bytes(line));
                case "--otlp-endpoint" -> options.otlpEndpoint(url(line));
                case "--probe" -> probe = probeUrl(line);
                case "--log-config" -> logConfig = line.path();
                case "--log-level" -> logLevels.add(logLevel(line.value()));
                default -> line.unknown();
            }
        }
        if (line.asksForHelp() || line.asksForVersion()) {
            return new ServerArguments(options.build(), null, null, line.asksForHelp(), line.asksForVersion(), null,
                    null, List.of());
        }
        // Built once all are read: an admin port given before --port stays where it was given.
        return new ServerArguments(options.build(), config, check, false, false, probe, logConfig,
                List.copyOf(logLevels));
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

    private static URI url(CommandLine line) {
        String text = line.value();
        try {
            return new URI(text);
        } catch (URISyntaxException e) {
            throw line.fail(line.option(), "\"" + text + "\" is not a URL (" + e.getReason() + ")");
        }
    }

    /** An http or https URL with a host: what {@code --probe} asks. */
    private static URI probeUrl(CommandLine line) {
        String text = line.value();
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            uri = null;
        }
        if (uri == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
                || uri.getHost() == null) {
            throw line.fail(line.option(), "\"" + text + "\" (accepted: an http or https URL with a host, e.g. "
                    + "http://127.0.0.1:8081/health/ready)");
        }
        return uri;
    }

    /** A count of bytes, with an optional binary suffix: {@code 268435456}, {@code 256m}, {@code 1g}. */
    private static long bytes(CommandLine line) {
        String text = line.value().trim().toLowerCase(Locale.ROOT);
        int shift = text.endsWith("k") ? 10 : text.endsWith("m") ? 20 : text.endsWith("g") ? 30 : 0;
        String digits = shift == 0 ? text : text.substring(0, text.length() - 1);
        try {
            long n = Long.parseLong(digits);
            if (n < 1 || n > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw line.fail(line.option(), "\"" + text + "\" (accepted: a positive number of bytes, with an "
                    + "optional k, m or g, e.g. 256m)");
        }
    }
}
