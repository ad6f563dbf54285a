package io.rc10k.mashup;

import java.net.URI;

/**
 * How one mashup server runs: where it listens, how it waits, and its bounds. Immutable; made by a
 * {@link Builder}, which checks every value as it builds.
 *
 * <pre>{@code
 * MashupOptions options = MashupOptions.builder().port(0).mode(Mode.SYNC).maxThreads(400).build();
 * MashupOptions noAdmin = options.toBuilder().adminPort(-1).build();
 * Server server = MashupServer.createServer(options, definitions);
 * }</pre>
 *
 * <p>Each value's message names the command-line option that sets it ({@code --port: 70000 (accepted: 0 to
 * 65535)}), as the server's command line maps one to one onto the builder.</p>
 */
public final class MashupOptions {
    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final String DEFAULT_ADMIN_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 8080;
    public static final int DEFAULT_MAX_THREADS = 200;
    /** Threads the pool keeps started while idle (at most {@code maxThreads}). */
    public static final int DEFAULT_MIN_THREADS = 8;
    /** How long an inbound connection may stay idle (no next request, a client that stops reading) before closing. */
    public static final int DEFAULT_IDLE_TIMEOUT_MILLIS = 30_000;
    /** The listen backlog the main connector asks for; the kernel caps it at {@code net.core.somaxconn}. */
    public static final int DEFAULT_ACCEPT_QUEUE = 4_096;
    /** The upper bound of the derived {@code maxInFlight}. */
    public static final int DEFAULT_MAX_IN_FLIGHT = 10_000;

    private final String host;
    private final int port;
    private final Mode mode;
    private final int maxThreads;
    private final int maxInFlight;
    private final int maxConnections;
    private final int adminPort;
    private final String adminHost;
    private final boolean observabilityOnAdminOnly;
    private final URI otlpEndpoint;
    private final long maxBufferedBytes;
    private final int acceptors;
    private final int selectors;
    private final int minThreads;
    private final int reservedThreads;
    private final int idleTimeoutMillis;
    private final int acceptQueue;

    private MashupOptions(Builder b) {
        host = b.host;
        port = b.port;
        mode = b.mode;
        maxThreads = b.maxThreads;
        maxInFlight = b.maxInFlight;
        maxConnections = b.maxConnections;
        adminPort = b.adminPort != null ? b.adminPort : adminPortNextTo(b.port);
        adminHost = b.adminHost;
        observabilityOnAdminOnly = b.observabilityOnAdminOnly;
        otlpEndpoint = b.otlpEndpoint;
        maxBufferedBytes = b.maxBufferedBytes;
        acceptors = b.acceptors;
        selectors = b.selectors;
        minThreads = b.minThreads;
        reservedThreads = b.reservedThreads;
        idleTimeoutMillis = b.idleTimeoutMillis;
        acceptQueue = b.acceptQueue;
    }

    /**
     * Port 8080 and admin port 8081, both on loopback; async, 200 threads (8 kept started, Jetty's reserved
     * threads), limits derived from the open-file limit, no span export, Jetty's default acceptors and selectors,
     * a 30 s idle timeout and an accept queue of 4,096.
     */
    public static Builder builder() {
        return new Builder();
    }

    /** What {@link #builder()} builds untouched. */
    public static MashupOptions defaults() {
        return builder().build();
    }

    /**
     * A builder holding these options. An admin port next to the port ({@code port + 1}, or ephemeral with port
     * 0) is left to follow the port, as the builder's default does; any other stays where it is.
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.host = host;
        b.port = port;
        b.mode = mode;
        b.maxThreads = maxThreads;
        b.maxInFlight = maxInFlight;
        b.maxConnections = maxConnections;
        b.adminPort = adminPort == adminPortNextTo(port) ? null : adminPort;
        b.adminHost = adminHost;
        b.observabilityOnAdminOnly = observabilityOnAdminOnly;
        b.otlpEndpoint = otlpEndpoint;
        b.maxBufferedBytes = maxBufferedBytes;
        b.acceptors = acceptors;
        b.selectors = selectors;
        b.minThreads = minThreads;
        b.reservedThreads = reservedThreads;
        b.idleTimeoutMillis = idleTimeoutMillis;
        b.acceptQueue = acceptQueue;
        return b;
    }

    private static int adminPortNextTo(int port) {
        return port == 0 ? 0 : port + 1;
    }

    /** The address to bind. */
    public String host() {
        return host;
    }

    /** The port; 0: ephemeral. */
    public int port() {
        return port;
    }

    /** Async, sync or virtual: how mashups wait for their partners. */
    public Mode mode() {
        return mode;
    }

    /** The shared {@code QueuedThreadPool}'s maximum. */
    public int maxThreads() {
        return maxThreads;
    }

    /**
     * Mashup requests admitted at once; more get 503 with Retry-After at once. 0: derived from the open-file
     * limit, at most {@link #DEFAULT_MAX_IN_FLIGHT}.
     */
    public int maxInFlight() {
        return maxInFlight;
    }

    /**
     * Inbound connections at once; past it the server stops accepting until some close. 0: derived from the
     * open-file limit.
     */
    public int maxConnections() {
        return maxConnections;
    }

    /**
     * A second port serving only the {@code /health} views, {@code /metrics} and the dashboard, outside the
     * connection limit, that stays open during a graceful stop: -1 none, 0 ephemeral.
     */
    public int adminPort() {
        return adminPort;
    }

    /**
     * The address the admin port binds, apart from {@link #host()}: loopback by default, so that a host of
     * {@code 0.0.0.0} publishes the mashups, not the metrics, probes and live view.
     */
    public String adminHost() {
        return adminHost;
    }

    /** {@code /metrics} and the {@code /health} views on the admin port only; the main port answers 404 for them. */
    public boolean observabilityOnAdminOnly() {
        return observabilityOnAdminOnly;
    }

    /**
     * Where to export spans with OTLP/HTTP ({@code http://collector:4318}, or a full {@code .../v1/traces} URL),
     * or null: nothing exported, unless the {@code OTEL_*} settings ask for it.
     */
    public URI otlpEndpoint() {
        return otlpEndpoint;
    }

    /**
     * The most bytes of partner response bodies held at once while they arrive, over every partner; a call past
     * it ends {@code memory_budget}. 0: a quarter of the heap.
     */
    public long maxBufferedBytes() {
        return maxBufferedBytes;
    }

    /** The main connector's acceptor threads (Jetty's main reactor); 0 lets its selectors accept; -1: Jetty's. */
    public int acceptors() {
        return acceptors;
    }

    /** The main connector's selector threads (Jetty's sub-reactors); -1 Jetty's default. */
    public int selectors() {
        return selectors;
    }

    /** Threads the pool keeps started while idle; at most {@link #maxThreads()}. */
    public int minThreads() {
        return minThreads;
    }

    /**
     * Threads the pool keeps spinning-ready to take a job at once (Jetty's {@code ReservedThreadExecutor}): 0
     * none, -1 Jetty's choice (by the cores and the pool's size).
     */
    public int reservedThreads() {
        return reservedThreads;
    }

    /**
     * How long an inbound connection may stay idle before the server closes it: a kept-alive connection between
     * requests, or a client that stops reading an answer.
     */
    public int idleTimeoutMillis() {
        return idleTimeoutMillis;
    }

    /** The main connector's listen backlog (the kernel caps it at {@code net.core.somaxconn}). */
    public int acceptQueue() {
        return acceptQueue;
    }

    @Override
    public String toString() {
        return "MashupOptions[host=" + host + ", port=" + port + ", mode=" + mode.label() + ", maxThreads="
                + maxThreads + ", maxInFlight=" + maxInFlight + ", maxConnections=" + maxConnections + ", adminPort="
                + adminPort + ", adminHost=" + adminHost + ", observabilityOnAdminOnly=" + observabilityOnAdminOnly
                + ", otlpEndpoint=" + otlpEndpoint + ", maxBufferedBytes=" + maxBufferedBytes + ", acceptors="
                + acceptors + ", selectors=" + selectors + ", minThreads=" + minThreads + ", reservedThreads="
                + reservedThreads + ", idleTimeoutMillis=" + idleTimeoutMillis + ", acceptQueue=" + acceptQueue + "]";
    }

    /** Settings in any order; {@link #build()} checks them all. Not thread-safe. */
    public static final class Builder {
        private String host = DEFAULT_HOST;
        private int port = DEFAULT_PORT;
        private Mode mode = Mode.ASYNC;
        private int maxThreads = DEFAULT_MAX_THREADS;
        private int maxInFlight;
        private int maxConnections;
        /** Null: next to the port. */
        private Integer adminPort;
        private String adminHost = DEFAULT_ADMIN_HOST;
        private boolean observabilityOnAdminOnly;
        private URI otlpEndpoint;
        private long maxBufferedBytes;
        private int acceptors = -1;
        private int selectors = -1;
        private int minThreads = DEFAULT_MIN_THREADS;
        private int reservedThreads = -1;
        private int idleTimeoutMillis = DEFAULT_IDLE_TIMEOUT_MILLIS;
        private int acceptQueue = DEFAULT_ACCEPT_QUEUE;

        private Builder() {
        }

        /** The address to bind (default {@value #DEFAULT_HOST}); the admin port's stays apart ({@link #adminHost}). */
        public Builder host(String host) {
            this.host = host;
            return this;
        }

        /** 0 to 65535, 0 ephemeral (default {@value #DEFAULT_PORT}); an admin port not set follows it. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder mode(Mode mode) {
            this.mode = mode;
            return this;
        }

        /** At least 8 (default {@value #DEFAULT_MAX_THREADS}). */
        public Builder maxThreads(int maxThreads) {
            this.maxThreads = maxThreads;
            return this;
        }

        /** 0 derives it from the open-file limit (the default), else at least 1. */
        public Builder maxInFlight(int maxInFlight) {
            this.maxInFlight = maxInFlight;
            return this;
        }

        /** 0 derives it from the open-file limit (the default), else at least 1. */
        public Builder maxConnections(int maxConnections) {
            this.maxConnections = maxConnections;
            return this;
        }

        /** -1 for none, 0 to 65535, 0 ephemeral; by default the port + 1 (ephemeral with port 0). */
        public Builder adminPort(int adminPort) {
            this.adminPort = adminPort;
            return this;
        }

        /** Default {@value #DEFAULT_ADMIN_HOST}, whatever {@link #host} says. */
        public Builder adminHost(String adminHost) {
            this.adminHost = adminHost;
            return this;
        }

        /** Needs an admin port. Default false. */
        public Builder observabilityOnAdminOnly(boolean observabilityOnAdminOnly) {
            this.observabilityOnAdminOnly = observabilityOnAdminOnly;
            return this;
        }

        /** An http or https URL with a host and no query, or null (the default). */
        public Builder otlpEndpoint(URI otlpEndpoint) {
            this.otlpEndpoint = otlpEndpoint;
            return this;
        }

        /** 0 for a quarter of the heap (the default), else at least 1. */
        public Builder maxBufferedBytes(long maxBufferedBytes) {
            this.maxBufferedBytes = maxBufferedBytes;
            return this;
        }

        /** -1 for Jetty's default (the default), 0 to 64. */
        public Builder acceptors(int acceptors) {
            this.acceptors = acceptors;
            return this;
        }

        /** -1 for Jetty's default (the default), 1 to 256. */
        public Builder selectors(int selectors) {
            this.selectors = selectors;
            return this;
        }

        /** 1 to {@link #maxThreads} (default {@value #DEFAULT_MIN_THREADS}). */
        public Builder minThreads(int minThreads) {
            this.minThreads = minThreads;
            return this;
        }

        /** -1 for Jetty's choice (the default), 0 for none, else at most {@link #maxThreads}. */
        public Builder reservedThreads(int reservedThreads) {
            this.reservedThreads = reservedThreads;
            return this;
        }

        /** At least 1 (default {@value #DEFAULT_IDLE_TIMEOUT_MILLIS}). */
        public Builder idleTimeoutMillis(int idleTimeoutMillis) {
            this.idleTimeoutMillis = idleTimeoutMillis;
            return this;
        }

        /** 1 to 65535 (default {@value #DEFAULT_ACCEPT_QUEUE}). */
        public Builder acceptQueue(int acceptQueue) {
            this.acceptQueue = acceptQueue;
            return this;
        }

        /** @throws IllegalArgumentException naming the first value out of range, the value and what is accepted */
        public MashupOptions build() {
            int admin = adminPort != null ? adminPort : adminPortNextTo(port);
            check(port >= 0 && port <= 65_535, "--port: " + port + " (accepted: 0 to 65535)");
            check(mode != null, "--mode: null (accepted: async, sync, virtual)");
            check(maxThreads >= 8, "--max-threads: " + maxThreads + " (accepted: at least 8)");
            check(maxInFlight >= 0, "--max-inflight: " + maxInFlight + " (accepted: 0 for derived, or at least 1)");
            check(maxConnections >= 0, "--max-connections: " + maxConnections
                    + " (accepted: 0 for derived, or at least 1)");
            check(admin >= -1 && admin <= 65_535, "--admin-port: " + admin + " (accepted: -1 for none, 0 to 65535)");
            check(adminHost != null && !adminHost.isBlank(), "--admin-host: \"" + adminHost
                    + "\" (accepted: an address to bind, e.g. " + DEFAULT_ADMIN_HOST + " or 0.0.0.0)");
            check(!observabilityOnAdminOnly || admin >= 0, "--observability-on-admin-only needs an admin port, but "
                    + "--admin-port is " + admin + " (accepted with it: --admin-port 0 to 65535)");
            check(maxBufferedBytes >= 0, "--max-buffered-bytes: " + maxBufferedBytes
                    + " (accepted: 0 for a quarter of the heap, or at least 1, with an optional k, m or g)");
            check(acceptors >= -1 && acceptors <= 64, "--acceptors: " + acceptors
                    + " (accepted: -1 for Jetty's default, 0 to 64)");
            check(selectors == -1 || selectors >= 1 && selectors <= 256, "--selectors: " + selectors
                    + " (accepted: -1 for Jetty's default, 1 to 256)");
            check(minThreads >= 1 && minThreads <= maxThreads, "--min-threads: " + minThreads + " (accepted: 1 to "
                    + "--max-threads, " + maxThreads + ")");
            check(reservedThreads >= -1 && reservedThreads <= maxThreads, "--reserved-threads: " + reservedThreads
                    + " (accepted: -1 for Jetty's choice, 0 for none, up to --max-threads, " + maxThreads + ")");
            check(idleTimeoutMillis >= 1, "--idle-timeout: " + idleTimeoutMillis + " (accepted: at least 1 ms)");
            check(acceptQueue >= 1 && acceptQueue <= 65_535, "--accept-queue: " + acceptQueue
                    + " (accepted: 1 to 65535; the kernel caps it at net.core.somaxconn)");
            check(otlpEndpoint == null || isHttpUrl(otlpEndpoint), "--otlp-endpoint: \"" + otlpEndpoint
                    + "\" (accepted: an http or https URL with a host and no query, e.g. http://127.0.0.1:4318)");
            return new MashupOptions(this);
        }

        private static void check(boolean valid, String problem) {
            if (!valid) {
                throw new IllegalArgumentException(problem);
            }
        }

        private static boolean isHttpUrl(URI uri) {
            return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null
                    && uri.getQuery() == null && uri.getFragment() == null;
        }
    }
}
