package io.rc10k.stubs;

import java.util.ArrayList;
import java.util.List;

/**
 * Immutable settings of one partner-stubs process: where it listens and how few threads it runs on.
 *
 * <pre>{@code
 * StubOptions options = StubOptions.builder()
 *         .ports(List.of(9001, 9002))
 *         .h2c(true)
 *         .build();
 * Server server = StubServer.createServer(options);
 * server.start();
 * }</pre>
 *
 * <p>Every limit is validated by {@link Builder#build()}, which names the setting, the value and what
 * would be accepted.</p>
 */
public final class StubOptions {
    /** The longest delay a request may ask for, in milliseconds (10 minutes). */
    public static final long MAX_DELAY_MILLIS = 600_000;
    /** The largest body a request may ask for with {@code bytes} (64 MiB). */
    public static final long MAX_BODY_BYTES = 64L * 1024 * 1024;

    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_MAX_STREAMS = 1024;
    public static final long DEFAULT_SEED = 42;
    public static final int DEFAULT_ACCEPT_QUEUE = 4096;
    public static final long DEFAULT_IDLE_TIMEOUT_MILLIS = 30_000;
    public static final long DEFAULT_MAX_STALL_MILLIS = 60_000;

    private final String host;
    private final List<Integer> ports;
    private final boolean h2c;
    private final int maxThreads;
    private final int maxStreams;
    private final long seed;
    private final int acceptQueue;
    private final long idleTimeoutMillis;
    private final long maxStallMillis;
    private final StubCertificate tls;
    private final StubCertificate clientAuthority;

    private StubOptions(Builder b) {
        this.host = b.host;
        this.ports = List.copyOf(b.ports);
        this.h2c = b.h2c;
        this.maxThreads = b.maxThreads > 0 ? b.maxThreads : defaultMaxThreads(ports.size());
        this.maxStreams = b.maxStreams;
        this.seed = b.seed;
        this.acceptQueue = b.acceptQueue;
        this.idleTimeoutMillis = b.idleTimeoutMillis;
        this.maxStallMillis = b.maxStallMillis;
        this.tls = b.tls;
        this.clientAuthority = b.clientAuthority;
        if (clientAuthority != null && tls == null) {
            throw new IllegalArgumentException("clientAuthority: client certificates need HTTPS (set tls too)");
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The default pool size: each port's connector takes one selector thread, and four threads are
     * left for the work the selectors hand off. Small on purpose: delays never hold a thread.
     */
    public static int defaultMaxThreads(int portCount) {
        return Math.max(8, portCount + 4);
    }

    /** The fewest pool threads that can serve {@code portCount} ports: a selector each plus two workers. */
    public static int minThreads(int portCount) {
        return portCount + 2;
    }

    public String host() {
        return host;
    }

    /** The ports to listen on; 0 means an ephemeral port chosen at start. */
    public List<Integer> ports() {
        return ports;
    }

    public boolean h2c() {
        return h2c;
    }

    public int maxThreads() {
        return maxThreads;
    }

    public int maxStreams() {
        return maxStreams;
    }

    public long seed() {
        return seed;
    }

    public int acceptQueue() {
        return acceptQueue;
    }

    public long idleTimeoutMillis() {
        return idleTimeoutMillis;
    }

    public long maxStallMillis() {
        return maxStallMillis;
    }

    /** HTTPS on every port with this certificate (HTTP/2 or HTTP/1.1 by ALPN); null for cleartext. */
    public StubCertificate tls() {
        return tls;
    }

    /** With {@link #tls()}: a client must present this certificate; null lets any client in. */
    public StubCertificate clientAuthority() {
        return clientAuthority;
    }

    /** {@code https} with {@link #tls()}, else {@code http}. */
    public String scheme() {
        return tls == null ? "http" : "https";
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.host = host;
        b.ports = new ArrayList<>(ports);
        b.h2c = h2c;
        b.maxThreads = maxThreads;
        b.maxStreams = maxStreams;
        b.seed = seed;
        b.acceptQueue = acceptQueue;
        b.idleTimeoutMillis = idleTimeoutMillis;
        b.maxStallMillis = maxStallMillis;
        b.tls = tls;
        b.clientAuthority = clientAuthority;
        return b;
    }

    @Override
    public String toString() {
        return "StubOptions{host=" + host + ", ports=" + ports + ", h2c=" + h2c + ", maxThreads=" + maxThreads
                + ", maxStreams=" + maxStreams + ", seed=" + seed + ", acceptQueue=" + acceptQueue
                + ", idleTimeoutMillis=" + idleTimeoutMillis + ", maxStallMillis=" + maxStallMillis + (tls == null ? "" : ", tls=" + tls)
                + (clientAuthority == null ? "" : ", clientAuthority=" + clientAuthority) + "}";
    }

    public static final class Builder extends ListeningBuilder<Builder> {
        private List<Integer> ports = new ArrayList<>(List.of(0));
        private boolean h2c;
        private int maxThreads;
        private int maxStreams = DEFAULT_MAX_STREAMS;
        private long seed = DEFAULT_SEED;
        private StubCertificate tls;
        private StubCertificate clientAuthority;

        private Builder() {
        }

        @Override
        Builder self() {
            return this;
        }

        /**
         * Serve HTTPS with {@code certificate} on every port: TLS 1.2 or 1.3, and HTTP/2 or HTTP/1.1 as
         * the client's ALPN offer chooses (a client that offers none gets HTTP/1.1). Null: cleartext.
         */
        public Builder tls(StubCertificate certificate) {
            this.tls = certificate;
            return this;
        }

        /** With {@link #tls}: refuse a client that does not present {@code certificate}; null: no client certificate asked. */
        public Builder clientAuthority(StubCertificate certificate) {
            this.clientAuthority = certificate;
            return this;
        }

        public Builder port(int port) {
            return ports(List.of(port));
        }

        /** Ports to serve the same stubs on, in one process; 0 picks an ephemeral port. */
        public Builder ports(List<Integer> ports) {
            if (ports == null || ports.isEmpty()) {
                throw new IllegalArgumentException("ports: give at least one port (0 for an ephemeral one)");
            }
            List<Integer> seen = new ArrayList<>();
            for (int port : ports) {
                if (checkPort(port) != 0 && seen.contains(port)) {
                    throw new IllegalArgumentException("port: " + port + " is listed twice");
                }
                seen.add(port);
            }
            this.ports = seen;
            return this;
        }

        /** Also accept cleartext HTTP/2 with prior knowledge on every port, beside HTTP/1.1. */
        public Builder h2c(boolean h2c) {
            this.h2c = h2c;
            return this;
        }

        /** The thread pool's maximum; 0 (the default) means {@link #defaultMaxThreads(int)}. */
        public Builder maxThreads(int maxThreads) {
            if (maxThreads < 0) {
                throw new IllegalArgumentException("maxThreads: " + maxThreads + " < 0 (0 means the default)");
            }
            this.maxThreads = maxThreads;
            return this;
        }

        /** HTTP/2 streams a client may open at once on one connection. */
        public Builder maxStreams(int maxStreams) {
            if (maxStreams < 1 || maxStreams > 65_536) {
                throw new IllegalArgumentException("maxStreams: " + maxStreams + " (accepted: 1 to 65536)");
            }
            this.maxStreams = maxStreams;
            return this;
        }

        /** Seeds the delay distributions of requests that carry no {@code seed} of their own. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public StubOptions build() {
            int threads = maxThreads > 0 ? maxThreads : defaultMaxThreads(ports.size());
            int least = minThreads(ports.size());
            if (threads < least) {
                throw new IllegalArgumentException("maxThreads: " + threads + " is too few for " + ports.size()
                        + " port(s) (accepted: at least " + least + ", one selector per port plus two)");
            }
            return new StubOptions(this);
        }
    }
}
