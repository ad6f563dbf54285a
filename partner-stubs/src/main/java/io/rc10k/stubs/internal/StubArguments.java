package io.rc10k.stubs.internal;

import io.rc10k.harness.CommandLine;
import io.rc10k.stubs.HostilePartner;
import io.rc10k.stubs.StubCertificate;
import io.rc10k.stubs.StubOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The partner-stubs command line, read with the harness's {@link CommandLine}, into {@link StubOptions}, or with
 * {@code --hostile} into a {@link HostilePartner}; every error names the option and value.
 *
 * <pre>{@code
 * StubOptions options = StubArguments.parse("--port", "9001-9003", "--h2c");   // null for --help
 * }</pre>
 */
public final class StubArguments {
    /** What {@code --version} prints before the version, as the jar's manifest titles it. */
    public static final String NAME = "rc10k-partner-stubs";
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
            "  --version           print the name and version (" + NAME + " x.y.z) and exit",
            "Endpoints: /stub?delay=&dist=&sigma=&seed=&bytes=&status=&fault=&id=, /weather|/hotels|/flights?city=,",
            "/stats, POST /stats/reset. See docs/partner-stubs.md.");

    private StubArguments() {
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
        Listening listening = new Listening();
        try {
            CommandLine line = CommandLine.silent(args);
            while (line.next()) {
                switch (line.option()) {
                    case "--h2c" -> options.h2c(true);
                    case "--port", "--ports" -> options.ports(ports(line.value()));
                    case "--host" -> options.host(listening.host(line));
                    case "--max-threads" -> options.maxThreads(line.intValue());
                    case "--max-streams" -> options.maxStreams(line.intValue());
                    case "--seed" -> options.seed(line.longValue());
                    case "--accept-queue" -> options.acceptQueue(line.intValue());
                    case "--idle-timeout" -> options.idleTimeoutMillis(line.longValue());
                    case "--max-stall" -> options.maxStallMillis(line.longValue());
                    case "--chaos", "--loops" -> throw line.fail(line.option(), "only with --hostile (see --help)");
                    case "--hostile" -> throw line.fail(line.option(), "starts the hostile partner, which "
                            + "parseHostile reads");
                    default -> listening.read(line);
                }
            }
            return line.asksForHelp() ? null : options.tls(listening.tls()).build();
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** The hostile partner a {@code --hostile} command line asks for, not yet started; null for {@code --help}. */
    public static HostilePartner parseHostile(String... args) throws UsageException {
        HostilePartner.Builder partner = HostilePartner.builder().port(DEFAULT_HOSTILE_PORT);
        Listening listening = new Listening();
        Double chaos = null;
        long seed = StubOptions.DEFAULT_SEED;
        try {
            CommandLine line = CommandLine.silent(args);
            while (line.next()) {
                switch (line.option()) {
                    case "--hostile" -> {
                    }
                    case "--port", "--ports" -> partner.port(onePort(line.value()));
                    case "--host" -> partner.host(listening.host(line));
                    case "--seed" -> seed = line.longValue();
                    case "--chaos" -> chaos = probability(line.value());
                    case "--loops" -> partner.loops(line.intValue());
                    case "--accept-queue" -> partner.acceptQueue(line.intValue());
                    case "--idle-timeout" -> partner.idleTimeoutMillis(line.longValue());
                    case "--max-stall" -> partner.maxStallMillis(line.longValue());
                    case "--h2c", "--max-threads", "--max-streams" -> throw line.fail(line.option(), "not with "
                            + "--hostile (it speaks HTTP/1.1 only, on --loops selector threads; see --help)");
                    default -> listening.read(line);
                }
            }
            if (line.asksForHelp()) {
                return null;
            }
            if (chaos != null) {
                partner.chaos(chaos, seed);
            }
            return partner.tls(listening.tls()).build();
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** Whether the command line asks for the version (anywhere on it): then nothing else is read or started. */
    public static boolean asksForVersion(String... args) {
        return List.of(args).contains("--version");
    }

    /** Whether the command line asks for the hostile partner rather than the stubs. */
    public static boolean asksForHostile(String... args) {
        return List.of(args).contains("--hostile");
    }

    /** What the stubs and the hostile partner both take: the address they bind, and HTTPS with its certificate. */
    private static final class Listening {
        private String host = StubOptions.DEFAULT_HOST;
        private boolean https;
        private Path certOut;

        String host(CommandLine line) {
            host = line.value();
            return host;
        }

        /** {@code --https} or {@code --cert-out}; any other option is unknown. */
        void read(CommandLine line) {
            switch (line.option()) {
                case "--https" -> https = true;
                case "--cert-out" -> certOut = line.path();
                default -> line.unknown();
            }
        }

        /** With {@code --https}, a certificate for loopback and the host, written to {@code --cert-out} if given. */
        StubCertificate tls() throws UsageException {
            if (!https) {
                if (certOut != null) {
                    throw new UsageException("--cert-out: only with --https");
                }
                return null;
            }
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
}
