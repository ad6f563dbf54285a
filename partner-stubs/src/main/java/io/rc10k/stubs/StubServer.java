package io.rc10k.stubs;

import io.rc10k.harness.BuildVersion;
import io.rc10k.stubs.internal.StubArguments;
import io.rc10k.stubs.internal.StubCounters;
import io.rc10k.stubs.internal.StubHandler;
import java.io.IOException;
import java.net.BindException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.concurrent.CountDownLatch;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http2.server.AbstractHTTP2ServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.WindowRateControl;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * The partner-stubs process: simulated partner services on Jetty 12 core handlers, one small pool.
 *
 * <pre>{@code
 * Server server = StubServer.createServer(StubOptions.builder().port(0).build());
 * server.start();
 * int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
 * }</pre>
 *
 * <p>Threads: one {@link QueuedThreadPool} named {@code stub} (selectors plus workers) and one timer
 * thread {@code stub-scheduler}. Delayed and stalled requests hold no thread; the timer fires them.</p>
 */
public final class StubServer {
    private StubServer() {
    }

    public static Server createServer(StubOptions options) {
        QueuedThreadPool pool = new QueuedThreadPool(options.maxThreads(), Math.min(2, options.maxThreads()));
        pool.setName("stub");
        // Reserved threads would spin up idle threads ahead of need; the stub wants the fewest threads.
        pool.setReservedThreads(0);
        Scheduler scheduler = new ScheduledExecutorScheduler("stub-scheduler", false);
        Server server = new Server(pool, scheduler, null);

        StubCounters counters = new StubCounters();
        server.addBean(counters);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        for (int port : options.ports()) {
            ServerConnector connector = new ServerConnector(server, 0, 1, connectionFactories(options, http));
            connector.setHost(options.host());
            connector.setPort(port);
            connector.setAcceptQueueSize(options.acceptQueue());
            connector.setIdleTimeout(options.idleTimeoutMillis());
            connector.setReuseAddress(true);
            connector.addEventListener(counters);
            server.addConnector(connector);
        }
        server.setHandler(new StubHandler(counters, options.seed(), options.maxStallMillis()));
        return server;
    }

    private static ConnectionFactory[] connectionFactories(StubOptions options, HttpConfiguration http) {
        if (options.tls() != null) {
            return httpsFactories(options, http);
        }
        HttpConnectionFactory http11 = new HttpConnectionFactory(http);
        if (!options.h2c()) {
            return new ConnectionFactory[] {http11};
        }
        // With h2c after HTTP/1.1 on one connector, a connection that opens with the HTTP/2 preface
        // is upgraded (prior knowledge); any other speaks HTTP/1.1.
        return new ConnectionFactory[] {http11, tuned(new HTTP2CServerConnectionFactory(http), options)};
    }

    /** TLS, then ALPN: HTTP/2 for a client that offers {@code h2}, HTTP/1.1 for any other. */
    private static ConnectionFactory[] httpsFactories(StubOptions options, HttpConfiguration http) {
        HttpConfiguration https = new HttpConfiguration(http);
        SecureRequestCustomizer secure = new SecureRequestCustomizer();
        // A stub answers whatever Host a test sends; whether the name fits is the client's check.
        secure.setSniHostCheck(false);
        https.addCustomizer(secure);
        HttpConnectionFactory http11 = new HttpConnectionFactory(https);
        HTTP2ServerConnectionFactory h2 = tuned(new HTTP2ServerConnectionFactory(https), options);
        ALPNServerConnectionFactory alpn = new ALPNServerConnectionFactory(h2.getProtocol(), http11.getProtocol());
        alpn.setDefaultProtocol(http11.getProtocol());
        return new ConnectionFactory[] {new SslConnectionFactory(sslContext(options), alpn.getProtocol()), alpn, h2,
                http11};
    }

    private static SslContextFactory.Server sslContext(StubOptions options) {
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStore(options.tls().keyStore());
        ssl.setKeyStorePassword(StubCertificate.PASSWORD);
        ssl.setKeyManagerPassword(StubCertificate.PASSWORD);
        ssl.setIncludeProtocols("TLSv1.3", "TLSv1.2");
        // Not NativePRNG, which reads /dev/urandom on the selector for every handshake's randoms.
        ssl.setSecureRandomAlgorithm("DRBG");
        if (options.clientAuthority() != null) {
            try {
                KeyStore trusted = KeyStore.getInstance("PKCS12");
                trusted.load(null, null);
                trusted.setCertificateEntry("client", options.clientAuthority().certificate());
                ssl.setTrustStore(trusted);
            } catch (GeneralSecurityException | IOException e) {
                throw new IllegalStateException("cannot trust " + options.clientAuthority() + ": " + e, e);
            }
            ssl.setNeedClientAuth(true);
        }
        return ssl;
    }

    private static <F extends AbstractHTTP2ServerConnectionFactory> F tuned(F h2, StubOptions options) {
        h2.setMaxConcurrentStreams(options.maxStreams());
        // Jetty closes a connection that resets more than 128 streams a second (a rapid-reset defence).
        // A caller whose deadline passes resets its streams in bulk; a load fixture must take that.
        h2.setRateControlFactory(new WindowRateControl.Factory(100_000));
        return h2;
    }

    /** {@code https} for a connector that serves TLS, else {@code http}. */
    public static String scheme(ServerConnector connector) {
        return connector.getConnectionFactory(SslConnectionFactory.class) != null ? "https" : "http";
    }

    /** The counters behind {@code /stats} of a server made by {@link #createServer}. */
    public static StubStats stats(Server server) {
        return counters(server).snapshot();
    }

    /** Starts the peaks and the served count afresh, as {@code POST /stats/reset} does. */
    public static void resetStats(Server server) {
        counters(server).reset();
    }

    private static StubCounters counters(Server server) {
        StubCounters counters = server.getBean(StubCounters.class);
        if (counters == null) {
            throw new IllegalArgumentException("not a server made by StubServer.createServer: " + server);
        }
        return counters;
    }

    /**
     * Exit status: 143 (128 + SIGTERM, as for any JVM) after a stop by SIGTERM, 130 for Ctrl-C; 1
     * when the server cannot start; 2 for a bad command line; 0 for {@code --help} and {@code --version}. With
     * {@code --hostile} it runs a {@link HostilePartner} instead, with the same statuses.
     */
    public static void main(String[] args) throws Exception {
        if (StubArguments.asksForVersion(args)) {
            System.out.println(BuildVersion.line(StubArguments.NAME));
            return;
        }
        quietJettyLogs();
        if (StubArguments.asksForHostile(args)) {
            runHostile(args);
            return;
        }
        StubOptions options;
        try {
            options = StubArguments.parse(args);
        } catch (StubArguments.UsageException e) {
            System.err.println("partner-stubs: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (options == null) {
            System.out.println(StubArguments.USAGE);
            return;
        }
        Server server = createServer(options);
        server.setStopAtShutdown(true);
        try {
            server.start();
        } catch (IOException e) {
            String why = e instanceof BindException || e.getCause() instanceof BindException
                    ? "a port is in use or cannot be bound on " + options.host() + " (" + e.getMessage() + ")"
                    : e.toString();
            System.err.println("partner-stubs: cannot start: " + why);
            server.stop();
            System.exit(1);
            return;
        }
        StringBuilder started = new StringBuilder("partner-stubs ready (" + (options.tls() != null
                ? "HTTPS: HTTP/1.1 + h2 by ALPN" : options.h2c() ? "HTTP/1.1 + h2c" : "HTTP/1.1")
                + ", max " + options.maxThreads() + " threads) on:");
        for (var connector : server.getConnectors()) {
            started.append(' ').append(options.scheme()).append("://").append(options.host()).append(':')
                    .append(((ServerConnector) connector).getLocalPort());
        }
        int first = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        String base = options.scheme() + "://" + options.host() + ":" + first;
        System.out.println(started);
        System.out.println("try:  curl '" + base + "/stub?delay=500&bytes=256'");
        System.out.println("      curl '" + base + "/weather?city=Paris'");
        System.out.println("      curl '" + base + "/stats'");
        server.join();
    }

    /** {@code --hostile}: a {@link HostilePartner} until SIGTERM or Ctrl-C, with the exit statuses of {@link #main}. */
    private static void runHostile(String[] args) throws InterruptedException {
        HostilePartner partner;
        try {
            partner = StubArguments.parseHostile(args);
        } catch (StubArguments.UsageException e) {
            System.err.println("partner-stubs: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (partner == null) {
            System.out.println(StubArguments.USAGE);
            return;
        }
        try {
            partner.start();
        } catch (IllegalStateException e) {
            System.err.println("partner-stubs: cannot start: " + e.getMessage());
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(partner::close, "hostile-shutdown"));
        String base = partner.uri().toString();
        System.out.println("partner-stubs hostile partner ready (" + (partner.tls() != null ? "HTTPS: HTTP/1.1 over TLS"
                : "HTTP/1.1") + ", " + Misbehaviour.values().length
                + " misbehaviours, " + (partner.chaos() ? "chaos " + partner.chaosProbability() + ", seed "
                + partner.seed() : "no chaos") + ", stall cap "
                + partner.maxStallMillis() + " ms) on: " + base);
        System.out.println("try:  curl '" + base + "/'   (every misbehaviour, and what a client should see)");
        System.out.println("      curl -i '" + base + "/ok'");
        System.out.println("      curl -i '" + base + "/chunk-size-invalid'");
        // Its threads are daemons: this one keeps the JVM up until a signal runs the shutdown hook.
        new CountDownLatch(1).await();
    }

    private static void quietJettyLogs() {
        if (System.getProperty("org.slf4j.simpleLogger.log.org.eclipse.jetty") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.org.eclipse.jetty", "warn");
        }
        if (System.getProperty("org.slf4j.simpleLogger.showDateTime") == null) {
            System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        }
    }
}
