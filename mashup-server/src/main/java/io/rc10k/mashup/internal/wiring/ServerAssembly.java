package io.rc10k.mashup.internal.wiring;

import io.rc10k.broker.BrokerClient;
import io.rc10k.mashup.Definitions;
import io.rc10k.mashup.MashupOptions;
import io.rc10k.mashup.MashupServer;
import io.rc10k.mashup.Mode;
import io.rc10k.mashup.internal.admission.AdmissionHandler;
import io.rc10k.mashup.internal.admission.AllowedMethods;
import io.rc10k.mashup.internal.admission.BlockingRequestLimit;
import io.rc10k.mashup.internal.admission.FileBudget;
import io.rc10k.mashup.internal.admission.GracefulMashups;
import io.rc10k.mashup.internal.modes.InlineMashups;
import io.rc10k.mashup.internal.modes.ResumingPool;
import io.rc10k.mashup.internal.observability.Readiness;
import io.rc10k.mashup.internal.observability.SpanExport;
import io.rc10k.mashup.internal.observability.SpanExportSettings;
import java.time.Duration;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.CustomRequestLog;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.Slf4jRequestLogWriter;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.slf4j.LoggerFactory;

/**
 * The standalone server's assembly, one step per method, in the order {@code MashupServer.createServer} takes
 * them: the thread pool and the server around it, the limits, the connectors, the parts the servlets share (the
 * broker client first), the servlets, the handlers in front of them, and how it stops and logs. Each step adds
 * what it makes to the server in the order the server starts it; a step takes what earlier steps made.
 *
 * <pre>{@code
 * ServerAssembly steps = new ServerAssembly(options, definitions);
 * QueuedThreadPool pool = steps.pool();    // then the mode configures it
 * Server server = steps.server(pool);
 * MashupServer.Limits limits = steps.limits(server, false);
 * NetworkConnectionLimit connections = steps.connectors(server, limits);
 * MashupServlets.Parts parts = steps.parts(server);
 * server.setHandler(steps.handlers(server, limits, connections, parts, steps.servlets(parts)));
 * steps.lifecycle(server);
 * }</pre>
 */
public final class ServerAssembly {
    /** How long a stop waits for requests in flight beyond the longest deadline: time to write their answers. */
    public static final long STOP_SLACK_MILLIS = 5_000;
    /**
     * NCSA's fields with a UTC ISO-8601 time, then what an operator of a mashup server looks for: the time
     * taken, whether every part was answered, and the W3C trace the partners saw ("-" where absent).
     */
    static final String ACCESS_LOG_FORMAT = "%{client}a - %u %{yyyy-MM-dd'T'HH:mm:ss.SSSXXX|UTC}t \"%r\" %s %O "
            + "%{ms}Tms complete=%{Mashup-Complete}o trace=%{traceresponse}o";
    /** The idle timeout of inbound connections while the connection limit is reached, if shorter than the usual. */
    static final int NEAR_LIMIT_IDLE_TIMEOUT_MILLIS = 5_000;
    /** The pool's name, which its threads and the health views carry. */
    static final String POOL = "mashup";

    private final MashupOptions options;
    private final Mode mode;
    private final Definitions definitions;
    private final long longestDeadlineMillis;

    public ServerAssembly(MashupOptions options, Definitions definitions) {
        this.options = options;
        this.mode = options.mode();
        this.definitions = definitions;
        this.longestDeadlineMillis = definitions.mashups().values().stream()
                .mapToLong(m -> m.deadline().toMillis()).max().orElse(0);
    }

    /**
     * The one pool for selectors, broker loops, servlet dispatches and callbacks: async mode's resumes connections
     * on broker loops. Virtual mode's executor is the mode's to add ({@code Mode.configure}), before the server.
     */
    public QueuedThreadPool pool() {
        // Async mode: a connection resumed on a broker loop stays there (ResumingPool, InlineMashups).
        QueuedThreadPool pool = mode.blocks() ? new QueuedThreadPool(options.maxThreads(), options.minThreads())
                : new ResumingPool(options.maxThreads(), options.minThreads());
        pool.setReservedThreads(options.reservedThreads());
        pool.setName(POOL);
        return pool;
    }

    /** The server on {@code pool}, with the scheduler and buffer pool that everything shares too. */
    public Server server(QueuedThreadPool pool) {
        return new Server(pool, new ScheduledExecutorScheduler("mashup-scheduler", false), new ArrayByteBufferPool());
    }

    /**
     * The connection and admission limits in force, as a bean of the server: as the options say, or derived from
     * the process's open-file limit and the partners' connections.
     *
     * @param stubsInProcess the demo's partner stubs share this process: each partner connection then
     *                       costs two sockets here, which the open-file budget counts
     */
    public MashupServer.Limits limits(Server server, boolean stubsInProcess) {
        FileBudget budget = FileBudget.of(FileBudget.processMaxFiles(), definitions.partners().values(),
                stubsInProcess);
        int maxConnections = options.maxConnections() > 0 ? options.maxConnections() : budget.inboundConnections();
        int maxInFlight = options.maxInFlight() > 0 ? options.maxInFlight()
                : Math.min(MashupOptions.DEFAULT_MAX_IN_FLIGHT, maxConnections);
        MashupServer.Limits limits = new MashupServer.Limits(budget.maxFiles(), maxConnections, maxInFlight);
        server.addBean(limits);
        return limits;
    }

    /**
     * The main connector under the connection limit and, when asked for, the admin connector outside it.
     * Returns the limit, which the admission handler watches.
     */
    public NetworkConnectionLimit connectors(Server server, MashupServer.Limits limits) {
        // Both connectors speak HTTP/1.1 without naming Jetty's version: it tells a scanner which advisories to try.
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        ServerConnector main = new ServerConnector(server, options.acceptors(), options.selectors(),
                new HttpConnectionFactory(http));
        main.setName("main");
        main.setHost(options.host());
        main.setPort(options.port());
        main.setAcceptQueueSize(options.acceptQueue());
        main.setIdleTimeout(options.idleTimeoutMillis());
        server.addConnector(main);
        // Past the limit Jetty stops accepting (before the open-file wall) and shortens idle timeouts to
        // reclaim connections; the admin connector stays outside it so health checks keep answering.
        NetworkConnectionLimit limit = new NetworkConnectionLimit(limits.maxConnections(), main);
        limit.setEndPointIdleTimeout(Math.min(NEAR_LIMIT_IDLE_TIMEOUT_MILLIS, options.idleTimeoutMillis()));
        server.addBean(limit);
        if (options.adminPort() >= 0) {
            ServerConnector admin = new AdminConnector(server, new HttpConnectionFactory(http));
            admin.setHost(options.adminHost());
            admin.setPort(options.adminPort());
            server.addConnector(admin);
        }
        return limit;
    }

    /**
     * What the servlets share, as beans of the server: the span export when asked for, the readiness the health
     * views report, the broker client on the server's pool, scheduler and buffers, the meters, and a blocking
     * mode's call threads.
     */
    public MashupServlets.Parts parts(Server server) {
        // Only when asked for (--otlp-endpoint, or OTEL_* settings): otherwise no OpenTelemetry class is even loaded.
        SpanExport spans = SpanExportSettings.on(options.otlpEndpoint())
                ? new SpanExport(options.otlpEndpoint(), definitions) : null;
        if (spans != null) {
            server.addBean(spans);
        }
        Readiness readiness = new Readiness();
        server.addEventListener(readiness);
        MashupServlets.Parts parts = MashupServlets.parts(definitions, mode, server.getThreadPool(),
                server.getScheduler(), server.getByteBufferPool(), spans, readiness, POOL, true,
                options.maxBufferedBytes());
        if (server.getThreadPool() instanceof ResumingPool resuming) {
            resuming.resumeOn(parts.broker()::isLoopThread);
        }
        for (LifeCycle part : parts.lifeCycles()) {
            server.addBean(part, true);
        }
        server.addBean(parts.metrics());
        return parts;
    }

    /** The mashups, async or blocking as the mode says, {@code /metrics}, the health views and the live view. */
    public ServletContextHandler servlets(MashupServlets.Parts parts) {
        ServletContextHandler context = new ServletContextHandler("/");
        // The live view is mapped for every connector; AdmissionHandler lets only the admin connector reach it.
        MashupServlets.mount((name, servlet, async, paths) -> {
            ServletHolder holder = new ServletHolder(name, servlet);
            if (async) {
                holder.setAsyncSupported(true);
            }
            for (String path : paths) {
                context.addServlet(holder, path);
            }
        }, definitions, parts);
        return context;
    }

    /**
     * What stands in front of the servlets, outermost first: async mode's inline dispatch of mashup GETs, the
     * allowed methods, the graceful drain, admission (in-flight and connection limits, the admin port's paths)
     * and sync mode's cap on requests that block.
     */
    public Handler handlers(Server server, MashupServer.Limits limits, NetworkConnectionLimit connections,
            MashupServlets.Parts parts, Handler servlets) {
        // Sync mode: blocked servlets must leave the pool room to read their partners' answers (BlockingRequestLimit).
        Handler mashups = !mode.capsBlocking() ? servlets : BlockingRequestLimit.wrap(servlets,
                Mode.blockingConcurrency(options.maxThreads(), reservedThreads(server, parts.broker())),
                limits.maxInFlight(), Duration.ofMillis(mode.maxWaitMillis(longestDeadlineMillis)));
        int nearLimit = Math.max(1, limits.maxConnections() * 9 / 10);
        AdmissionHandler admission = new AdmissionHandler(limits.maxInFlight(), parts.metrics(),
                () -> connections.getNetworkConnectionCount() >= nearLimit, options.observabilityOnAdminOnly(),
                mashups);
        // Methods first: a TRACE to the admin port is a 405 too, not a 404 for its path.
        Handler top = new AllowedMethods(new GracefulMashups(parts.metrics(), admission));
        // Async mode: mashup GETs run where they were read; anything that may block goes to the pool.
        return mode.blocks() ? top : new InlineMashups(top);
    }

    /** Threads held for good: the broker's loops and selector, and every connector's acceptors and selectors. */
    private static int reservedThreads(Server server, BrokerClient broker) {
        int reserved = broker.ioThreads();
        for (Connector c : server.getConnectors()) {
            if (c instanceof ServerConnector sc) {
                reserved += sc.getAcceptors() + sc.getSelectorManager().getSelectorCount();
            }
        }
        return reserved;
    }

    /** How the server stops (a graceful drain, bounded), answers what Jetty refuses (JSON), and logs access. */
    public void lifecycle(Server server) {
        server.setErrorHandler(new JsonErrorHandler());
        // A graceful stop waits for what was admitted, including requests still waiting for a thread.
        server.setStopTimeout(longestDeadlineMillis + STOP_SLACK_MILLIS + mode.maxWaitMillis(longestDeadlineMillis));
        Slf4jRequestLogWriter accessLog = new Slf4jRequestLogWriter();
        // Jetty formats each line before the writer is asked; with the access log's logger off, format nothing.
        if (LoggerFactory.getLogger(accessLog.getLoggerName()).isInfoEnabled()) {
            server.setRequestLog(new CustomRequestLog(accessLog, ACCESS_LOG_FORMAT));
        }
    }
}
