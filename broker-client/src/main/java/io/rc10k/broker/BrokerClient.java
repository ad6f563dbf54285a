package io.rc10k.broker;

import io.rc10k.broker.internal.BufferBudget;
import io.rc10k.broker.internal.Http1Wire;
import io.rc10k.broker.internal.JettyWire;
import io.rc10k.broker.internal.TlsMaterial;
import io.rc10k.broker.internal.PartnerPools;
import io.rc10k.broker.internal.PartnerState;
import io.rc10k.broker.internal.RealExchange;
import io.rc10k.broker.internal.ResponseCache;
import io.rc10k.broker.internal.Wire;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.eclipse.jetty.client.AbstractConnectionPool;
import org.eclipse.jetty.client.ConnectionPool;
import org.eclipse.jetty.client.Destination;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.transport.HttpClientConnectionFactory;
import org.eclipse.jetty.client.transport.HttpClientTransportDynamic;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.client.transport.ClientConnectionFactoryOverHTTP2;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.component.ContainerLifeCycle;
import org.eclipse.jetty.util.thread.Invocable.InvocationType;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker client of the RC10K paper: it holds thousands of outbound exchanges on a few selector
 * threads — its own NIO loops for HTTP/1.1 partners, Jetty {@link HttpClient}s for h2c and https ones — with
 * a connection pool and limits per partner.
 *
 * <pre>{@code
 * BrokerClient broker = BrokerClient.builder()
 *         .partner(Partner.builder("weather", "http://127.0.0.1:9001").build())
 *         .partner(Partner.builder("hotels", "http://127.0.0.1:9002").protocol(Partner.Protocol.H2C).build())
 *         .executor(server.getThreadPool())          // share the server's pool, scheduler and buffers
 *         .scheduler(server.getScheduler())
 *         .byteBufferPool(server.getByteBufferPool())
 *         .build();
 * server.addBean(broker);                            // starts and stops with the server
 * broker.fanOut(Duration.ofSeconds(1)).add(broker.newExchange("weather").path("weather?city=Paris")).start();
 * }</pre>
 *
 * <p>Threading: loops, selectors, I/O and listener callbacks all run on the executor (HTTP/1.1 answers and
 * their callbacks on the loop that read them, h2c ones on the thread that parsed their frames: never block
 * there); deadlines on the
 * scheduler. Given an executor, scheduler and buffer pool, the client creates none of its own and
 * does not manage their lifecycle; without them it creates a pool named {@code broker} and a
 * scheduler named {@code broker-scheduler}, which it starts and stops. Thread-safe once started.</p>
 */
public final class BrokerClient extends ContainerLifeCycle {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerClient.class);

    private final Map<String, Partner> partners;
    private final Map<String, PartnerState> states = new LinkedHashMap<>();
    private final Executor injectedExecutor;
    private final Scheduler injectedScheduler;
    private final ByteBufferPool injectedBuffers;
    private final int selectors;
    private final BufferBudget buffers;
    /** Exchanges started on their own, in flight: a stop cancels them. A fan-out's are kept by {@link #fanOuts}. */
    private final Set<RealExchange> alone = ConcurrentHashMap.newKeySet();
    private final RealExchange.StopList aloneList = new RealExchange.StopList() {
        @Override
        public void begun(RealExchange exchange) {
            alone.add(exchange);
        }

        @Override
        public void ended(RealExchange exchange) {
            alone.remove(exchange);
        }
    };
    /** Headers a caller may not set: they would redirect or re-frame the request. */
    private static final Set<String> REFUSED_HEADERS = Set.of("host", "content-length", "transfer-encoding",
            "connection", "upgrade", "te", "trailer", "keep-alive", "expect", "proxy-authorization",
            "proxy-authenticate", "proxy-connection");
    /**
     * True for a request header a caller may not set on a call: hop-by-hop ({@code Connection},
     * {@code Upgrade}, {@code Proxy-*}, …) or the client's own ({@code Host}, {@code Content-Length}, …).
     * The one rule: the broker refuses such headers, and mashup definitions may not forward them.
     */
    static void checkMethod(String method) {
        if (!isToken(method)) {
            throw new IllegalArgumentException("method: \"" + method + "\" (accepted: GET, HEAD, POST, …)");
        }
    }

    static void checkHeader(String name) {
        if (name == null || isRefusedHeader(name)) {
            throw new IllegalArgumentException("header \"" + name + "\" may not be set by a caller: it is hop-by-hop "
                    + "or set by the client");
        }
    }

    public static boolean isRefusedHeader(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return REFUSED_HEADERS.contains(lower) || lower.startsWith("proxy-");
    }

    /** One to twenty ASCII letters: every method a partner call may use. */
    private static boolean isToken(String method) {
        if (method == null || method.isEmpty() || method.length() > 20) {
            return false;
        }
        for (int i = 0; i < method.length(); i++) {
            char c = method.charAt(i);
            if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z')) {
                return false;
            }
        }
        return true;
    }

    private HttpClient http;
    private Scheduler scheduler;
    private Executor executor;
    private FanOuts fanOuts;
    /** HTTP/1.1 partners' calls. */
    private Http1Wire http1;
    /** h2c partners' calls, over {@link #h2cHttp}. */
    private Wire h2c;
    /**
     * The client h2c partners are called on, null when no partner is h2c. Non-blocking: an answer is parsed and
     * completed on the thread that read it (a selector, or the thread it handed selection to), as the HTTP/1.1
     * loops do, instead of being handed to another pool thread per stream.
     */
    private HttpClient h2cHttp;
    /** HTTP/1.1 partners' calls over Jetty's client instead of the loops ({@link Builder#jettyForHttp1}); else null. */
    private Wire jettyHttp1;
    /** https partners' calls, by partner name: over Jetty's client, h2 or HTTP/1.1 as each partner says. */
    private Map<String, Wire> secureWires = Map.of();
    /** The client each https partner is called on, by partner name: for its connection counts. */
    private Map<String, HttpClient> secureClients = Map.of();
    /** The clients of https partners with TLS settings of their own, beans of this one while it runs. */
    private List<HttpClient> ownTlsClients = List.of();
    private final boolean http1OverJetty;
    private final boolean anyH2c;

    private BrokerClient(Builder b) {
        this.partners = Map.copyOf(b.partners);
        this.buffers = new BufferBudget(b.maxBufferedBytes > 0 ? b.maxBufferedBytes : defaultMaxBufferedBytes());
        b.partners.values().forEach(p -> states.put(p.name(), new PartnerState(p, buffers)));
        this.injectedExecutor = b.executor;
        this.injectedScheduler = b.scheduler;
        this.injectedBuffers = b.byteBufferPool;
        this.selectors = b.selectors;
        this.http1OverJetty = b.http1OverJetty;
        this.anyH2c = partners.values().stream().anyMatch(p -> !p.secure() && p.protocol() == Partner.Protocol.H2C);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A quarter of the heap the JVM may grow to: what partners' bodies in transit may hold together. */
    static long defaultMaxBufferedBytes() {
        return Math.max(1 << 20, Runtime.getRuntime().maxMemory() / 4);
    }

    /** Bytes of response bodies being received now, by every partner's calls together. */
    public long bufferedBytes() {
        return buffers.used();
    }

    /** The bound of {@link #bufferedBytes()} ({@link Builder#maxBufferedBytes}). */
    public long maxBufferedBytes() {
        return buffers.maxBytes();
    }

    @Override
    protected void doStart() throws Exception {
        Executor executor = injectedExecutor;
        if (executor == null) {
            QueuedThreadPool pool = new QueuedThreadPool(200, 4);
            pool.setName("broker");
            executor = pool;
            addBean(pool, true);
        }
        scheduler = injectedScheduler;
        if (scheduler == null) {
            scheduler = new ScheduledExecutorScheduler("broker-scheduler", false);
            addBean(scheduler, true);
        }
        ByteBufferPool buffers = injectedBuffers != null ? injectedBuffers : new ArrayByteBufferPool();

        http = newHttpClient("broker-client", executor, scheduler, buffers,
                TlsMaterial.sslContextFactory("broker-client", Partner.Tls.DEFAULT), InvocationType.BLOCKING);
        addBean(http, true);
        if (anyH2c) {
            h2cHttp = newHttpClient("broker-client-h2c", executor, scheduler, buffers,
                    TlsMaterial.sslContextFactory("broker-client-h2c", Partner.Tls.DEFAULT), InvocationType.NON_BLOCKING);
            addBean(h2cHttp, true);
        }
        // https partners with settings of their own (a CA file, a client certificate) get a client per settings.
        Map<Partner.Tls, HttpClient> tlsClients = new HashMap<>();
        Map<String, Wire> secure = new HashMap<>();
        Map<String, HttpClient> clients = new HashMap<>();
        for (Partner partner : partners.values()) {
            if (!partner.secure()) {
                continue;
            }
            if (!partner.tls().verifyHostname()) {
                LOG.warn("partner {}: TLS host name verification is OFF — any trusted certificate is accepted "
                        + "for {}; for tests only", partner.name(), partner.baseUri().getHost());
            }
            HttpClient client = partner.tls().equals(Partner.Tls.DEFAULT) ? http : tlsClients.get(partner.tls());
            if (client == null) {
                client = newHttpClient("broker-client-tls-" + (tlsClients.size() + 1), executor, scheduler, buffers,
                        TlsMaterial.sslContextFactory(partner.name(), partner.tls()), InvocationType.BLOCKING);
                tlsClients.put(partner.tls(), client);
                addBean(client, true);
            }
            clients.put(partner.name(), client);
            secure.put(partner.name(), new JettyWire(client,
                    partner.protocol().multiplexed() ? HttpVersion.HTTP_2 : HttpVersion.HTTP_1_1));
        }
        secureWires = Map.copyOf(secure);
        secureClients = Map.copyOf(clients);
        ownTlsClients = List.copyOf(tlsClients.values());
        http1 = new Http1Wire(partners.values(), executor, selectors > 0 ? selectors : Http1Wire.defaultLoops(executor));
        addBean(http1, true);
        h2c = h2cHttp == null ? null : new JettyWire(h2cHttp, HttpVersion.HTTP_2);
        jettyHttp1 = http1OverJetty ? new JettyWire(http, HttpVersion.HTTP_1_1) : null;
        this.executor = executor;
        fanOuts = new FanOuts(scheduler, executor);
        super.doStart();
        if (injectedExecutor == null) {
            LOG.info("broker client runs on a pool of its own ({}); pass an executor to share one", executor);
        }
    }

    /**
     * One of Jetty's clients on the shared pool, scheduler and buffers: HTTP/1.1, h2c, and over TLS h2 or
     * HTTP/1.1 by ALPN, with {@code tls} for every https partner it calls; {@code invocation} says where answers
     * are handled: {@code BLOCKING} on a pool thread, {@code NON_BLOCKING} on the thread that parsed them.
     */
    private HttpClient newHttpClient(String name, Executor executor, Scheduler scheduler, ByteBufferPool buffers,
            SslContextFactory.Client tls, InvocationType invocation) {
        ClientConnector connector = new ClientConnector();
        connector.setExecutor(executor);
        connector.setScheduler(scheduler);
        connector.setByteBufferPool(buffers);
        connector.setSelectors(Math.max(1, selectors));
        connector.setConnectTimeout(shortestConnectTimeout());
        connector.setSslContextFactory(tls);
        HTTP2Client h2 = new HTTP2Client(connector);
        HttpClientTransportDynamic transport = new HttpClientTransportDynamic(connector,
                HttpClientConnectionFactory.HTTP11, new ClientConnectionFactoryOverHTTP2.HTTP2(h2));
        transport.setConnectionPoolFactory(new PartnerPools(partners));
        transport.setInvocationType(invocation);
        HttpClient client = new HttpClient(transport);
        client.setExecutor(executor);
        client.setScheduler(scheduler);
        client.setByteBufferPool(buffers);
        client.setSslContextFactory(tls);
        client.setName(name);
        // Admission per partner (PartnerState) bounds the queue; Jetty's per-destination cap must not cut in first.
        client.setMaxRequestsQueuedPerDestination(Integer.MAX_VALUE);
        client.setMaxConnectionsPerDestination(Integer.MAX_VALUE);
        client.setFollowRedirects(false);
        client.setStrictEventOrdering(false);
        client.setUserAgentField(null);
        // Never keep cookies: a Set-Cookie one caller's call receives must not ride on another caller's calls.
        client.setHttpCookieStore(new HttpCookieStore.Empty());
        return client;
    }

    /** Jetty's connect timeout is client-wide; the per-partner call timeout still bounds each exchange. */
    private Duration shortestConnectTimeout() {
        return partners.values().stream().map(Partner::connectTimeout).min(Duration::compareTo)
                .orElse(Partner.DEFAULT_CONNECT_TIMEOUT);
    }

    /**
     * Ends every exchange in flight as CANCELLED before the HTTP client stops, so each caller gets its
     * one outcome (and no retry starts on a stopping client); then stops what the client owns.
     */
    @Override
    protected void doStop() throws Exception {
        List.copyOf(alone).forEach(RealExchange::cancel);
        if (fanOuts != null) {
            fanOuts.cancelAll();
            fanOuts.destroy();
        }
        super.doStop();
        if (http != null) {
            removeBean(http);
        }
        if (h2cHttp != null) {
            removeBean(h2cHttp);
        }
        ownTlsClients.forEach(this::removeBean);
        if (http1 != null) {
            removeBean(http1);
        }
        for (Object bean : List.copyOf(getBeans())) {
            if (bean instanceof QueuedThreadPool || bean instanceof ScheduledExecutorScheduler) {
                removeBean(bean);
            }
        }
    }

    /*
     * Starts one exchange now: what ExchangeBuilder.start() runs, and a short form for this package's
     * tests. Callers elsewhere build an exchange with newExchange(partner), inert until started.
     */
    Exchange exchange(String partner, String method, String pathAndQuery, ExchangeListener listener) {
        return create(partner, method, pathAndQuery, null, null, listener, CallOptions.NONE, true).start();
    }

    Exchange exchange(String partner, String method, String pathAndQuery, HttpFields headers,
            ExchangeListener listener) {
        return create(partner, method, pathAndQuery, headers, null, listener, CallOptions.NONE, true).start();
    }

    Exchange exchange(String partner, String method, String pathAndQuery, HttpFields headers,
            ExchangeListener listener, CallOptions options) {
        return create(partner, method, pathAndQuery, headers, null, listener, options, true).start();
    }

    Exchange exchange(String partner, String method, String pathAndQuery, HttpFields headers, byte[] body,
            ExchangeListener listener, CallOptions options) {
        return create(partner, method, pathAndQuery, headers, body, listener, options, true).start();
    }

    /** A fan-out to add calls to; nothing starts until {@link FanOut#start()}. */
    public FanOut fanOut(Duration deadline) {
        requireStarted();
        return new FanOut(this, fanOuts, deadline);
    }

    /**
     * A new exchange with {@code partner}, not started: set its path, headers, listener and options,
     * each checked as it is set, then {@link ExchangeBuilder#start()} it or add it to a {@link FanOut}.
     *
     * @throws IllegalArgumentException for a partner this client does not know (the message lists them)
     */
    public ExchangeBuilder newExchange(String partner) {
        if (!states.containsKey(partner)) {
            throw unknownPartner(partner);
        }
        return new ExchangeBuilder(this, partner);
    }

    IllegalArgumentException unknownPartner(String partner) {
        return new IllegalArgumentException("unknown partner \"" + partner + "\" (known: "
                + String.join(", ", states.keySet()) + ")");
    }

    /**
     * An inert exchange: checked, resolved, not started.
     *
     * @param alone started on its own, so this client keeps it for a stop to cancel; false for a fan-out's
     *              call, which its fan-out keeps
     */
    RealExchange create(String partnerName, String method, String pathAndQuery, HttpFields headers, byte[] body,
            ExchangeListener listener, CallOptions options, boolean alone) {
        requireStarted();
        PartnerState state = states.get(partnerName);
        if (state == null) {
            throw unknownPartner(partnerName);
        }
        checkMethod(method);
        if (headers != null) {
            for (HttpField field : headers) {
                checkHeader(field.getName());
            }
        }
        URI uri = resolve(state, pathAndQuery);
        String upper = method.toUpperCase(Locale.ROOT);
        boolean read = upper.equals("GET") || upper.equals("HEAD");
        if (options.hedging() != null && !read) {
            throw new IllegalArgumentException("method " + upper + " cannot be hedged (accepted: GET, HEAD): a second "
                    + "attempt would repeat its effect");
        }
        if (options.caching() != null && !read) {
            throw new IllegalArgumentException("method " + upper + " cannot be cached (accepted: GET, HEAD)");
        }
        if (body != null && read) {
            throw new IllegalArgumentException("method " + upper + " carries no body (accepted with a body: POST, "
                    + "PUT, PATCH, …)");
        }
        ResponseCache.Key key = options.caching() == null ? null : ResponseCache.key(upper, uri, headers);
        Partner target = state.partner();
        HttpFields sent = target.headers().size() == 0 ? headers : withPartnerHeaders(headers, target.headers());
        Wire wire = target.secure() ? secureWires.get(target.name()) : target.protocol() == Partner.Protocol.H2C
                ? h2c : jettyHttp1 != null ? jettyHttp1 : http1;
        return new RealExchange(wire, scheduler, executor, state, upper, uri,
                sent, body, listener, alone ? aloneList : RealExchange.StopList.NONE, options.hedging(),
                options.caching(), key, options.timeout());
    }

    /** The call's headers, then the partner's own over any of the same name. */
    private static HttpFields withPartnerHeaders(HttpFields call, HttpFields partner) {
        HttpFields.Mutable merged = HttpFields.build((call == null ? 0 : call.size()) + partner.size());
        if (call != null) {
            merged.add(call);
        }
        partner.forEach(merged::put);
        return merged;
    }

    /**
     * The URI a call to {@code partner} with {@code pathAndQuery} would reach; throws
     * {@link IllegalArgumentException} (the message says why) for a call the broker would refuse, so a
     * caller can check its calls before it commits to anything.
     */
    public URI resolve(String partner, String pathAndQuery) {
        PartnerState state = states.get(partner);
        if (state == null) {
            throw unknownPartner(partner);
        }
        return resolve(state, pathAndQuery);
    }

    /** Resolves and checks a call path once: a path that passed before is taken from the partner's memory. */
    private static URI resolve(PartnerState state, String pathAndQuery) {
        URI uri = state.resolvedBefore(pathAndQuery);
        if (uri == null) {
            uri = resolve(state.partner(), pathAndQuery);
            state.remember(pathAndQuery, uri);
        }
        return uri;
    }

    /**
     * Resolves {@code pathAndQuery} under the partner's base path. A leading {@code /} is relative to
     * the base path too; anything that would change scheme, host or port is refused.
     */
    static URI resolve(Partner partner, String pathAndQuery) {
        String relative = pathAndQuery.startsWith("/") ? pathAndQuery.substring(1) : pathAndQuery;
        URI base = partner.baseUri();
        refuseDotSegments(partner, pathAndQuery, relative);
        URI uri;
        try {
            URI reference = new URI(relative);
            if (reference.getScheme() != null || reference.getRawAuthority() != null) {
                throw new IllegalArgumentException("call to " + partner.name() + ": \"" + pathAndQuery
                        + "\" names a scheme or host; calls are paths under " + base);
            }
            uri = base.resolve(reference);
        } catch (URISyntaxException e) {
            throw notPercentEncoded(partner, pathAndQuery, e);
        }
        if (!base.getRawAuthority().equals(uri.getRawAuthority()) || !uri.getRawPath().startsWith(base.getRawPath())) {
            throw new IllegalArgumentException("call to " + partner.name() + ": \"" + pathAndQuery
                    + "\" leaves the partner's base URI " + base);
        }
        return uri;
    }

    private static IllegalArgumentException notPercentEncoded(Partner partner, String pathAndQuery,
            URISyntaxException e) {
        return new IllegalArgumentException("call to " + partner.name() + ": \"" + pathAndQuery
                + "\" is not a percent-encoded path and query (" + e.getReason() + ")");
    }

    /**
     * Refuses path segments that some partner servers would treat as {@code .}, {@code ..} or a
     * separator once decoded: {@code %2e%2e}, {@code ..;}, {@code %2F}, {@code %5C}, {@code \}.
     */
    private static void refuseDotSegments(Partner partner, String pathAndQuery, String relative) {
        int query = relative.indexOf('?');
        int end = query < 0 ? relative.length() : query;
        int start = 0;
        while (start <= end) {
            int slash = relative.indexOf('/', start);
            int segmentEnd = slash < 0 || slash > end ? end : slash;
            if (unsafeSegment(relative, start, segmentEnd)) {
                throw new IllegalArgumentException("call to " + partner.name() + ": \"" + pathAndQuery
                        + "\" has a dot, separator or parameter segment that could leave the base path");
            }
            start = segmentEnd + 1;
        }
    }

    /** A parameter, a backslash or an encoded separator anywhere, or a segment of one or two (encoded) dots. */
    private static boolean unsafeSegment(String s, int from, int to) {
        int dots = 0;
        boolean onlyDots = true;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c == ';' || c == '\\') {
                return true;
            }
            if (c == '%' && i + 2 < to) {
                char hi = s.charAt(i + 1);
                char lo = Character.toLowerCase(s.charAt(i + 2));
                if (hi == '2' && lo == 'f' || hi == '5' && lo == 'c') {
                    return true;
                }
                if (hi == '2' && lo == 'e') {
                    dots++;
                    i += 2;
                    continue;
                }
            }
            if (c == '.') {
                dots++;
            } else {
                onlyDots = false;
            }
        }
        return onlyDots && (dots == 1 || dots == 2);
    }

    private void requireStarted() {
        if (!isStarted()) {
            throw new IllegalStateException("broker client is not started (state " + getState() + ")");
        }
    }

    public Partner partner(String name) {
        PartnerState state = states.get(name);
        return state == null ? null : state.partner();
    }

    public Collection<Partner> partners() {
        return partners.values();
    }

    /** Exchanges admitted and not yet ended, over every partner. */
    public long exchangesInFlight() {
        long sum = 0;
        for (PartnerState state : states.values()) {
            sum += state.inFlight();
        }
        return sum;
    }

    /** Fan-outs started and not yet completed. */
    int fanOutsInFlight() {
        return fanOuts.size();
    }

    public PartnerStats stats(String partnerName) {
        PartnerState state = states.get(partnerName);
        if (state == null) {
            throw unknownPartner(partnerName);
        }
        int open = 0;
        int active = 0;
        int idle = 0;
        Partner partner = state.partner();
        HttpClient client = partner.secure() ? secureClients.get(partnerName)
                : partner.protocol() == Partner.Protocol.H2C ? h2cHttp : http;
        if (http1 != null && !http1OverJetty && !partner.secure() && partner.protocol() == Partner.Protocol.HTTP_1_1) {
            int[] counts = http1.connections(partnerName);
            open = counts[0];
            active = counts[1];
            idle = counts[2];
        } else if (client != null) {
            for (Destination destination : client.getDestinations()) {
                if (partnerName.equals(destination.getOrigin().getTag())) {
                    ConnectionPool pool = destination.getConnectionPool();
                    if (pool instanceof AbstractConnectionPool counted) {
                        open += counted.getConnectionCount();
                        active += counted.getActiveConnectionCount();
                        idle += counted.getIdleConnectionCount();
                    }
                }
            }
        }
        List<PartnerStats.Host> hosts = state.hosts().all().stream()
                .map(h -> new PartnerStats.Host(h.label(), h.inFlight(), h.ejected(), h.ejections())).toList();
        return new PartnerStats(partnerName, state.inFlight(), open, active, idle, state.outcomes(),
                state.breakerState(), hosts);
    }

    /**
     * Threads the client keeps from its executor for I/O while it runs: its HTTP/1.1 loops, the selectors of
     * Jetty's client for https partners, and as many again for h2c when a partner is h2c. Known before start
     * when the executor is injected.
     */
    public int ioThreads() {
        int loops = selectors > 0 ? selectors : Http1Wire.defaultLoops(executor());
        return Math.max(1, selectors) * (anyH2c ? 2 : 1) + loops;
    }

    /**
     * True when called on one of the client's HTTP/1.1 loops, where answers are read and their callbacks
     * run. Whatever runs there holds up every answer that loop reads: a server may run short non-blocking
     * work on it (resuming an inbound connection) instead of waking a thread for that work, never more.
     */
    public boolean isLoopThread() {
        Http1Wire wire = http1;
        return wire != null && wire.isLoopThread();
    }

    /** The executor everything runs on (the injected one, or the client's own). */
    public Executor executor() {
        return http == null ? injectedExecutor : http.getExecutor();
    }

    /** The underlying Jetty client (https partners), for this package's tests to inspect. */
    HttpClient httpClient() {
        return http;
    }

    public static final class Builder {
        private final Map<String, Partner> partners = new LinkedHashMap<>();
        private Executor executor;
        private Scheduler scheduler;
        private ByteBufferPool byteBufferPool;
        /** 0: the defaults (one Jetty selector; one HTTP/1.1 loop per core, at most 8). */
        private int selectors;
        /** 0: a quarter of the maximum heap. */
        private long maxBufferedBytes;
        private boolean http1OverJetty;

        private Builder() {
        }

        public Builder partner(Partner partner) {
            if (partners.putIfAbsent(partner.name(), partner) != null) {
                throw new IllegalArgumentException("partner \"" + partner.name() + "\" is defined twice");
            }
            return this;
        }

        public Builder partners(Collection<Partner> partners) {
            partners.forEach(this::partner);
            return this;
        }

        /** The pool to run selectors, I/O and callbacks on; not started or stopped by the client. */
        public Builder executor(Executor executor) {
            this.executor = executor;
            return this;
        }

        /** The scheduler for timeouts and deadlines; not started or stopped by the client. */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = scheduler;
            return this;
        }

        public Builder byteBufferPool(ByteBufferPool byteBufferPool) {
            this.byteBufferPool = byteBufferPool;
            return this;
        }

        /**
         * Selector threads taken from the executor, each holding thousands of connections: this many
         * HTTP/1.1 loops and as many Jetty selectors for https partners and again for h2c ones (default: one
         * Jetty selector each, and one loop per core, at most 8 and at most one per 16 threads of the pool).
         */
        public Builder selectors(int selectors) {
            if (selectors < 1) {
                throw new IllegalArgumentException("selectors: " + selectors + " < 1");
            }
            this.selectors = selectors;
            return this;
        }

        /**
         * The most bytes of response bodies held at once while they are received, by every partner's calls
         * together (default: a quarter of the maximum heap). A call whose body would pass it ends
         * {@link Outcome.Kind#MEMORY_BUDGET}. Bodies are counted as they arrive, never by their declared
         * length; a body that became an {@link Outcome} no longer counts.
         */
        public Builder maxBufferedBytes(long maxBufferedBytes) {
            if (maxBufferedBytes < 1) {
                throw new IllegalArgumentException("maxBufferedBytes: " + maxBufferedBytes + " (accepted: >= 1)");
            }
            this.maxBufferedBytes = maxBufferedBytes;
            return this;
        }

        /**
         * HTTP/1.1 partners are called over Jetty's {@link HttpClient}, as h2c ones are, instead of the
         * client's own loops: more CPU per call, the same outcomes (where a misbehaving partner's outcome
         * differs, docs/results/hostile-partners.md says why). For comparing the two, not for production.
         */
        public Builder jettyForHttp1() {
            this.http1OverJetty = true;
            return this;
        }

        public BrokerClient build() {
            return new BrokerClient(this);
        }
    }
}
