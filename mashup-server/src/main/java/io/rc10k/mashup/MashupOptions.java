package io.rc10k.mashup;

import java.net.URI;

/**
 * How one mashup server runs: where it listens, how it waits, and its bounds. Immutable.
 *
 * @param host        address to bind
 * @param port        port (0: ephemeral)
 * @param mode        async, sync or virtual
 * @param maxThreads     the shared {@code QueuedThreadPool}'s maximum
 * @param maxInFlight    mashup requests admitted at once; more get 503 with Retry-After at once;
 *                       0 derives it from the open-file limit (see {@link io.rc10k.mashup.internal.admission.FileBudget})
 * @param maxConnections inbound connections at once; past it the server stops accepting until some
 *                       close; 0 derives it from the open-file limit
 * @param adminPort      a second port serving only the {@code /health} views, {@code /metrics} and the dashboard,
 *                       outside the connection limit, that stays open during a graceful stop: -1 none, 0 ephemeral
 * @param adminHost      address the admin port binds, apart from {@code host}: loopback by default, so that
 *                       {@code --host 0.0.0.0} publishes the mashups, not the metrics, probes and live view
 * @param observabilityOnAdminOnly {@code /metrics} and the {@code /health} views on the admin port only;
 *                       the main port answers 404 for them. Needs an admin port
 * @param otlpEndpoint   where to export spans with OTLP/HTTP ({@code http://collector:4318}, or a full
 *                       {@code .../v1/traces} URL), or null: nothing exported, nothing of it loaded
 * @param maxBufferedBytes the most bytes of partner response bodies held at once while they arrive, over
 *                       every partner; a call past it ends {@code memory_budget}. 0: a quarter of the heap
 * @param acceptors      the main connector's acceptor threads (Jetty's main reactor); 0 lets its selectors
 *                       accept too; -1: Jetty's default, by the cores
 * @param selectors      the main connector's selector threads (Jetty's sub-reactors); -1: Jetty's default, by the
 *                       cores
 */
public record MashupOptions(String host, int port, Mode mode, int maxThreads, int maxInFlight, int maxConnections,
        int adminPort, String adminHost, boolean observabilityOnAdminOnly, URI otlpEndpoint, long maxBufferedBytes,
        int acceptors, int selectors) {
    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final String DEFAULT_ADMIN_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 8080;
    public static final int DEFAULT_MAX_THREADS = 200;
    /** The upper bound of the derived {@code maxInFlight}. */
    public static final int DEFAULT_MAX_IN_FLIGHT = 10_000;

    public MashupOptions {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("--port: " + port + " (accepted: 0 to 65535)");
        }
        if (maxThreads < 8) {
            throw new IllegalArgumentException("--max-threads: " + maxThreads + " (accepted: at least 8)");
        }
        if (maxInFlight < 0) {
            throw new IllegalArgumentException("--max-inflight: " + maxInFlight + " (accepted: 0 for derived, or at "
                    + "least 1)");
        }
        if (maxConnections < 0) {
            throw new IllegalArgumentException("--max-connections: " + maxConnections + " (accepted: 0 for derived, "
                    + "or at least 1)");
        }
        if (adminPort < -1 || adminPort > 65_535) {
            throw new IllegalArgumentException("--admin-port: " + adminPort + " (accepted: -1 for none, 0 to 65535)");
        }
        if (adminHost == null || adminHost.isBlank()) {
            throw new IllegalArgumentException("--admin-host: \"" + adminHost + "\" (accepted: an address to bind, e.g. "
                    + DEFAULT_ADMIN_HOST + " or 0.0.0.0)");
        }
        if (observabilityOnAdminOnly && adminPort < 0) {
            throw new IllegalArgumentException("--observability-on-admin-only needs an admin port, but --admin-port is "
                    + adminPort + " (accepted with it: --admin-port 0 to 65535)");
        }
        if (maxBufferedBytes < 0) {
            throw new IllegalArgumentException("--max-buffered-bytes: " + maxBufferedBytes + " (accepted: 0 for a "
                    + "quarter of the heap, or at least 1, with an optional k, m or g)");
        }
        if (acceptors < -1 || acceptors > 64) {
            throw new IllegalArgumentException("--acceptors: " + acceptors + " (accepted: -1 for Jetty's default, "
                    + "0 to 64)");
        }
        if (selectors < -1 || selectors == 0 || selectors > 256) {
            throw new IllegalArgumentException("--selectors: " + selectors + " (accepted: -1 for Jetty's default, "
                    + "1 to 256)");
        }
        if (otlpEndpoint != null && !isHttpUrl(otlpEndpoint)) {
            throw new IllegalArgumentException("--otlp-endpoint: \"" + otlpEndpoint + "\" (accepted: an http or https "
                    + "URL with a host and no query, e.g. http://127.0.0.1:4318)");
        }
    }

    private static boolean isHttpUrl(URI uri) {
        return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null
                && uri.getQuery() == null && uri.getFragment() == null;
    }

    /**
     * Port 8080 and admin port 8081, both on loopback; async, 200 threads, limits derived from the open-file
     * limit, no span export, Jetty's default acceptors and selectors.
     */
    public static MashupOptions defaults() {
        return new MashupOptions(DEFAULT_HOST, DEFAULT_PORT, Mode.ASYNC, DEFAULT_MAX_THREADS, 0, 0, DEFAULT_PORT + 1,
                DEFAULT_ADMIN_HOST, false, null, 0, -1, -1);
    }

    public MashupOptions withHost(String host) {
        return new MashupOptions(host, port, mode, maxThreads, maxInFlight, maxConnections, adminPort,
                adminHost, observabilityOnAdminOnly, otlpEndpoint, maxBufferedBytes, acceptors, selectors);
    }

    /** Also moves a default admin port along: port + 1, or ephemeral for port 0. */
    public MashupOptions withPort(int port) {
        int admin = adminPort == this.port + 1 ? (port == 0 ? 0 : port + 1) : adminPort;
        return new MashupOptions(host, port, mode, maxThreads, maxInFlight, maxConnections, admin,
                adminHost, observabilityOnAdminOnly, otlpEndpoint, maxBufferedBytes, acceptors, selectors);
    }

    public MashupOptions withMode(Mode mode) {
        return new MashupOptions(host, port, mode, maxThreads, maxInFlight, maxConnections, adminPort,
                adminHost, observabilityOnAdminOnly, otlpEndpoint, maxBufferedBytes, acceptors, selectors);
    }

    public MashupOptions withMaxThreads(int maxThreads) {
        return new MashupOptions(host, port, mode, maxThreads, maxInFlight, maxConnections, adminPort,
                adminHost, observabilityOnAdminOnly, otlpEndpoint, maxBufferedBytes, acceptors, selectors);
    }

    public MashupOptions withMaxInFlight(int maxInFlight) {
        return new MashupOptions(host, port, mode, maxThreads, maxInFlight, maxConnections, adminPort,
                adminHost, observabilityOnAdminOnly, otlpEndpoint, maxBufferedBytes, acceptors, selectors);
    }

    public MashupOptions withMaxConnections(int maxConnections) {
        return new MashupOptions(host, port, mode, maxThreads, maxInFlight, maxConnections, adminPort,
                adminHost, observabilityOnAdminOnly, otlpEndpoint, maxBufferedBytes, acceptors, selectors);
    }

    public MashupOptions withAdminPort(int adminPort) {
        return new MashupOptions(host, port, mode, maxThreads, maxInFlight, maxConnections, adminPort,
                adminHost, observabilityOnAdminOnly, otlpEndpoint, maxBufferedBytes, acceptors, selectors);
    }

    /** Where the admin port binds; {@link #withHost} leaves it where it is. */
    public MashupOptions withAdminHost(String adminHost) {
        return new MashupOptions(host, port, mode, maxThreads, maxInFlight, maxConnections, adminPort,
                adminHost, observabilityOnAdminOnly, otlpEndpoint, maxBufferedBytes, acceptors, selectors);
    }

    public MashupOptions withObservabilityOnAdminOnly(boolean observabilityOnAdminOnly) {
        return new MashupOptions(host, port, mode, maxThreads, maxInFlight, maxConnections, adminPort,
                adminHost, observabilityOnAdminOnly, otlpEndpoint, maxBufferedBytes, acceptors, selectors);
    }

    public MashupOptions withOtlpEndpoint(URI otlpEndpoint) {
        return new MashupOptions(host, port, mode, maxThreads, maxInFlight, maxConnections, adminPort,
                adminHost, observabilityOnAdminOnly, otlpEndpoint, maxBufferedBytes, acceptors, selectors);
    }

    public MashupOptions withMaxBufferedBytes(long maxBufferedBytes) {
        return new MashupOptions(host, port, mode, maxThreads, maxInFlight, maxConnections, adminPort,
                adminHost, observabilityOnAdminOnly, otlpEndpoint, maxBufferedBytes, acceptors, selectors);
    }

    /** The main connector's acceptor threads: 0 lets its selectors accept; -1 Jetty's default. */
    public MashupOptions withAcceptors(int acceptors) {
        return new MashupOptions(host, port, mode, maxThreads, maxInFlight, maxConnections, adminPort,
                adminHost, observabilityOnAdminOnly, otlpEndpoint, maxBufferedBytes, acceptors, selectors);
    }

    /** The main connector's selector threads; -1 Jetty's default. */
    public MashupOptions withSelectors(int selectors) {
        return new MashupOptions(host, port, mode, maxThreads, maxInFlight, maxConnections, adminPort,
                adminHost, observabilityOnAdminOnly, otlpEndpoint, maxBufferedBytes, acceptors, selectors);
    }
}
