package io.rc10k.mashup;

import io.rc10k.broker.BrokerClient;
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
import io.rc10k.mashup.internal.wiring.AdminConnector;
import io.rc10k.mashup.internal.wiring.JsonErrorHandler;
import io.rc10k.mashup.internal.wiring.MashupServlets;
import java.time.Duration;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.io.ByteBufferPool;
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
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.LoggerFactory;

/**
 * The standalone mashup server: one {@link QueuedThreadPool}, {@link Scheduler} and
 * {@link ByteBufferPool} shared by the {@link ServerConnector} and the {@link BrokerClient}, which
 * is a bean of the {@link Server} and starts and stops with it.
 *
 * <pre>{@code
 * Server server = MashupServer.createServer(MashupOptions.builder().port(0).build(), definitions);
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
        Mode mode = options.mode();
        mode.requireRunnable();
        int minThreads = Math.min(8, options.maxThreads());
        // Async mode: a connection resumed on a broker loop stays there (ResumingPool, InlineMashups).
        QueuedThreadPool pool = mode.blocks() ? new QueuedThreadPool(options.maxThreads(), minThreads)
                : new ResumingPool(options.maxThreads(), minThreads);
        pool.setName("mashup");
        mode.configure(pool);
        Scheduler scheduler = new ScheduledExecutorScheduler("mashup-scheduler", false);
        ByteBufferPool buffers = new ArrayByteBufferPool();
        Server server = new Server(pool, scheduler, buffers);

        FileBudget budget = FileBudget.of(FileBudget.processMaxFiles(), definitions.partners().values(),
                stubsInProcess);
        int maxConnections = options.maxConnections() > 0 ? options.maxConnections() : budget.inboundConnections();
        int maxInFlight = options.maxInFlight() > 0 ? options.maxInFlight()
                : Math.min(MashupOptions.DEFAULT_MAX_IN_FLIGHT, maxConnections);

        // Both connectors speak HTTP/1.1 without naming Jetty's version: it tells a scanner which advisories to try.
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        ServerConnector connector = new ServerConnector(server, options.acceptors(), options.selectors(),
                new HttpConnectionFactory(http));
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
            ServerConnector admin = new AdminConnector(server, new HttpConnectionFactory(http));
            admin.setHost(options.adminHost());
            admin.setPort(options.adminPort());
            server.addConnector(admin);
        }

        // Only when asked for (--otlp-endpoint, or OTEL_* settings): otherwise no OpenTelemetry class is even loaded.
        SpanExport spans = SpanExportSettings.on(options.otlpEndpoint())
                ? new SpanExport(options.otlpEndpoint(), definitions) : null;
        if (spans != null) {
            server.addBean(spans);
        }
        Readiness readiness = new Readiness();
        server.addEventListener(readiness);
        MashupServlets.Parts parts = MashupServlets.parts(definitions, mode, pool, scheduler, buffers, spans,
                readiness, pool.getName(), true, options.maxBufferedBytes());
        if (pool instanceof ResumingPool resuming) {
            resuming.resumeOn(parts.broker()::isLoopThread);
        }
        for (LifeCycle part : parts.lifeCycles()) {
            server.addBean(part, true);
        }
        server.addBean(parts.metrics());

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
        int nearLimit = Math.max(1, maxConnections * 9 / 10);
        long longestDeadline = definitions.mashups().values().stream()
                .mapToLong(m -> m.deadline().toMillis()).max().orElse(0);
        // Threads held for good: the broker's loops and selector, and every connector's acceptors and selectors.
        int reserved = parts.broker().ioThreads();
        for (Connector c : server.getConnectors()) {
            if (c instanceof ServerConnector sc) {
                reserved += sc.getAcceptors() + sc.getSelectorManager().getSelectorCount();
            }
        }
        // Sync mode: blocked servlets must leave the pool room to read their partners' answers (BlockingRequestLimit).
        Handler mashups = !mode.capsBlocking() ? context : BlockingRequestLimit.wrap(context,
                Mode.blockingConcurrency(options.maxThreads(), reserved), maxInFlight,
                Duration.ofMillis(mode.maxWaitMillis(longestDeadline)));
        AdmissionHandler admission = new AdmissionHandler(maxInFlight, parts.metrics(),
                () -> limit.getNetworkConnectionCount() >= nearLimit, options.observabilityOnAdminOnly(), mashups);
        server.addBean(new Limits(budget.maxFiles(), maxConnections, maxInFlight));
        // Methods first: a TRACE to the admin port is a 405 too, not a 404 for its path.
        Handler top = new AllowedMethods(new GracefulMashups(parts.metrics(), admission));
        // Async mode: mashup GETs run where they were read; anything that may block goes to the pool.
        server.setHandler(mode.blocks() ? top : new InlineMashups(top));
        server.setErrorHandler(new JsonErrorHandler());

        // A graceful stop waits for what was admitted, including requests still waiting for a thread.
        server.setStopTimeout(longestDeadline + STOP_SLACK_MILLIS + mode.maxWaitMillis(longestDeadline));
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
     * @param maxFiles       the process's open-file limit, which the defaults were derived from
     * @param maxConnections the inbound connection limit in force
     * @param maxInFlight    the admission limit in force
     */
    public record Limits(long maxFiles, int maxConnections, int maxInFlight) {
    }
}
