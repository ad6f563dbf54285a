package io.rc10k.stubs;

/**
 * The checks the stubs' and the hostile partner's builders share ({@link StubOptions.Builder},
 * {@link HostilePartner.Builder}): each returns the value it was given, or names the setting, the value and what
 * is accepted in an {@link IllegalArgumentException}.
 */
final class Limits {
    private Limits() {
    }

    /** The address to bind. */
    static String host(String host) {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("host: must not be empty (e.g. 127.0.0.1 or 0.0.0.0)");
        }
        return host;
    }

    /** A port to listen on; 0 picks an ephemeral one. */
    static int port(int port) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port: " + port + " is not a port (accepted: 0 to 65535)");
        }
        return port;
    }

    /** The listen backlog; the kernel caps it at {@code net.core.somaxconn}. */
    static int acceptQueue(int acceptQueue) {
        if (acceptQueue < 1) {
            throw new IllegalArgumentException("acceptQueue: " + acceptQueue + " < 1");
        }
        return acceptQueue;
    }

    static long idleTimeoutMillis(long idleTimeoutMillis) {
        if (idleTimeoutMillis < 1) {
            throw new IllegalArgumentException("idleTimeoutMillis: " + idleTimeoutMillis + " < 1");
        }
        return idleTimeoutMillis;
    }

    static long maxStallMillis(long maxStallMillis) {
        if (maxStallMillis < 1 || maxStallMillis > StubOptions.MAX_DELAY_MILLIS) {
            throw new IllegalArgumentException("maxStallMillis: " + maxStallMillis + " (accepted: 1 to "
                    + StubOptions.MAX_DELAY_MILLIS + ")");
        }
        return maxStallMillis;
    }
}
