package io.rc10k.stubs;

import io.rc10k.stubs.internal.BuildVersion;
import io.rc10k.stubs.internal.CommandLine;
import io.rc10k.stubs.internal.StubCounters;
import io.rc10k.stubs.internal.StubHandler;
import java.io.IOException;
import java.net.BindException;
import java.util.concurrent.CountDownLatch;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.io.WindowRateControl;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
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
        HttpConnectionFactory http11 = new HttpConnectionFactory(http);
        if (!options.h2c()) {
            return new ConnectionFactory[] {http11};
        }
        // With h2c after HTTP/1.1 on one connector, a connection that opens with the HTTP/2 preface
        // is upgraded (prior knowledge); any other speaks HTTP/1.1.
        HTTP2CServerConnectionFactory h2c = new HTTP2CServerConnectionFactory(http);
        h2c.setMaxConcurrentStreams(options.maxStreams());
        // Jetty closes a connection that resets more than 128 streams a second (a rapid-reset defence).
        // A caller whose deadline passes resets its streams in bulk; a load fixture must take that.
        h2c.setRateControlFactory(new WindowRateControl.Factory(100_000));
        return new ConnectionFactory[] {http11, h2c};
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
        if (CommandLine.asksForVersion(args)) {
            System.out.println(BuildVersion.nameAndVersion());
            return;
        }
        quietJettyLogs();
        if (CommandLine.asksForHostile(args)) {
            runHostile(args);
            return;
        }
        StubOptions options;
        try {
            options = CommandLine.parse(args);
        } catch (CommandLine.UsageException e) {
            System.err.println("partner-stubs: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (options == null) {
            System.out.println(CommandLine.USAGE);
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
        StringBuilder started = new StringBuilder("partner-stubs ready (" + (options.h2c() ? "HTTP/1.1 + h2c" : "HTTP/1.1")
                + ", max " + options.maxThreads() + " threads) on:");
        for (var connector : server.getConnectors()) {
            started.append(' ').append("http://").append(options.host()).append(':')
                    .append(((ServerConnector) connector).getLocalPort());
        }
        int first = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        String base = "http://" + options.host() + ":" + first;
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
            partner = CommandLine.parseHostile(args);
        } catch (CommandLine.UsageException e) {
            System.err.println("partner-stubs: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (partner == null) {
            System.out.println(CommandLine.USAGE);
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
        System.out.println("partner-stubs hostile partner ready (HTTP/1.1, " + Misbehaviour.values().length
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
