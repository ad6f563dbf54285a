package io.rc10k.stubs.internal;

import io.rc10k.stubs.HostilePartner;
import io.rc10k.stubs.StubCertificate;
import io.rc10k.stubs.StubOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.List;

/**
 * Parses the partner-stubs command line into {@link StubOptions}, or with {@code --hostile} into a
 * {@link HostilePartner}; every error names the option and value.
 */
public final class CommandLine {
    public static final int DEFAULT_PORT = 9001;
    public static final int DEFAULT_HOSTILE_PORT = 9009;
    private static final int MAX_PORTS = 1000;

    public static final String USAGE = String.join(System.lineSeparator(),
            "Usage: java -jar partner-stubs.jar [options]",
            "  --port PORTS        ports to serve, e.g. 9001 | 9001,9002 | 9001-9010 (default " + DEFAULT_PORT + ")",
            "  --host HOST         address to bind (default " + StubOptions.DEFAULT_HOST + ")",
            "  --h2c               also speak cleartext HTTP/2 (prior knowledge) on the same ports",
            "  --https             serve HTTPS (TLS 1.2/1.3; h2 or HTTP/1.1 by ALPN) with a certificate made at start",
            "                      for localhost, 127.0.0.1 and --host; with --hostile, its misbehaviours inside TLS",
            "  --cert-out FILE     with --https: write that certificate (PEM) to FILE, for clients to trust",
            "  --max-threads N     thread pool maximum (default max(8, ports + 4))",
            "  --max-streams N     HTTP/2 concurrent streams per connection (default " + StubOptions.DEFAULT_MAX_STREAMS
                    + ")",
            "  --seed N            seed of the delay distributions, or with --hostile of the chaos draws (default "
                    + StubOptions.DEFAULT_SEED + ")",
            "  --accept-queue N    listen backlog (default " + StubOptions.DEFAULT_ACCEPT_QUEUE + ")",
            "  --idle-timeout MS   close keep-alive connections idle this long (default "
                    + StubOptions.DEFAULT_IDLE_TIMEOUT_MILLIS + ")",
            "  --max-stall MS      how long the stall faults hold a request; with --hostile, the longest any",
            "                      misbehaviour lasts before the connection is closed (default "
                    + StubOptions.DEFAULT_MAX_STALL_MILLIS + ")",
            "  --hostile           serve the hostile partner instead, on one port (default " + DEFAULT_HOSTILE_PORT
                    + "): GET /<misbehaviour>",
            "                      breaks HTTP/1.1 as named, GET /ok answers correctly, GET / lists the names",
            "                      (see docs/partner-stubs.md, \"Hostile partner\")",
            "  --chaos P           with --hostile: answer every other path (/ too) correctly, but misbehave at random",
            "                      with probability P (0 to 1, e.g. 0.05; 0 answers every path correctly)",
            "  --loops N           with --hostile: selector threads (default " + HostilePartner.DEFAULT_LOOPS
                    + ", at most " + HostilePartner.MAX_LOOPS + ")",
            "  --help              print this and exit",
            "  --version           print the name and version (" + BuildVersion.NAME + " x.y.z) and exit",
            "Endpoints: /stub?delay=&dist=&sigma=&seed=&bytes=&status=&fault=&id=, /weather|/hotels|/flights?city=,",
            "/stats, POST /stats/reset. See docs/partner-stubs.md.");

    private CommandLine() {
    }

    /** Thrown for a command line that cannot be run; the message is for the user. */
    public static final class UsageException extends Exception {
        public UsageException(String message) {
            super(message);
        }
    }

    /** Returns null when {@code --help} was asked for. */
    public static StubOptions parse(String... args) throws UsageException {
        StubOptions.Builder options = StubOptions.builder().port(DEFAULT_PORT);
        boolean https = false;
        Path certOut = null;
        String host = StubOptions.DEFAULT_HOST;
        try {
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--help", "-h" -> {
                        return null;
                    }
                    case "--h2c" -> options.h2c(true);
                    case "--https" -> https = true;
                    case "--cert-out" -> certOut = Path.of(value(args, ++i, arg));
                    case "--port", "--ports" -> options.ports(ports(value(args, ++i, arg)));
                    case "--host" -> {
                        host = value(args, ++i, arg);
                        options.host(host);
                    }
                    case "--max-threads" -> options.maxThreads(intValue(args, ++i, arg));
                    case "--max-streams" -> options.maxStreams(intValue(args, ++i, arg));
                    case "--seed" -> options.seed(longValue(args, ++i, arg));
                    case "--accept-queue" -> options.acceptQueue(intValue(args, ++i, arg));
                    case "--idle-timeout" -> options.idleTimeoutMillis(longValue(args, ++i, arg));
                    case "--max-stall" -> options.maxStallMillis(longValue(args, ++i, arg));
                    case "--chaos", "--loops" -> throw new UsageException(arg + ": only with --hostile (see --help)");
                    case "--hostile" -> throw new UsageException(arg + ": starts the hostile partner, which "
                            + "parseHostile reads");
                    default -> throw new UsageException("unknown option \"" + arg + "\" (see --help)");
                }
            }
            if (https) {
                options.tls(certificate(host, certOut));
            } else if (certOut != null) {
                throw new UsageException("--cert-out: only with --https");
            }
            return options.build();
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** A certificate for loopback and {@code host}, written to {@code certOut} when given. */
    private static StubCertificate certificate(String host, Path certOut) throws UsageException {
        Set<String> names = new LinkedHashSet<>(List.of("localhost", "127.0.0.1", "::1"));
        if (!host.equals("0.0.0.0") && !host.equals("::")) {
            names.add(host);
        }
        StubCertificate certificate = StubCertificate.generate(names.toArray(String[]::new));
        if (certOut != null) {
            try {
                certificate.writePem(certOut);
            } catch (IOException e) {
                throw new UsageException("--cert-out: cannot write " + certOut + ": " + e.getMessage());
            }
        }
        return certificate;
    }

    /** Whether the command line asks for the version (anywhere on it): then nothing else is read or started. */
    public static boolean asksForVersion(String... args) {
        return List.of(args).contains("--version");
    }

    /** Whether the command line asks for the hostile partner rather than the stubs. */
    public static boolean asksForHostile(String... args) {
        return List.of(args).contains("--hostile");
    }

    /** The hostile partner a {@code --hostile} command line asks for, not yet started; null for {@code --help}. */
    public static HostilePartner parseHostile(String... args) throws UsageException {
        HostilePartner.Builder partner = HostilePartner.builder().port(DEFAULT_HOSTILE_PORT);
        Double chaos = null;
        long seed = StubOptions.DEFAULT_SEED;
        boolean https = false;
        Path certOut = null;
        String host = StubOptions.DEFAULT_HOST;
        try {
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--help", "-h" -> {
                        return null;
                    }
                    case "--hostile" -> {
                    }
                    case "--port", "--ports" -> partner.port(onePort(value(args, ++i, arg)));
                    case "--host" -> {
                        host = value(args, ++i, arg);
                        partner.host(host);
                    }
                    case "--https" -> https = true;
                    case "--cert-out" -> certOut = Path.of(value(args, ++i, arg));
                    case "--seed" -> seed = longValue(args, ++i, arg);
                    case "--chaos" -> chaos = probability(value(args, ++i, arg));
                    case "--loops" -> partner.loops(intValue(args, ++i, arg));
                    case "--accept-queue" -> partner.acceptQueue(intValue(args, ++i, arg));
                    case "--idle-timeout" -> partner.idleTimeoutMillis(longValue(args, ++i, arg));
                    case "--max-stall" -> partner.maxStallMillis(longValue(args, ++i, arg));
                    case "--h2c", "--max-threads", "--max-streams" -> throw new UsageException(arg + ": not with "
                            + "--hostile (it speaks HTTP/1.1 only, on --loops selector threads; see --help)");
                    default -> throw new UsageException("unknown option \"" + arg + "\" (see --help)");
                }
            }
            if (chaos != null) {
                partner.chaos(chaos, seed);
            }
            if (https) {
                partner.tls(certificate(host, certOut));
            } else if (certOut != null) {
                throw new UsageException("--cert-out: only with --https");
            }
            return partner.build();
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    private static int onePort(String spec) throws UsageException {
        List<Integer> ports = ports(spec);
        if (ports.size() != 1) {
            throw new UsageException("--port: \"" + spec + "\" is " + ports.size() + " ports; --hostile serves one "
                    + "(accepted: one port, 0 to 65535; run one process per hostile partner)");
        }
        return ports.get(0);
    }

    private static double probability(String text) throws UsageException {
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new UsageException("--chaos: \"" + text + "\" is not a number (accepted: 0 to 1, e.g. 0.05)");
        }
    }

    /** {@code 9001}, {@code 9001,9003}, {@code 9001-9010}, or a mix: {@code 9001,9005-9007}. */
    static List<Integer> ports(String spec) throws UsageException {
        List<Integer> ports = new ArrayList<>();
        for (String part : spec.split(",")) {
            String[] range = part.trim().split("-", -1);
            if (range.length > 2) {
                throw badPorts(spec);
            }
            int from = port(range[0], spec);
            int to = range.length == 2 ? port(range[1], spec) : from;
            if (to < from || to - from >= MAX_PORTS) {
                throw new UsageException("--port: range \"" + part.trim() + "\" is empty or wider than " + MAX_PORTS
                        + " ports");
            }
            for (int p = from; p <= to; p++) {
                ports.add(p);
            }
        }
        if (ports.size() > MAX_PORTS) {
            throw new UsageException("--port: " + ports.size() + " ports is more than " + MAX_PORTS);
        }
        return ports;
    }

    private static int port(String text, String spec) throws UsageException {
        try {
            int p = Integer.parseInt(text.trim());
            if (p < 0 || p > 65_535) {
                throw badPorts(spec);
            }
            return p;
        } catch (NumberFormatException e) {
            throw badPorts(spec);
        }
    }

    private static UsageException badPorts(String spec) {
        return new UsageException("--port: \"" + spec + "\" is not a port list (accepted: 9001, 9001,9002, "
                + "9001-9010; each 0 to 65535)");
    }

    private static String value(String[] args, int i, String option) throws UsageException {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new UsageException(option + ": a value is missing (see --help)");
        }
        return args[i];
    }

    private static int intValue(String[] args, int i, String option) throws UsageException {
        return (int) number(value(args, i, option), option, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    private static long longValue(String[] args, int i, String option) throws UsageException {
        return number(value(args, i, option), option, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    private static long number(String text, String option, long min, long max) throws UsageException {
        try {
            long n = Long.parseLong(text);
            if (n < min || n > max) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException(option + ": \"" + text + "\" is not an integer");
        }
    }
}
