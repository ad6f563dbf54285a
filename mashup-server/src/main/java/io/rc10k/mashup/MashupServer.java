package io.rc10k.mashup;

import io.rc10k.broker.BrokerClient;
import io.rc10k.mashup.internal.AdminConnector;
import io.rc10k.mashup.internal.AdmissionHandler;
import io.rc10k.mashup.internal.BlockingRequestLimit;
import io.rc10k.mashup.internal.CallThreads;
import io.rc10k.mashup.internal.CommandLine;
import io.rc10k.mashup.internal.DashboardServlets;
import io.rc10k.mashup.internal.DefinitionsJson;
import io.rc10k.mashup.internal.FileBudget;
import io.rc10k.mashup.internal.GracefulMashups;
import io.rc10k.mashup.internal.JsonErrorHandler;
import io.rc10k.mashup.internal.Logging;
import io.rc10k.mashup.internal.MashupMetrics;
import io.rc10k.mashup.internal.MashupServlets;
import io.rc10k.mashup.internal.Readiness;
import io.rc10k.mashup.internal.SpanExport;
import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.io.PrintStream;
import java.net.BindException;
import java.time.Duration;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.CustomRequestLog;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.Slf4jRequestLogWriter;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone mashup server: one {@link QueuedThreadPool}, {@link Scheduler} and
 * {@link ByteBufferPool} shared by the {@link ServerConnector} and the {@link BrokerClient}, which
 * is a bean of the {@link Server} and starts and stops with it.
 *
 * <pre>{@code
 * Server server = MashupServer.createServer(MashupOptions.defaults().withPort(0), definitions);
 * server.start();
 * BrokerClient broker = server.getBean(BrokerClient.class);
 * }</pre>
 *
 * <p>Threads: the pool {@code mashup-*} runs selectors, servlet dispatches, client I/O and callbacks;
 * {@code mashup-scheduler} runs deadlines. Sync mode adds a {@code sync-call-*} platform thread per
 * outbound call in flight; virtual mode runs dispatches and calls on virtual threads.</p>
 */
public final class MashupServer {
    /** How long a stop waits for requests in flight beyond the longest deadline: time to write their answers. */
    static final long STOP_SLACK_MILLIS = 5_000;
    /**
     * NCSA's fields with a UTC ISO-8601 time, then what an operator of a mashup server looks for: the time
     * taken, whether every part was answered, and the W3C trace the partners saw ("-" where absent).
     */
    static final String ACCESS_LOG_FORMAT = "%{client}a - %u %{yyyy-MM-dd'T'HH:mm:ss.SSSXXX|UTC}t \"%r\" %s %O "
            + "%{ms}Tms complete=%{Mashup-Complete}o trace=%{traceresponse}o";
    /** Sync mode: how long a request may wait for a thread, beyond the longest mashup deadline, before a 503. */
    static final long SYNC_MAX_WAIT_MILLIS = 30_000;

    private MashupServer() {
    }

    public static Server createServer(MashupOptions options, Definitions definitions) {
        return createServer(options, definitions, false);
    }

    /**
     * @param stubsInProcess the demo's partner stubs share this process: each partner connection then
     *                       costs two sockets here, which the open-file budget counts
     */
    public static Server createServer(MashupOptions options, Definitions definitions, boolean stubsInProcess) {
        options.mode().requireRunnable();
        QueuedThreadPool pool = new QueuedThreadPool(options.maxThreads(), Math.min(8, options.maxThreads()));
        pool.setName("mashup");
        if (options.mode() == Mode.VIRTUAL) {
            pool.setVirtualThreadsExecutor(VirtualThreads.getNamedVirtualThreadsExecutor("mashup-virtual-"));
        }
        Scheduler scheduler = new ScheduledExecutorScheduler("mashup-scheduler", false);
        ByteBufferPool buffers = new ArrayByteBufferPool();
        Server server = new Server(pool, scheduler, buffers);

        FileBudget budget = FileBudget.of(FileBudget.processMaxFiles(), definitions.partners().values(),
                stubsInProcess);
        int maxConnections = options.maxConnections() > 0 ? options.maxConnections() : budget.inboundConnections();
        int maxInFlight = options.maxInFlight() > 0 ? options.maxInFlight()
                : Math.min(MashupOptions.DEFAULT_MAX_IN_FLIGHT, maxConnections);

        ServerConnector connector = new ServerConnector(server);
        connector.setName("main");
        connector.setHost(options.host());
        connector.setPort(options.port());
        connector.setAcceptQueueSize(4096);
        connector.setIdleTimeout(30_000);
        server.addConnector(connector);
        // Past the limit Jetty stops accepting (before the open-file wall) and shortens idle timeouts to
        // reclaim connections; the admin connector stays outside it so health checks keep answering.
        NetworkConnectionLimit limit = new NetworkConnectionLimit(maxConnections, connector);
        limit.setEndPointIdleTimeout(5_000);
        server.addBean(limit);
        if (options.adminPort() >= 0) {
            ServerConnector admin = new AdminConnector(server);
            admin.setHost(options.host());
            admin.setPort(options.adminPort());
            server.addConnector(admin);
        }

        BrokerClient broker = BrokerClient.builder()
                .partners(definitions.partners().values())
                .executor(pool).scheduler(scheduler).byteBufferPool(buffers)
                .build();
        server.addBean(broker);
        MashupMetrics metrics = new MashupMetrics(pool, broker);
        server.addBean(metrics);
        // Only when asked for: otherwise no class of the OpenTelemetry SDK is even loaded.
        SpanExport spans = options.otlpEndpoint() == null ? null : new SpanExport(options.otlpEndpoint(), definitions);
        if (spans != null) {
            server.addBean(spans);
        }

        ServletContextHandler context = new ServletContextHandler("/");
        Readiness readiness = new Readiness();
        server.addEventListener(readiness);
        CallThreads callThreads = options.mode().newCallThreads();
        if (callThreads != null) {
            server.addBean(callThreads, true);
        }
        // The live view is mapped for every connector; AdmissionHandler lets only the admin connector reach it.
        MashupServlets.mount((name, servlet, async, paths) -> {
            ServletHolder holder = new ServletHolder(name, servlet);
            if (async) {
                holder.setAsyncSupported(true);
            }
            for (String path : paths) {
                context.addServlet(holder, path);
            }
        }, definitions, new MashupServlets.Parts(options.mode(), broker, metrics, spans, callThreads, readiness,
                pool.getName(), true));
        int nearLimit = Math.max(1, maxConnections * 9 / 10);
        long longestDeadline = definitions.mashups().values().stream()
                .mapToLong(m -> m.deadline().toMillis()).max().orElse(0);
        Handler mashups = context;
        if (options.mode() == Mode.SYNC) {
            // Blocked servlets must leave the pool room to read their partners' answers: see BlockingRequestLimit.
            int reserved = broker.ioThreads(); // the broker's loops and selector
            for (Connector c : server.getConnectors()) {
                if (c instanceof ServerConnector sc) {
                    reserved += sc.getAcceptors() + sc.getSelectorManager().getSelectorCount();
                }
            }
            mashups = BlockingRequestLimit.wrap(context, BlockingRequestLimit.concurrency(options.maxThreads(), reserved),
                    maxInFlight, Duration.ofMillis(SYNC_MAX_WAIT_MILLIS + longestDeadline));
        }
        AdmissionHandler admission = new AdmissionHandler(maxInFlight, metrics,
                () -> limit.getNetworkConnectionCount() >= nearLimit, options.observabilityOnAdminOnly(), mashups);
        server.addBean(new Limits(budget, maxConnections, maxInFlight));
        server.setHandler(new GracefulMashups(admission));
        server.setErrorHandler(new JsonErrorHandler());

        // A graceful stop waits for what was admitted; in sync mode that includes requests still waiting for a thread.
        server.setStopTimeout(longestDeadline + STOP_SLACK_MILLIS
                + (options.mode() == Mode.SYNC ? SYNC_MAX_WAIT_MILLIS + longestDeadline : 0));
        Slf4jRequestLogWriter accessLog = new Slf4jRequestLogWriter();
        // Jetty formats each line before the writer is asked; with the access log's logger off, format nothing.
        if (LoggerFactory.getLogger(accessLog.getLoggerName()).isInfoEnabled()) {
            server.setRequestLog(new CustomRequestLog(accessLog, ACCESS_LOG_FORMAT));
        }
        return server;
    }


    /**
     * The limits a server runs with, after defaults were derived; a bean of the server.
     *
     * @param budget         what the open-file limit allows
     * @param maxConnections the inbound connection limit in force
     * @param maxInFlight    the admission limit in force
     */
    public record Limits(FileBudget budget, int maxConnections, int maxInFlight) {
    }


    /**
     * Runs the server from the command line. Exit status: 0 for {@code --help} or a good
     * {@code --check}; 143 (128 + SIGTERM, as for any JVM) after a graceful stop by SIGTERM or
     * Ctrl-C (130); 1 when it cannot start (e.g. the port is in use); 2 for a bad command line, bad
     * definitions or a bad {@code --log-config} file, every problem printed.
     */
    public static void main(String[] args) throws Exception {
        // Logging first, so that the server's first lines already obey it. A bad command line is run's to report.
        CommandLine command = null;
        try {
            command = CommandLine.parse(args);
        } catch (IllegalArgumentException e) {
            // reported by run
        }
        if (command != null && !command.help()) {
            try {
                Logging.configure(command.logConfig(), command.logLevels());
            } catch (IllegalArgumentException e) {
                System.err.println("mashup-server: " + e.getMessage());
                System.exit(2);
            }
        }
        int status = run(args, System.out, System.err);
        if (status >= 0) {
            System.exit(status);
        }
    }

    /** Returns the exit status, or -1 when a server was started and runs until stopped. */
    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        CommandLine command;
        try {
            command = CommandLine.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("mashup-server: " + e.getMessage());
            return 2;
        }
        if (command.help()) {
            out.println(CommandLine.USAGE);
            return 0;
        }
        if (command.check() != null) {
            try {
                Definitions definitions = DefinitionsJson.load(command.check());
                out.println(command.check() + ": OK (" + definitions.partners().size() + " partners, "
                        + definitions.mashups().size() + " mashups)");
                return 0;
            } catch (DefinitionException e) {
                err.println("mashup-server: " + command.check() + ": " + e.getMessage());
                return 2;
            }
        }
        PartnerStubs stubs = null;
        Definitions definitions;
        try {
            if (command.config() != null) {
                definitions = DefinitionsJson.load(command.config());
            } else {
                stubs = PartnerStubs.start(StubOptions.builder().maxStallMillis(10_000).build());
                definitions = Demo.definitions(stubs.uri());
            }
        } catch (DefinitionException e) {
            err.println("mashup-server: " + command.config() + ": " + e.getMessage());
            return 2;
        }
        Server server;
        try {
            server = createServer(command.options(), definitions, stubs != null);
        } catch (IllegalArgumentException e) {
            err.println("mashup-server: " + e.getMessage());
            if (stubs != null) {
                stubs.close();
            }
            return 2;
        }
        if (stubs != null) {
            // Stopped once the server has stopped — not a bean of it: a graceful stop shuts down every
            // Graceful bean in the server's tree at once, so the demo partners' connectors would refuse
            // the calls of the very mashups the drain waits for.
            PartnerStubs demoPartners = stubs;
            server.addEventListener(new LifeCycle.Listener() {
                @Override
                public void lifeCycleStopped(LifeCycle event) {
                    demoPartners.close();
                }
            });
        }
        server.setStopAtShutdown(true);
        try {
            server.start();
        } catch (Exception e) {
            boolean bind = e instanceof BindException || e.getCause() instanceof BindException;
            err.println("mashup-server: cannot start: " + (bind ? "port " + command.options().port()
                    + " is in use or cannot be bound on " + command.options().host() : e.toString()));
            server.stop();
            return 1;
        }
        int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        String base = "http://" + command.options().host() + ":" + port;
        Limits limits = server.getBean(Limits.class);
        Logger log = LoggerFactory.getLogger(MashupServer.class);
        log.info("started on {}: mode {}, {} mashups, {} partners", base, command.options().mode().label(),
                definitions.mashups().size(), definitions.partners().size());
        MashupMetrics metrics = server.getBean(MashupMetrics.class);
        server.addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStopping(LifeCycle event) {
                log.info("stopping: answering the {} requests in flight, for at most {} ms", metrics.inboundInFlight(),
                        server.getStopTimeout());
            }

            @Override
            public void lifeCycleStopped(LifeCycle event) {
                log.info("stopped");
            }
        });
        out.println("mashup-server ready on " + base + " (mode " + command.options().mode().label() + ", max "
                + command.options().maxThreads() + " threads, max " + limits.maxInFlight() + " in flight, max "
                + limits.maxConnections() + " connections of " + limits.budget().maxFiles() + " open files"
                + (stubs != null ? ", demo partners at " + stubs.uri() : "") + ")");
        if (server.getConnectors().length > 1) {
            String admin = "http://" + command.options().host() + ":"
                    + ((ServerConnector) server.getConnectors()[1]).getLocalPort();
            out.println("admin (/health/ready, /health/live, /metrics; outside the connection limit"
                    + (command.options().observabilityOnAdminOnly() ? "; only here" : "") + ") on " + admin);
            out.println("live view: " + admin + DashboardServlets.PAGE);
        }
        for (MashupDefinition m : definitions.mashups().values()) {
            String query = m.parameters().values().stream().filter(ParameterDefinition::required)
                    .map(p -> p.name() + "=Paris").reduce((a, b) -> a + "&" + b).map(q -> "?" + q).orElse("");
            out.println("try:  curl -i '" + base + m.path() + query + "'");
        }
        out.println("      curl " + (command.options().observabilityOnAdminOnly() ? "http://" + command.options().host()
                + ":" + ((ServerConnector) server.getConnectors()[1]).getLocalPort() : base) + "/metrics");
        server.join();
        return -1;
    }
}
