package io.rc10k.mashup;

import java.net.URI;

/**
 * The values behind {@link MashupOptions}: each field starting at its default, the checks
 * {@link MashupOptions.Builder#build()} makes of them (each message names the command-line option, the value
 * and what is accepted), and their text. A builder's values are mutable and confined to it; an options object
 * holds a {@link #copy()} made at build and never changed again, reached only through its final field, so
 * the options stay immutable and safe to share between threads.
 */
final class OptionValues {
    String host = MashupOptions.DEFAULT_HOST;
    int port = MashupOptions.DEFAULT_PORT;
    Mode mode = Mode.ASYNC;
    int maxThreads = MashupOptions.DEFAULT_MAX_THREADS;
    int maxInFlight;
    int maxConnections;
    /** Null: next to the port ({@link #adminPort()}). */
    Integer adminPort;
    String adminHost = MashupOptions.DEFAULT_ADMIN_HOST;
    boolean observabilityOnAdminOnly;
    URI otlpEndpoint;
    long maxBufferedBytes;
    int acceptors = -1;
    int selectors = -1;
    int minThreads = MashupOptions.DEFAULT_MIN_THREADS;
    int reservedThreads = -1;
    int idleTimeoutMillis = MashupOptions.DEFAULT_IDLE_TIMEOUT_MILLIS;
    int acceptQueue = MashupOptions.DEFAULT_ACCEPT_QUEUE;

    /** The admin port set, or the one next to the port: {@code port + 1}, or ephemeral with port 0. */
    int adminPort() {
        return adminPort != null ? adminPort : nextTo(port);
    }

    private static int nextTo(int port) {
        return port == 0 ? 0 : port + 1;
    }

    OptionValues copy() {
        OptionValues v = new OptionValues();
        v.host = host;
        v.port = port;
        v.mode = mode;
        v.maxThreads = maxThreads;
        v.maxInFlight = maxInFlight;
        v.maxConnections = maxConnections;
        v.adminPort = adminPort;
        v.adminHost = adminHost;
        v.observabilityOnAdminOnly = observabilityOnAdminOnly;
        v.otlpEndpoint = otlpEndpoint;
        v.maxBufferedBytes = maxBufferedBytes;
        v.acceptors = acceptors;
        v.selectors = selectors;
        v.minThreads = minThreads;
        v.reservedThreads = reservedThreads;
        v.idleTimeoutMillis = idleTimeoutMillis;
        v.acceptQueue = acceptQueue;
        return v;
    }

    /** A copy for a new builder: an admin port next to the port is left to follow it; any other stays. */
    OptionValues copyFollowingPort() {
        OptionValues v = copy();
        if (adminPort() == nextTo(port)) {
            v.adminPort = null;
        }
        return v;
    }

    /** @throws IllegalArgumentException naming the first value out of range, the value and what is accepted */
    void check() {
        int admin = adminPort();
        check(port >= 0 && port <= 65_535, "--port: " + port + " (accepted: 0 to 65535)");
        check(mode != null, "--mode: null (accepted: async, sync, virtual)");
        check(maxThreads >= 8, "--max-threads: " + maxThreads + " (accepted: at least 8)");
        check(maxInFlight >= 0, "--max-inflight: " + maxInFlight + " (accepted: 0 for derived, or at least 1)");
        check(maxConnections >= 0, "--max-connections: " + maxConnections
                + " (accepted: 0 for derived, or at least 1)");
        check(admin >= -1 && admin <= 65_535, "--admin-port: " + admin + " (accepted: -1 for none, 0 to 65535)");
        check(adminHost != null && !adminHost.isBlank(), "--admin-host: \"" + adminHost
                + "\" (accepted: an address to bind, e.g. " + MashupOptions.DEFAULT_ADMIN_HOST + " or 0.0.0.0)");
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

    @Override
    public String toString() {
        return "MashupOptions[host=" + host + ", port=" + port + ", mode=" + mode.label() + ", maxThreads="
                + maxThreads + ", maxInFlight=" + maxInFlight + ", maxConnections=" + maxConnections + ", adminPort="
                + adminPort() + ", adminHost=" + adminHost + ", observabilityOnAdminOnly=" + observabilityOnAdminOnly
                + ", otlpEndpoint=" + otlpEndpoint + ", maxBufferedBytes=" + maxBufferedBytes + ", acceptors="
                + acceptors + ", selectors=" + selectors + ", minThreads=" + minThreads + ", reservedThreads="
                + reservedThreads + ", idleTimeoutMillis=" + idleTimeoutMillis + ", acceptQueue=" + acceptQueue + "]";
    }
}
