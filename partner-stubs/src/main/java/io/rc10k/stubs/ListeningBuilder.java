package io.rc10k.stubs;

/**
 * What every partner of this module listens with, the stubs ({@link StubOptions.Builder}) and the hostile partner
 * ({@link HostilePartner.Builder}) alike: the address, the listen backlog, the idle timeout and the stall cap. Each
 * setter checks its value and names the setting, the value and what is accepted in an
 * {@link IllegalArgumentException}.
 *
 * @param <B> the builder itself, which every setter returns
 */
abstract class ListeningBuilder<B extends ListeningBuilder<B>> {
    String host = StubOptions.DEFAULT_HOST;
    int acceptQueue = StubOptions.DEFAULT_ACCEPT_QUEUE;
    long idleTimeoutMillis = StubOptions.DEFAULT_IDLE_TIMEOUT_MILLIS;
    long maxStallMillis = StubOptions.DEFAULT_MAX_STALL_MILLIS;

    ListeningBuilder() {
    }

    abstract B self();

    /** The address to bind; the default is loopback ({@value StubOptions#DEFAULT_HOST}). */
    public B host(String host) {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("host: must not be empty (e.g. 127.0.0.1 or 0.0.0.0)");
        }
        this.host = host;
        return self();
    }

    /** The listen backlog; the kernel caps it at {@code net.core.somaxconn}. */
    public B acceptQueue(int acceptQueue) {
        if (acceptQueue < 1) {
            throw new IllegalArgumentException("acceptQueue: " + acceptQueue + " < 1");
        }
        this.acceptQueue = acceptQueue;
        return self();
    }

    /**
     * How long a connection may wait, idle, for its next request before the partner closes it; a request in
     * progress is bounded by its own caps.
     */
    public B idleTimeoutMillis(long idleTimeoutMillis) {
        if (idleTimeoutMillis < 1) {
            throw new IllegalArgumentException("idleTimeoutMillis: " + idleTimeoutMillis + " < 1");
        }
        this.idleTimeoutMillis = idleTimeoutMillis;
        return self();
    }

    /**
     * The stall cap: the longest a request is held — by the stubs' {@code stall} faults, or by any misbehaviour of
     * the hostile partner, stalls, trickles and holds included — before the partner closes the connection (the
     * hostile partner counts each in {@link HostilePartner#cappedConnections()}).
     */
    public B maxStallMillis(long maxStallMillis) {
        if (maxStallMillis < 1 || maxStallMillis > StubOptions.MAX_DELAY_MILLIS) {
            throw new IllegalArgumentException("maxStallMillis: " + maxStallMillis + " (accepted: 1 to "
                    + StubOptions.MAX_DELAY_MILLIS + ")");
        }
        this.maxStallMillis = maxStallMillis;
        return self();
    }

    /** {@code port}, checked: 0 (an ephemeral port) to 65535. */
    static int checkPort(int port) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port: " + port + " is not a port (accepted: 0 to 65535)");
        }
        return port;
    }
}
