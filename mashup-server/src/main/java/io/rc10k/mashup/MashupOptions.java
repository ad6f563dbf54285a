package io.rc10k.mashup;

/**
 * How one mashup server runs: where it listens, how it waits, and its bounds. Immutable.
 *
 * @param host        address to bind
 * @param port        port (0: ephemeral)
 * @param mode        async, sync or virtual
 * @param maxThreads  the shared {@code QueuedThreadPool}'s maximum
 * @param maxInFlight mashup requests admitted at once; more get 503 with Retry-After at once
 */
public record MashupOptions(String host, int port, Mode mode, int maxThreads, int maxInFlight) {
    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 8080;
    public static final int DEFAULT_MAX_THREADS = 200;
    public static final int DEFAULT_MAX_IN_FLIGHT = 10_000;

    public MashupOptions {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("--port: " + port + " (accepted: 0 to 65535)");
        }
        if (maxThreads < 8) {
            throw new IllegalArgumentException("--max-threads: " + maxThreads + " (accepted: at least 8)");
        }
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("--max-inflight: " + maxInFlight + " (accepted: at least 1)");
        }
    }

    public static MashupOptions defaults() {
        return new MashupOptions(DEFAULT_HOST, DEFAULT_PORT, Mode.ASYNC, DEFAULT_MAX_THREADS, DEFAULT_MAX_IN_FLIGHT);
    }

    public MashupOptions withPort(int port) {
        return new MashupOptions(host, port, mode, maxThreads, maxInFlight);
    }

    public MashupOptions withMode(Mode mode) {
        return new MashupOptions(host, port, mode, maxThreads, maxInFlight);
    }

    public MashupOptions withMaxThreads(int maxThreads) {
        return new MashupOptions(host, port, mode, maxThreads, maxInFlight);
    }

    public MashupOptions withMaxInFlight(int maxInFlight) {
        return new MashupOptions(host, port, mode, maxThreads, maxInFlight);
    }
}
