package io.rc10k.broker.internal;

import io.rc10k.broker.Partner;
import io.rc10k.broker.PartnerTls;
import io.rc10k.broker.Protocol;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.stream.Stream;
import org.eclipse.jetty.client.AbstractConnectionPool;
import org.eclipse.jetty.client.ConnectionPool;
import org.eclipse.jetty.client.Destination;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.transport.HttpClientConnectionFactory;
import org.eclipse.jetty.client.transport.HttpClientTransportDynamic;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.client.transport.ClientConnectionFactoryOverHTTP2;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.component.ContainerLifeCycle;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.Invocable.InvocationType;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the broker reaches each partner: HTTP/1.1 partners on the broker's own loops ({@link Http1Wire}),
 * h2c ones on a Jetty {@link HttpClient} of their own whose answers complete where they are parsed (see
 * {@link #h2cClient}), https ones on another client or — for TLS settings of their own (a CA file, a client
 * certificate) — on a client per settings. Assembled in named steps when the broker starts
 * ({@link #jettyClient}, {@link #h2cClient}, {@link #tlsClients}, {@link #http1Loops}), all on the shared pool,
 * scheduler and buffers; started and stopped as one bean of the broker, its clients and loops its beans.
 *
 * <pre>{@code
 * Wires wires = new Wires(partners, executor, scheduler, buffers, selectors, false, false);
 * broker.addBean(wires, true);
 * wires.wire(partner).newCall(…);
 * }</pre>
 *
 * <p>Thread-safe: immutable once built.</p>
 */
public final class Wires extends ContainerLifeCycle {
    private static final Logger LOG = LoggerFactory.getLogger(Wires.class);

    private final Map<String, Partner> partners;
    private final Executor executor;
    private final Scheduler scheduler;
    private final ByteBufferPool buffers;
    private final int selectors;
    private final boolean http1OverJetty;
    private final boolean h2cOverJetty;
    private final HttpClient http;
    /** The client of h2c partners when they are called over Jetty's client ({@code h2cOverJetty}), else null. */
    private final HttpClient h2cHttp;
    /** By partner name, for https partners: their wire and the client it runs on. */
    private final Map<String, Wire> secureWires = new HashMap<>();
    private final Map<String, HttpClient> secureClients = new HashMap<>();
    private final Http1Wire http1;
    /** The wire of h2c partners (on the loops, or on {@link #h2cHttp}), or null when no partner is h2c. */
    private final Wire h2c;
    /** HTTP/1.1 partners' calls over Jetty's client instead of the loops, or null. */
    private final Wire jettyHttp1;

    /**
     * @param selectors      HTTP/1.1 loops and Jetty selectors, or 0 for the defaults
     * @param http1OverJetty HTTP/1.1 partners over Jetty's client instead of the loops (for comparisons)
     * @param h2cOverJetty   h2c partners over Jetty's client instead of the loops (for comparisons)
     */
    public Wires(Map<String, Partner> partners, Executor executor, Scheduler scheduler, ByteBufferPool buffers,
            int selectors, boolean http1OverJetty, boolean h2cOverJetty) throws IOException {
        this.partners = partners;
        this.executor = executor;
        this.scheduler = scheduler;
        this.buffers = buffers;
        this.selectors = selectors;
        this.http1OverJetty = http1OverJetty;
        this.h2cOverJetty = h2cOverJetty;
        this.http = jettyClient("broker-client", TlsMaterial.sslContextFactory("broker-client", PartnerTls.DEFAULT),
                InvocationType.BLOCKING, true);
        this.h2cHttp = h2cOverJetty && anyH2c(partners.values()) ? h2cClient() : null;
        tlsClients();
        this.http1 = http1Loops();
        this.h2c = h2cHttp != null ? new JettyWire(h2cHttp, HttpVersion.HTTP_2)
                : anyH2c(partners.values()) ? new H2cWire(partners.values(), http1, buffers) : null;
        this.jettyHttp1 = http1OverJetty ? new JettyWire(http, HttpVersion.HTTP_1_1) : null;
    }

    /**
     * Step one: one of Jetty's clients on the shared pool, scheduler and buffers — HTTP/1.1, h2c, and over TLS
     * h2 or HTTP/1.1 by ALPN, with {@code tls} for every https partner it calls; {@code invocation} says where
     * answers are handled: {@code BLOCKING} on a pool thread, {@code NON_BLOCKING} on the thread that parsed them;
     * {@code http1} whether it may speak HTTP/1.1.
     */
    private HttpClient jettyClient(String name, SslContextFactory.Client tls, InvocationType invocation,
            boolean http1) {
        // Over HTTP/1.1 each buffer is seen through a view of its own: see PrivateViewPool for the Jetty flaw it
        // contains (in Jetty's HTTP/1.1 receiver; the h2c client, which speaks HTTP/2 only, keeps the pool as is).
        ByteBufferPool viewed = http1 ? new PrivateViewPool(buffers) : buffers;
        ClientConnector connector = new ClientConnector();
        connector.setExecutor(executor);
        connector.setScheduler(scheduler);
        connector.setByteBufferPool(viewed);
        connector.setSelectors(Math.max(1, selectors));
        connector.setConnectTimeout(shortest(Partner::connectTimeout, Partner.DEFAULT_CONNECT_TIMEOUT));
        connector.setIdleTimeout(jettyIdleTimeout());
        connector.setSslContextFactory(tls);
        HTTP2Client h2 = new HTTP2Client(connector);
        HttpClientTransportDynamic transport = new HttpClientTransportDynamic(connector,
                HttpClientConnectionFactory.HTTP11, new ClientConnectionFactoryOverHTTP2.HTTP2(h2));
        transport.setConnectionPoolFactory(new PartnerPools(partners));
        transport.setInvocationType(invocation);
        HttpClient client = new HttpClient(transport);
        client.setExecutor(executor);
        client.setScheduler(scheduler);
        client.setByteBufferPool(viewed);
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
        addBean(client, true);
        return client;
    }

    /** Jetty's connect timeout is client-wide: the shortest of the partners'. The call timeout bounds each call. */
    private Duration shortest(Function<Partner, Duration> timeout, Duration fallback) {
        return partners.values().stream().map(timeout).min(Duration::compareTo).orElse(fallback);
    }

    /**
     * Jetty's idle timeout is client-wide too: the shortest {@link Partner#idleTimeout()} of the partners its
     * clients call, but never shorter than their longest connect timeout (it bounds a TLS handshake too) nor the
     * longest call timeout of an HTTP/2 one — Jetty closes an HTTP/2 connection on which no frame moved for that
     * long even while a stream waits for its answer, failing the call. (Over HTTP/1.1 the call's own idle timeout
     * replaces the connection's while it runs, see {@link JettyWire}.)
     */
    private Duration jettyIdleTimeout() {
        List<Partner> onJetty = partners.values().stream()
                .filter(p -> p.secure() || (p.protocol() == Protocol.H2C && h2cOverJetty) || http1OverJetty).toList();
        Duration idle = onJetty.stream().map(Partner::idleTimeout).min(Duration::compareTo)
                .orElse(Partner.DEFAULT_IDLE_TIMEOUT);
        Stream<Duration> floors = Stream.concat(onJetty.stream().map(Partner::connectTimeout),
                onJetty.stream().filter(p -> p.protocol().multiplexed()).map(Partner::callTimeout));
        return floors.reduce(idle, (a, b) -> a.compareTo(b) >= 0 ? a : b);
    }

    /**
     * Step two: the client of h2c partners. Non-blocking: each answer is parsed and completed, its listener
     * events included, on the thread that read its frames (a selector, or the thread it handed selection to), as
     * the HTTP/1.1 loops do, instead of a pool thread being woken per stream. https partners keep a blocking
     * client: TLS work and many connections being opened do not belong on a selector.
     */
    private HttpClient h2cClient() {
        return jettyClient("broker-client-h2c", TlsMaterial.sslContextFactory("broker-client-h2c", PartnerTls.DEFAULT),
                InvocationType.NON_BLOCKING, false);
    }

    /** Whether any partner is h2c: only then does the broker run a client (and its selectors) for h2c. */
    public static boolean anyH2c(Collection<Partner> partners) {
        return partners.stream().anyMatch(p -> !p.secure() && p.protocol() == Protocol.H2C);
    }

    /** Step three: each https partner's wire, on the default client or on the client of its own TLS settings. */
    private void tlsClients() {
        Map<PartnerTls, HttpClient> byTls = new HashMap<>();
        for (Partner partner : partners.values()) {
            if (!partner.secure()) {
                continue;
            }
            if (!partner.tls().verifyHostname()) {
                LOG.warn("partner {}: TLS host name verification is OFF — any trusted certificate is accepted "
                        + "for {}; for tests only", partner.name(), partner.baseUri().getHost());
            }
            HttpClient client = partner.tls().equals(PartnerTls.DEFAULT) ? http : byTls.get(partner.tls());
            if (client == null) {
                client = jettyClient("broker-client-tls-" + (byTls.size() + 1),
                        TlsMaterial.sslContextFactory(partner.name(), partner.tls()), InvocationType.BLOCKING, true);
                byTls.put(partner.tls(), client);
            }
            secureClients.put(partner.name(), client);
            secureWires.put(partner.name(), new JettyWire(client,
                    partner.protocol().multiplexed() ? HttpVersion.HTTP_2 : HttpVersion.HTTP_1_1));
        }
    }

    /** Step four: the broker's own loops for HTTP/1.1 partners. */
    private Http1Wire http1Loops() throws IOException {
        Http1Wire loops = new Http1Wire(partners.values(), executor, loops(selectors, executor));
        addBean(loops, true);
        return loops;
    }

    /** The HTTP/1.1 loops {@code selectors} asks for, or the default for {@code executor}. */
    public static int loops(int selectors, Executor executor) {
        return selectors > 0 ? selectors : Http1Wire.defaultLoops(executor);
    }

    /** The wire a call to {@code partner} goes out on. */
    public Wire wire(Partner partner) {
        if (partner.secure()) {
            return secureWires.get(partner.name());
        }
        if (partner.protocol() == Protocol.H2C) {
            return h2c;
        }
        return jettyHttp1 != null ? jettyHttp1 : http1;
    }

    /** Open, active and idle connections to {@code partner}, over all its hosts. */
    public int[] connections(Partner partner) {
        if (jettyHttp1 == null && !partner.secure() && partner.protocol() == Protocol.HTTP_1_1) {
            return http1.connections(partner.name());
        }
        if (h2c instanceof H2cWire loops && !partner.secure() && partner.protocol() == Protocol.H2C) {
            return loops.connections(partner.name());
        }
        HttpClient client = partner.secure() ? secureClients.get(partner.name())
                : partner.protocol() == Protocol.H2C ? h2cHttp : http;
        int[] counts = new int[3];
        for (Destination destination : client.getDestinations()) {
            if (partner.name().equals(destination.getOrigin().getTag())) {
                ConnectionPool pool = destination.getConnectionPool();
                if (pool instanceof AbstractConnectionPool counted) {
                    counts[0] += counted.getConnectionCount();
                    counts[1] += counted.getActiveConnectionCount();
                    counts[2] += counted.getIdleConnectionCount();
                }
            }
        }
        return counts;
    }

    /** True when called on one of the HTTP/1.1 loops. */
    public boolean isLoopThread() {
        return http1.isLoopThread();
    }

    /** The Jetty client of https partners, for tests to inspect. */
    public HttpClient httpClient() {
        return http;
    }
}
