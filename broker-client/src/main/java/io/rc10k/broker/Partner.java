package io.rc10k.broker;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.eclipse.jetty.http.HttpFields;

/**
 * One partner service and the limits that protect it and us. Immutable; built and validated by
 * {@link #builder(String, String)}. Limits apply to this partner alone: each partner has its own
 * connection pool, even when several partners share a host and port.
 *
 * <pre>{@code
 * Partner weather = Partner.builder("weather", "http://127.0.0.1:9001")
 *         .maxConnections(200)
 *         .callTimeout(Duration.ofSeconds(2))
 *         .build();
 * }</pre>
 */
public final class Partner {
    public static final int DEFAULT_MAX_CONNECTIONS = 256;
    public static final int DEFAULT_MAX_QUEUED = 1024;
    public static final int DEFAULT_MAX_STREAMS = 128;
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);
    /** The longest {@link #idleTimeout()} accepted: a day. */
    public static final Duration MAX_IDLE_TIMEOUT = Duration.ofDays(1);
    public static final long DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
    public static final int DEFAULT_CACHE_MAX_ENTRIES = 1_000;
    public static final long DEFAULT_CACHE_MAX_BYTES = 16L * 1024 * 1024;
    public static final int DEFAULT_RETRIES = 1;

    /** Header values among them may be credentials, so they leave this class only for the wire. */
    private final PartnerValues values;

    private Partner(PartnerValues values) {
        this.values = values;
    }

    /** Answers the partner's response cache holds at most (for calls with {@link Caching}). */
    public int cacheMaxEntries() {
        return values.cacheMaxEntries();
    }

    /** Body bytes the partner's response cache holds at most (for calls with {@link Caching}). */
    public long cacheMaxBytes() {
        return values.cacheMaxBytes();
    }

    /**
     * @param name    a short identifier (letters, digits, {@code _}, {@code -}); used in metrics
     * @param baseUri {@code http://host:port} or {@code https://host:port}, with an optional base path; calls
     *                resolve their path against it
     */
    public static Builder builder(String name, String baseUri) {
        return new Builder(name, baseUri);
    }

    public String name() {
        return values.name();
    }

    /** Scheme, host, port and base path; never taken from an inbound request. */
    public URI baseUri() {
        return values.baseUri();
    }

    /**
     * Every host the partner is served from, the first being {@link #baseUri()}: one scheme and base path,
     * each its own host and port, with its own pool of up to {@link #maxConnections()} connections.
     */
    public List<URI> baseUris() {
        return values.baseUris();
    }

    public Balancing balancing() {
        return values.balancing();
    }

    public Ejection ejection() {
        return values.ejection();
    }

    /** HTTP/1.1, or HTTP/2: {@link Protocol#H2C} for an {@code http} partner, {@link Protocol#H2} for an https one. */
    public Protocol protocol() {
        return values.protocol();
    }

    /** Whether calls go over TLS: an {@code https} base URI. */
    public boolean secure() {
        return values.secure();
    }

    /** The names of the headers sent on every call ({@link Builder#header}); their values are never shown. */
    public List<String> headerNames() {
        return values.headerNames();
    }

    /** The headers themselves, for the broker to write: values may be credentials. */
    HttpFields headers() {
        return values.headers();
    }

    /** How the certificates of an {@code https} partner are checked; {@link PartnerTls#DEFAULT} for an {@code http} one. */
    public PartnerTls tls() {
        return values.tls();
    }

    /** Connections open to this partner at most, in use or idle. */
    public int maxConnections() {
        return values.maxConnections();
    }

    /** Exchanges that may wait for a connection (or an HTTP/2 stream) beyond those being served; more end REJECTED at once. */
    public int maxQueued() {
        return values.maxQueued();
    }

    /** HTTP/2 only: exchanges multiplexed on one connection at most (the partner's own SETTINGS may lower it). */
    public int maxStreamsPerConnection() {
        return values.maxStreamsPerConnection();
    }

    /** Exchanges admitted at once: those a full pool serves plus those allowed to queue. */
    public int capacity() {
        long served = (long) maxConnections() * (protocol().multiplexed() ? maxStreamsPerConnection() : 1);
        return (int) Math.min(Integer.MAX_VALUE, served + maxQueued());
    }

    public Duration connectTimeout() {
        return values.connectTimeout();
    }

    /** The whole exchange, retries included: from the call until the response body is complete. */
    public Duration callTimeout() {
        return values.callTimeout();
    }

    /**
     * How long a kept-alive connection to the partner may stay idle before the broker closes it; keep it below the
     * partner's own keep-alive timeout, so that the broker never sends on a connection the partner is closing. It
     * never cuts a call short: while a call is on a connection, only the call's timeout bounds it. Exact per
     * partner on the loops (HTTP/1.1, and h2c, where a connection with a stream open is never idle); https
     * partners share Jetty's client-wide idle timeout, the shortest of theirs but never below their longest
     * connect timeout nor any HTTP/2 partner's call timeout.
     */
    public Duration idleTimeout() {
        return values.idleTimeout();
    }

    /** The largest response body accepted; a larger one ends the exchange TOO_LARGE, never buffered whole. */
    public long maxResponseBytes() {
        return values.maxResponseBytes();
    }

    /**
     * Extra attempts after a failure: a connect failure is always retryable (nothing was sent); a
     * failure after the request may have reached the partner is retried only for idempotent methods.
     */
    public int retries() {
        return values.retries();
    }

    public CircuitBreakerSettings circuitBreaker() {
        return values.circuitBreaker();
    }

    @Override
    public String toString() {
        return values.toString();
    }

    public static final class Builder {
        private final String name;
        private final List<URI> baseUris = new ArrayList<>();
        private Balancing balancing = Balancing.LEAST_IN_FLIGHT;
        private Ejection ejection = Ejection.DEFAULT;
        private Protocol protocol = Protocol.HTTP_1_1;
        private PartnerTls tls = PartnerTls.DEFAULT;
        private final HttpFields.Mutable headers = HttpFields.build();
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private int maxQueued = DEFAULT_MAX_QUEUED;
        private int maxStreamsPerConnection = DEFAULT_MAX_STREAMS;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration callTimeout = DEFAULT_CALL_TIMEOUT;
        private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
        private long maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES;
        private int cacheMaxEntries = DEFAULT_CACHE_MAX_ENTRIES;
        private long cacheMaxBytes = DEFAULT_CACHE_MAX_BYTES;
        private int retries = DEFAULT_RETRIES;
        private CircuitBreakerSettings circuitBreaker = CircuitBreakerSettings.DEFAULT;

        private Builder(String name, String baseUri) {
            this.name = PartnerChecks.name(name);
            this.baseUris.add(BaseUris.parse(name + ".baseUri", baseUri));
        }

        /**
         * Serve the partner from these hosts instead, the first being its {@link Partner#baseUri()}: each call
         * goes to one of them ({@link #balancing}), a retry or hedge to another when it can, and a host that
         * keeps failing is ejected for a while ({@link #ejection}). They share the scheme and base path.
         */
        public Builder hosts(List<String> baseUris) {
            List<URI> parsed = BaseUris.parseAll(name, baseUris);
            this.baseUris.clear();
            this.baseUris.addAll(parsed);
            return this;
        }

        public Builder balancing(Balancing balancing) {
            this.balancing = Objects.requireNonNull(balancing, "balancing");
            return this;
        }

        public Builder ejection(Ejection ejection) {
            this.ejection = Objects.requireNonNull(ejection, "ejection");
            return this;
        }

        /**
         * A header sent on every call to this partner — an API key, a client id — over whatever the call
         * itself carries (a forwarded header of the same name is replaced). The value is never logged or shown:
         * {@link Partner#toString()} and every page name the header only.
         *
         * @throws IllegalArgumentException for a header the client sets itself or a hop-by-hop one, a second
         *                                  header of the same name, or a value with a line break
         */
        public Builder header(String name, String value) {
            PartnerChecks.header(this.name, headers, name, value);
            headers.add(name, value);
            return this;
        }

        /** How an {@code https} partner's certificate is checked and which one we show ({@link PartnerTls#DEFAULT}). */
        public Builder tls(PartnerTls tls) {
            this.tls = Objects.requireNonNull(tls, "tls");
            return this;
        }

        public Builder protocol(Protocol protocol) {
            this.protocol = Objects.requireNonNull(protocol, "protocol");
            return this;
        }

        public Builder maxConnections(int maxConnections) {
            this.maxConnections = PartnerChecks.atLeast(name, "maxConnections", maxConnections, 1);
            return this;
        }

        public Builder maxQueued(int maxQueued) {
            this.maxQueued = PartnerChecks.atLeast(name, "maxQueued", maxQueued, 0);
            return this;
        }

        public Builder maxStreamsPerConnection(int maxStreams) {
            this.maxStreamsPerConnection = PartnerChecks.atLeast(name, "maxStreamsPerConnection", maxStreams, 1);
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = PartnerChecks.positive(name, "connectTimeout", connectTimeout);
            return this;
        }

        public Builder callTimeout(Duration callTimeout) {
            this.callTimeout = PartnerChecks.positive(name, "callTimeout", callTimeout);
            return this;
        }

        public Builder idleTimeout(Duration idleTimeout) {
            this.idleTimeout = PartnerChecks.positive(name, "idleTimeout", idleTimeout, MAX_IDLE_TIMEOUT);
            return this;
        }

        public Builder maxResponseBytes(long maxResponseBytes) {
            this.maxResponseBytes = PartnerChecks.between(name, "maxResponseBytes", maxResponseBytes, 0,
                    Integer.MAX_VALUE - 8);
            return this;
        }

        public Builder cacheMaxEntries(long cacheMaxEntries) {
            this.cacheMaxEntries = (int) PartnerChecks.between(name, "cacheMaxEntries", cacheMaxEntries, 1, 1_000_000);
            return this;
        }

        public Builder cacheMaxBytes(long cacheMaxBytes) {
            this.cacheMaxBytes = PartnerChecks.between(name, "cacheMaxBytes", cacheMaxBytes, 1, 1L << 30);
            return this;
        }

        public Builder retries(int retries) {
            this.retries = (int) PartnerChecks.between(name, "retries", retries, 0, 10);
            return this;
        }

        public Builder circuitBreaker(CircuitBreakerSettings circuitBreaker) {
            this.circuitBreaker = Objects.requireNonNull(circuitBreaker, "circuitBreaker");
            return this;
        }

        public Partner build() {
            protocol = PartnerChecks.secured(name, baseUris.get(0), protocol, tls);
            return new Partner(new PartnerValues(name, List.copyOf(baseUris), balancing, ejection, protocol, tls,
                    headers.asImmutable(), maxConnections, maxQueued, maxStreamsPerConnection, connectTimeout,
                    callTimeout, idleTimeout, maxResponseBytes, retries, circuitBreaker, cacheMaxEntries,
                    cacheMaxBytes));
        }
    }
}
