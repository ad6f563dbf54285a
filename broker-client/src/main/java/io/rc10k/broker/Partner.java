package io.rc10k.broker;

import io.rc10k.broker.internal.TlsMaterial;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.eclipse.jetty.http.HttpFields;
import java.util.regex.Pattern;

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
    /** How the broker speaks to a partner. */
    public enum Protocol {
        /** HTTP/1.1: one exchange per connection at a time; over TLS for an {@code https} partner. */
        HTTP_1_1,
        /** Cleartext HTTP/2 with prior knowledge: many exchanges multiplexed on each connection. */
        H2C,
        /** HTTP/2 over TLS, agreed by ALPN ({@code https} partners): multiplexed as h2c is. */
        H2;

        /**
         * Parses {@code http/1.1}, {@code h2c} or {@code h2} (any case). {@code h2} and {@code http/2}
         * name HTTP/2 whatever the scheme: h2 over TLS for an {@code https} partner, h2c for an
         * {@code http} one ({@link Builder#build()} settles it).
         */
        public static Protocol parse(String text) {
            return switch (text.toLowerCase(Locale.ROOT)) {
                case "http/1.1", "http_1_1", "h1" -> HTTP_1_1;
                case "h2c" -> H2C;
                case "h2", "http/2" -> H2;
                default -> throw new IllegalArgumentException("protocol: \"" + text + "\" (accepted: http/1.1, h2c, h2)");
            };
        }

        /** Whether exchanges share a connection (HTTP/2), so a pool holds streams as well as connections. */
        public boolean multiplexed() {
            return this != HTTP_1_1;
        }
    }

    /**
     * How an {@code https} partner's certificate is checked and which certificate we show it. The default
     * trusts what the JDK trusts, checks that the certificate is for the partner's host, and shows none;
     * TLS 1.2 and 1.3 only, with sessions resumed on new connections (the JDK's session cache). Paths are
     * read when the client starts; passwords never appear in {@link #toString()}.
     *
     * <pre>{@code
     * Partner.Tls tls = Partner.Tls.DEFAULT
     *         .withCaFile(Path.of("/etc/rc10k/partner-ca.pem"))
     *         .withClientCertificate(Path.of("/etc/rc10k/client.p12"), password);
     * }</pre>
     *
     * @param caFile             PEM certificates to trust instead of the JDK's, or null
     * @param trustStore         a PKCS#12 or JKS trust store to trust instead of the JDK's, or null
     * @param trustStorePassword its password, or null
     * @param keyStore           a PKCS#12 or JKS key store holding the client certificate to show, or null
     * @param keyStorePassword   its password (and its key's), or null
     * @param verifyHostname     false accepts a trusted certificate for any host: for tests only, logged as a warning
     */
    public record Tls(Path caFile, Path trustStore, String trustStorePassword, Path keyStore, String keyStorePassword,
            boolean verifyHostname) {
        public static final Tls DEFAULT = new Tls(null, null, null, null, null, true);

        public Tls {
            if (caFile != null && trustStore != null) {
                throw new IllegalArgumentException("tls: caFile and trustStore both given (accepted: one of them)");
            }
        }

        public Tls withCaFile(Path pem) {
            return new Tls(pem, trustStore, trustStorePassword, keyStore, keyStorePassword, verifyHostname);
        }

        public Tls withTrustStore(Path store, String password) {
            return new Tls(caFile, store, password, keyStore, keyStorePassword, verifyHostname);
        }

        public Tls withClientCertificate(Path store, String password) {
            return new Tls(caFile, trustStore, trustStorePassword, store, password, verifyHostname);
        }

        /** Accepts a trusted certificate whatever host it names. For tests only: the client logs a warning at start. */
        public Tls withoutHostnameVerification() {
            return new Tls(caFile, trustStore, trustStorePassword, keyStore, keyStorePassword, false);
        }

        @Override
        public String toString() {
            return "Tls{" + (caFile != null ? "caFile=" + caFile : trustStore != null ? "trustStore=" + trustStore
                    : "JDK trust") + (keyStore != null ? ", keyStore=" + keyStore : "")
                    + (verifyHostname ? "" : ", hostname NOT verified") + "}";
        }
    }

    public static final int DEFAULT_MAX_CONNECTIONS = 256;
    public static final int DEFAULT_MAX_QUEUED = 1024;
    public static final int DEFAULT_MAX_STREAMS = 128;
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(10);
    public static final long DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
    public static final int DEFAULT_CACHE_MAX_ENTRIES = 1_000;
    public static final long DEFAULT_CACHE_MAX_BYTES = 16L * 1024 * 1024;
    public static final int DEFAULT_RETRIES = 1;

    /**
     * When a partner's circuit breaker opens and for how long; see docs/broker-client.md.
     *
     * @param enabled             false turns the breaker off
     * @param consecutiveFailures this many failures in a row open it
     * @param failureRatio        or this share of failures over the last {@code window} calls…
     * @param minimumCalls        …once at least this many calls were seen
     * @param window              the number of recent calls the ratio is taken over
     * @param coolDown            how long it stays open before one probe may go through
     */
    public record CircuitBreakerSettings(boolean enabled, int consecutiveFailures, double failureRatio,
            int minimumCalls, int window, Duration coolDown) {
        public static final CircuitBreakerSettings DEFAULT = new CircuitBreakerSettings(true, 10, 0.5, 20, 100,
                Duration.ofSeconds(5));
        public static final CircuitBreakerSettings DISABLED = new CircuitBreakerSettings(false, 1, 1, 1, 1,
                Duration.ofSeconds(1));

        public CircuitBreakerSettings {
            if (consecutiveFailures < 1 || !(failureRatio > 0 && failureRatio <= 1) || minimumCalls < 1 || window < 1
                    || minimumCalls > window || coolDown == null || coolDown.isNegative() || coolDown.isZero()) {
                throw new IllegalArgumentException("circuitBreaker: consecutiveFailures " + consecutiveFailures
                        + ", failureRatio " + failureRatio + ", minimumCalls " + minimumCalls + ", window " + window
                        + ", coolDown " + coolDown + " (accepted: consecutiveFailures >= 1, 0 < failureRatio <= 1, "
                        + "1 <= minimumCalls <= window, coolDown > 0)");
            }
        }
    }
    /** How calls are spread over a partner's hosts ({@link Builder#hosts}). */
    public enum Balancing {
        /** To the host with the fewest calls out now (ties taken in turn): a slow host gets fewer. */
        LEAST_IN_FLIGHT,
        /** To each host in turn. */
        ROUND_ROBIN;

        /** Parses {@code least_in_flight} or {@code round_robin} (any case, {@code -} for {@code _}). */
        public static Balancing parse(String text) {
            return switch (text.toLowerCase(Locale.ROOT).replace('-', '_')) {
                case "least_in_flight" -> LEAST_IN_FLIGHT;
                case "round_robin" -> ROUND_ROBIN;
                default -> throw new IllegalArgumentException("balancing: \"" + text
                        + "\" (accepted: least_in_flight, round_robin)");
            };
        }
    }

    /**
     * Passive outlier ejection over a partner's hosts: a host whose calls fail this many times in a row
     * (as the circuit breaker counts failures) takes no calls for the cool-down, then takes them again.
     * The last host that is not ejected never is: calls always have somewhere to go.
     */
    public record Ejection(int consecutiveFailures, Duration coolDown) {
        public static final Ejection DEFAULT = new Ejection(5, Duration.ofSeconds(10));

        public Ejection {
            if (consecutiveFailures < 1 || coolDown == null || coolDown.isNegative() || coolDown.isZero()) {
                throw new IllegalArgumentException("ejection: consecutiveFailures " + consecutiveFailures
                        + ", coolDown " + coolDown + " (accepted: consecutiveFailures >= 1, coolDown > 0)");
            }
        }
    }

    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,63}");

    private final String name;
    private final URI baseUri;
    private final List<URI> baseUris;
    private final Balancing balancing;
    private final Ejection ejection;
    private final Protocol protocol;
    private final Tls tls;
    /** Sent on every call; values may be credentials, so they leave this class only for the wire. */
    private final HttpFields headers;
    private final int maxConnections;
    private final int maxQueued;
    private final int maxStreamsPerConnection;
    private final Duration connectTimeout;
    private final Duration callTimeout;
    private final long maxResponseBytes;
    private final int retries;
    private final CircuitBreakerSettings circuitBreaker;
    private final int cacheMaxEntries;
    private final long cacheMaxBytes;

    private Partner(Builder b) {
        this.name = b.name;
        this.baseUri = b.baseUris.get(0);
        this.baseUris = List.copyOf(b.baseUris);
        this.balancing = b.balancing;
        this.ejection = b.ejection;
        this.protocol = b.protocol;
        this.tls = b.tls;
        this.headers = b.headers.asImmutable();
        this.maxConnections = b.maxConnections;
        this.maxQueued = b.maxQueued;
        this.maxStreamsPerConnection = b.maxStreamsPerConnection;
        this.connectTimeout = b.connectTimeout;
        this.callTimeout = b.callTimeout;
        this.maxResponseBytes = b.maxResponseBytes;
        this.retries = b.retries;
        this.circuitBreaker = b.circuitBreaker;
        this.cacheMaxEntries = b.cacheMaxEntries;
        this.cacheMaxBytes = b.cacheMaxBytes;
    }

    /** Answers the partner's response cache holds at most (for calls with {@link Caching}). */
    public int cacheMaxEntries() {
        return cacheMaxEntries;
    }

    /** Body bytes the partner's response cache holds at most (for calls with {@link Caching}). */
    public long cacheMaxBytes() {
        return cacheMaxBytes;
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
        return name;
    }

    /** Scheme, host, port and base path; never taken from an inbound request. */
    public URI baseUri() {
        return baseUri;
    }

    /**
     * Every host the partner is served from, the first being {@link #baseUri()}: one scheme and base path,
     * each its own host and port, with its own pool of up to {@link #maxConnections()} connections.
     */
    public List<URI> baseUris() {
        return baseUris;
    }

    public Balancing balancing() {
        return balancing;
    }

    public Ejection ejection() {
        return ejection;
    }

    /** HTTP/1.1, or HTTP/2: {@link Protocol#H2C} for an {@code http} partner, {@link Protocol#H2} for an https one. */
    public Protocol protocol() {
        return protocol;
    }

    /** Whether calls go over TLS: an {@code https} base URI. */
    public boolean secure() {
        return "https".equals(baseUri.getScheme());
    }

    /** The names of the headers sent on every call ({@link Builder#header}); their values are never shown. */
    public List<String> headerNames() {
        List<String> names = new ArrayList<>();
        headers.forEach(field -> names.add(field.getName()));
        return names;
    }

    /** The headers themselves, for the broker to write: values may be credentials. */
    HttpFields headers() {
        return headers;
    }

    /** How the certificates of an {@code https} partner are checked; {@link Tls#DEFAULT} for an {@code http} one. */
    public Tls tls() {
        return tls;
    }

    /** Connections open to this partner at most, in use or idle. */
    public int maxConnections() {
        return maxConnections;
    }

    /** Exchanges that may wait for a connection (or an HTTP/2 stream) beyond those being served; more end REJECTED at once. */
    public int maxQueued() {
        return maxQueued;
    }

    /** HTTP/2 only: exchanges multiplexed on one connection at most (the partner's own SETTINGS may lower it). */
    public int maxStreamsPerConnection() {
        return maxStreamsPerConnection;
    }

    /** Exchanges admitted at once: those a full pool serves plus those allowed to queue. */
    public int capacity() {
        long served = (long) maxConnections * (protocol.multiplexed() ? maxStreamsPerConnection : 1);
        return (int) Math.min(Integer.MAX_VALUE, served + maxQueued);
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** The whole exchange, retries included: from the call until the response body is complete. */
    public Duration callTimeout() {
        return callTimeout;
    }

    /** The largest response body accepted; a larger one ends the exchange TOO_LARGE, never buffered whole. */
    public long maxResponseBytes() {
        return maxResponseBytes;
    }

    /**
     * Extra attempts after a failure: a connect failure is always retryable (nothing was sent); a
     * failure after the request may have reached the partner is retried only for idempotent methods.
     */
    public int retries() {
        return retries;
    }

    public CircuitBreakerSettings circuitBreaker() {
        return circuitBreaker;
    }

    @Override
    public String toString() {
        return "Partner{" + name + " " + (baseUris.size() == 1 ? baseUri : baseUris + " " + balancing) + " " + protocol + (secure() ? " " + tls : "")
                + (headers.size() == 0 ? "" : ", headers=" + headerNames() + " (values hidden)") + ", maxConnections=" + maxConnections
                + ", maxQueued=" + maxQueued + ", connectTimeout=" + connectTimeout.toMillis() + "ms, callTimeout="
                + callTimeout.toMillis() + "ms, maxResponseBytes=" + maxResponseBytes + ", retries=" + retries + "}";
    }

    public static final class Builder {
        private final String name;
        private final List<URI> baseUris = new ArrayList<>();
        private Balancing balancing = Balancing.LEAST_IN_FLIGHT;
        private Ejection ejection = Ejection.DEFAULT;
        private Protocol protocol = Protocol.HTTP_1_1;
        private Tls tls = Tls.DEFAULT;
        private final HttpFields.Mutable headers = HttpFields.build();
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private int maxQueued = DEFAULT_MAX_QUEUED;
        private int maxStreamsPerConnection = DEFAULT_MAX_STREAMS;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration callTimeout = DEFAULT_CALL_TIMEOUT;
        private long maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES;
        private int cacheMaxEntries = DEFAULT_CACHE_MAX_ENTRIES;
        private long cacheMaxBytes = DEFAULT_CACHE_MAX_BYTES;
        private int retries = DEFAULT_RETRIES;
        private CircuitBreakerSettings circuitBreaker = CircuitBreakerSettings.DEFAULT;

        private Builder(String name, String baseUri) {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("name: \"" + name + "\" (accepted: a letter, then letters, digits,"
                        + " _ or -, at most 64)");
            }
            this.name = name;
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
            RequestRules.checkHeader(name);
            if (headers.contains(name)) {
                throw new IllegalArgumentException(this.name + ".headers." + name + ": given twice");
            }
            if (value == null || value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0 || value.indexOf('\0') >= 0) {
                // The value itself stays out of the message: it may be a credential.
                throw new IllegalArgumentException(this.name + ".headers." + name + ": the value is missing or holds "
                        + "a line break or NUL (accepted: one line of text)");
            }
            headers.add(name, value);
            return this;
        }

        /** How an {@code https} partner's certificate is checked and which one we show ({@link Tls#DEFAULT}). */
        public Builder tls(Tls tls) {
            this.tls = Objects.requireNonNull(tls, "tls");
            return this;
        }

        public Builder protocol(Protocol protocol) {
            this.protocol = Objects.requireNonNull(protocol, "protocol");
            return this;
        }

        public Builder maxConnections(int maxConnections) {
            this.maxConnections = atLeast("maxConnections", maxConnections, 1);
            return this;
        }

        public Builder maxQueued(int maxQueued) {
            this.maxQueued = atLeast("maxQueued", maxQueued, 0);
            return this;
        }

        public Builder maxStreamsPerConnection(int maxStreams) {
            this.maxStreamsPerConnection = atLeast("maxStreamsPerConnection", maxStreams, 1);
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = positive("connectTimeout", connectTimeout);
            return this;
        }

        public Builder callTimeout(Duration callTimeout) {
            this.callTimeout = positive("callTimeout", callTimeout);
            return this;
        }

        public Builder maxResponseBytes(long maxResponseBytes) {
            if (maxResponseBytes < 0 || maxResponseBytes > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException(name + ".maxResponseBytes: " + maxResponseBytes
                        + " (accepted: 0 to " + (Integer.MAX_VALUE - 8) + ")");
            }
            this.maxResponseBytes = maxResponseBytes;
            return this;
        }

        public Builder cacheMaxEntries(long cacheMaxEntries) {
            if (cacheMaxEntries < 1 || cacheMaxEntries > 1_000_000) {
                throw new IllegalArgumentException(name + ".cacheMaxEntries: " + cacheMaxEntries
                        + " (accepted: 1 to 1000000)");
            }
            this.cacheMaxEntries = (int) cacheMaxEntries;
            return this;
        }

        public Builder cacheMaxBytes(long cacheMaxBytes) {
            if (cacheMaxBytes < 1 || cacheMaxBytes > 1L << 30) {
                throw new IllegalArgumentException(name + ".cacheMaxBytes: " + cacheMaxBytes
                        + " (accepted: 1 to " + (1L << 30) + ")");
            }
            this.cacheMaxBytes = cacheMaxBytes;
            return this;
        }

        public Builder retries(int retries) {
            if (retries < 0 || retries > 10) {
                throw new IllegalArgumentException(name + ".retries: " + retries + " (accepted: 0 to 10)");
            }
            this.retries = retries;
            return this;
        }

        public Builder circuitBreaker(CircuitBreakerSettings circuitBreaker) {
            this.circuitBreaker = Objects.requireNonNull(circuitBreaker, "circuitBreaker");
            return this;
        }

        public Partner build() {
            URI baseUri = baseUris.get(0);
            boolean secure = "https".equals(baseUri.getScheme());
            if (protocol == Protocol.H2C && secure) {
                throw new IllegalArgumentException(name + ".protocol: h2c is cleartext HTTP/2 but baseUri is " + baseUri
                        + " (accepted for https: http/1.1, h2)");
            }
            if (protocol == Protocol.H2 && !secure) {
                // HTTP/2 without TLS has no ALPN to agree on it: prior knowledge, as h2c.
                protocol = Protocol.H2C;
            }
            if (!secure && !tls.equals(Tls.DEFAULT)) {
                throw new IllegalArgumentException(name + ".tls: given for " + baseUri
                        + " (accepted: only with https)");
            }
            if (secure) {
                TlsMaterial.check(name, tls);
            }
            return new Partner(this);
        }

        private int atLeast(String field, int value, int min) {
            if (value < min) {
                throw new IllegalArgumentException(name + "." + field + ": " + value + " < " + min);
            }
            return value;
        }

        private Duration positive(String field, Duration value) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + "." + field + ": " + value + " (accepted: > 0)");
            }
            return value;
        }
    }
}
