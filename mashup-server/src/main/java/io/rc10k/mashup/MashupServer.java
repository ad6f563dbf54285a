package io.rc10k.mashup;

import io.rc10k.broker.BrokerClient;
import io.rc10k.mashup.internal.wiring.MashupServlets;
import io.rc10k.mashup.internal.wiring.ServerAssembly;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.Scheduler;

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
    private MashupServer() {
    }

    public static Server createServer(MashupOptions options, Definitions definitions) {
        return createServer(options, definitions, false);
    }

    /**
     * Assembles the server in steps ({@link ServerAssembly}), each adding what it makes to the server in the order
     * it starts. The mode picks the pool, the mashup servlet and the handlers that wrap it; the other steps are the
     * same in every mode.
     *
     * @param stubsInProcess the demo's partner stubs share this process: each partner connection then
     *                       costs two sockets here, which the open-file budget counts
     */
    public static Server createServer(MashupOptions options, Definitions definitions, boolean stubsInProcess) {
        Mode mode = options.mode();
        mode.requireRunnable();
        ServerAssembly steps = new ServerAssembly(options, definitions);
        QueuedThreadPool pool = steps.pool();                   // selectors, broker loops, dispatches, callbacks
        mode.configure(pool);                                   // virtual mode: dispatches on virtual threads
        Server server = steps.server(pool);                     // and one scheduler, one buffer pool for all
        Limits limits = steps.limits(server, stubsInProcess);   // given, or derived from the open-file limit
        NetworkConnectionLimit connections = steps.connectors(server, limits);   // main, and admin outside it
        MashupServlets.Parts parts = steps.parts(server);       // broker client, meters, spans, call threads
        ServletContextHandler servlets = steps.servlets(parts); // mashups, /metrics, health and live views
        server.setHandler(steps.handlers(server, limits, connections, parts, servlets));
        steps.lifecycle(server);                                // stop timeout, JSON error pages, access log
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
