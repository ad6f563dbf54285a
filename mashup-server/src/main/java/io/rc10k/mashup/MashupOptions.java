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

    /** A copy made at build, never changed again. */
    private final OptionValues values;

    private MashupOptions(OptionValues values) {
        this.values = values;
    }

    /**
     * Port 8080 and admin port 8081, both on loopback; async, 200 threads (8 kept started, Jetty's reserved
     * threads), limits derived from the open-file limit, no span export, Jetty's default acceptors and selectors,
     * a 30 s idle timeout and an accept queue of 4,096.
     */
    public static Builder builder() {
        return new Builder(new OptionValues());
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
        return new Builder(values.copyFollowingPort());
    }

    /** The address to bind. */
    public String host() {
        return values.host;
    }

    /** The port; 0: ephemeral. */
    public int port() {
        return values.port;
    }

    /** Async, sync or virtual: how mashups wait for their partners. */
    public Mode mode() {
        return values.mode;
    }

    /** The shared {@code QueuedThreadPool}'s maximum. */
    public int maxThreads() {
        return values.maxThreads;
    }

    /**
     * Mashup requests admitted at once; more get 503 with Retry-After at once. 0: derived from the open-file
     * limit, at most {@link #DEFAULT_MAX_IN_FLIGHT}.
     */
    public int maxInFlight() {
        return values.maxInFlight;
    }

    /**
     * Inbound connections at once; past it the server stops accepting until some close. 0: derived from the
     * open-file limit.
     */
    public int maxConnections() {
        return values.maxConnections;
    }

    /**
     * A second port serving only the {@code /health} views, {@code /metrics} and the dashboard, outside the
     * connection limit, that stays open during a graceful stop: -1 none, 0 ephemeral.
     */
    public int adminPort() {
        return values.adminPort();
    }

    /**
     * The address the admin port binds, apart from {@link #host()}: loopback by default, so that a host of
     * {@code 0.0.0.0} publishes the mashups, not the metrics, probes and live view.
     */
    public String adminHost() {
        return values.adminHost;
    }

    /** {@code /metrics} and the {@code /health} views on the admin port only; the main port answers 404 for them. */
    public boolean observabilityOnAdminOnly() {
        return values.observabilityOnAdminOnly;
    }

    /**
     * Where to export spans with OTLP/HTTP ({@code http://collector:4318}, or a full {@code .../v1/traces} URL),
     * or null: nothing exported, unless the {@code OTEL_*} settings ask for it.
     */
    public URI otlpEndpoint() {
        return values.otlpEndpoint;
    }

    /**
     * The most bytes of partner response bodies held at once while they arrive, over every partner; a call past
     * it ends {@code memory_budget}. 0: a quarter of the heap.
     */
    public long maxBufferedBytes() {
        return values.maxBufferedBytes;
    }

    /** The main connector's acceptor threads (Jetty's main reactor); 0 lets its selectors accept; -1: Jetty's. */
    public int acceptors() {
        return values.acceptors;
    }

    /** The main connector's selector threads (Jetty's sub-reactors); -1 Jetty's default. */
    public int selectors() {
        return values.selectors;
    }

    /** Threads the pool keeps started while idle; at most {@link #maxThreads()}. */
    public int minThreads() {
        return values.minThreads;
    }

    /**
     * Threads the pool keeps spinning-ready to take a job at once (Jetty's {@code ReservedThreadExecutor}): 0
     * none, -1 Jetty's choice (by the cores and the pool's size).
     */
    public int reservedThreads() {
        return values.reservedThreads;
    }

    /**
     * How long an inbound connection may stay idle before the server closes it: a kept-alive connection between
     * requests, or a client that stops reading an answer.
     */
    public int idleTimeoutMillis() {
        return values.idleTimeoutMillis;
    }

    /** The main connector's listen backlog (the kernel caps it at {@code net.core.somaxconn}). */
    public int acceptQueue() {
        return values.acceptQueue;
    }

    @Override
    public String toString() {
        return values.toString();
    }

    /** Settings in any order; {@link #build()} checks them all. Not thread-safe. */
    public static final class Builder {
        private final OptionValues values;

        private Builder(OptionValues values) {
            this.values = values;
        }

        /** The address to bind (default {@value #DEFAULT_HOST}); the admin port's stays apart ({@link #adminHost}). */
        public Builder host(String host) {
            values.host = host;
            return this;
        }

        /** 0 to 65535, 0 ephemeral (default {@value #DEFAULT_PORT}); an admin port not set follows it. */
        public Builder port(int port) {
            values.port = port;
            return this;
        }

        public Builder mode(Mode mode) {
            values.mode = mode;
            return this;
        }

        /** At least 8 (default {@value #DEFAULT_MAX_THREADS}). */
        public Builder maxThreads(int maxThreads) {
            values.maxThreads = maxThreads;
            return this;
        }

        /** 0 derives it from the open-file limit (the default), else at least 1. */
        public Builder maxInFlight(int maxInFlight) {
            values.maxInFlight = maxInFlight;
            return this;
        }

        /** 0 derives it from the open-file limit (the default), else at least 1. */
        public Builder maxConnections(int maxConnections) {
            values.maxConnections = maxConnections;
            return this;
        }

        /** -1 for none, 0 to 65535, 0 ephemeral; by default the port + 1 (ephemeral with port 0). */
        public Builder adminPort(int adminPort) {
            values.adminPort = adminPort;
            return this;
        }

        /** Default {@value #DEFAULT_ADMIN_HOST}, whatever {@link #host} says. */
        public Builder adminHost(String adminHost) {
            values.adminHost = adminHost;
            return this;
        }

        /** Needs an admin port. Default false. */
        public Builder observabilityOnAdminOnly(boolean observabilityOnAdminOnly) {
            values.observabilityOnAdminOnly = observabilityOnAdminOnly;
            return this;
        }

        /** An http or https URL with a host and no query, or null (the default). */
        public Builder otlpEndpoint(URI otlpEndpoint) {
            values.otlpEndpoint = otlpEndpoint;
            return this;
        }

        /** 0 for a quarter of the heap (the default), else at least 1. */
        public Builder maxBufferedBytes(long maxBufferedBytes) {
            values.maxBufferedBytes = maxBufferedBytes;
            return this;
        }

        /** -1 for Jetty's default (the default), 0 to 64. */
        public Builder acceptors(int acceptors) {
            values.acceptors = acceptors;
            return this;
        }

        /** -1 for Jetty's default (the default), 1 to 256. */
        public Builder selectors(int selectors) {
            values.selectors = selectors;
            return this;
        }

        /** 1 to {@link #maxThreads} (default {@value #DEFAULT_MIN_THREADS}). */
        public Builder minThreads(int minThreads) {
            values.minThreads = minThreads;
            return this;
        }

        /** -1 for Jetty's choice (the default), 0 for none, else at most {@link #maxThreads}. */
        public Builder reservedThreads(int reservedThreads) {
            values.reservedThreads = reservedThreads;
            return this;
        }

        /** At least 1 (default {@value #DEFAULT_IDLE_TIMEOUT_MILLIS}). */
        public Builder idleTimeoutMillis(int idleTimeoutMillis) {
            values.idleTimeoutMillis = idleTimeoutMillis;
            return this;
        }

        /** 1 to 65535 (default {@value #DEFAULT_ACCEPT_QUEUE}). */
        public Builder acceptQueue(int acceptQueue) {
            values.acceptQueue = acceptQueue;
            return this;
        }

        /** @throws IllegalArgumentException naming the first value out of range, the value and what is accepted */
        public MashupOptions build() {
            values.check();
            return new MashupOptions(values.copy());
        }
    }
}
