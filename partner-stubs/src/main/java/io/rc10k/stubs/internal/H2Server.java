package io.rc10k.stubs.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hostile h2c partner's machinery: a blocking server socket, one acceptor thread, a pool of at most
 * {@code maxConnections} connection threads (one per open connection, each reading its frames with blocking
 * reads) and one timer thread that closes held connections at the stall cap. A connection that finds every
 * connection thread busy is closed at once and counted as a refusal.
 *
 * <pre>{@code
 * H2Server server = H2Server.start(settings);
 * int port = server.port();
 * ...
 * server.stop();
 * }</pre>
 *
 * <p>Threads: {@code hostile-h2-<port>-acceptor}, {@code hostile-h2-<port>-conn-<n>} (at most
 * {@code maxConnections}) and {@code hostile-h2-<port>-timer}, all daemons.</p>
 */
public final class H2Server {
    private static final Logger LOG = LoggerFactory.getLogger(H2Server.class);

    /** How the server was asked to run; validated by {@code HostileH2Partner.Builder}. */
    public record Settings(Listening listening, int maxConnections) {
    }

    /** What every connection shares. */
    record Shared(HostileCounters counters, H2Counters h2, ScheduledExecutorService timer, long idleTimeoutMillis,
            long maxStallMillis) {
    }

    private final ServerSocket server;
    private final ThreadPoolExecutor pool;
    private final ScheduledThreadPoolExecutor timer;
    private final HostileCounters counters = new HostileCounters();
    private final H2Counters h2 = new H2Counters();
    private final Shared shared;
    private final Set<H2Connection> open = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;

    private H2Server(ServerSocket server, Settings settings) {
        this.server = server;
        String name = "hostile-h2-" + server.getLocalPort();
        AtomicInteger threads = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(0, settings.maxConnections(), 1, TimeUnit.SECONDS, new SynchronousQueue<>(),
                task -> daemon(task, name + "-conn-" + threads.getAndIncrement()));
        this.timer = new ScheduledThreadPoolExecutor(1, task -> daemon(task, name + "-timer"));
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.shared = new Shared(counters, h2, timer, settings.listening().idleTimeoutMillis(),
                settings.listening().maxStallMillis());
        this.acceptor = daemon(this::accept, name + "-acceptor");
    }

    private static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    /** Binds and starts; a port that cannot be bound is an {@link IOException} ({@code BindException}). */
    public static H2Server start(Settings settings) throws IOException {
        ServerSocket socket = new ServerSocket();
        try {
            socket.setReuseAddress(true);
            Listening listening = settings.listening();
            socket.bind(new InetSocketAddress(listening.host(), listening.port()), listening.acceptQueue());
        } catch (IOException e) {
            socket.close();
            throw e;
        }
        H2Server server = new H2Server(socket, settings);
        server.acceptor.start();
        return server;
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Connections and answers; its counts by {@code Misbehaviour} stay 0. */
    public HostileCounters counters() {
        return counters;
    }

    public H2Counters h2() {
        return h2;
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket socket;
            try {
                socket = server.accept();
            } catch (IOException e) {
                if (!server.isClosed()) {
                    LOG.warn("hostile h2c partner on port {}: accept failed", port(), e);
                }
                return;
            }
            counters.accepted();
            serve(socket);
        }
    }

    private void serve(Socket socket) {
        H2Connection connection;
        try {
            socket.setTcpNoDelay(true);
            connection = new H2Connection(socket, shared);
        } catch (IOException e) {
            LOG.debug("a connection failed at accept: {}", e.toString());
            closeQuietly(socket);
            counters.closed();
            return;
        }
        open.add(connection);
        try {
            pool.execute(() -> {
                try {
                    connection.run();
                } finally {
                    open.remove(connection);
                }
            });
        } catch (RejectedExecutionException e) {
            open.remove(connection);
            counters.refused();
            connection.close();
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            LOG.debug("closing: {}", e.toString());
        }
    }

    /** Closes the server socket and every connection; idempotent. */
    public void stop() {
        try {
            server.close();
        } catch (IOException e) {
            LOG.debug("closing the server socket: {}", e.toString());
        }
        open.forEach(H2Connection::close);
        pool.shutdownNow();
        timer.shutdownNow();
    }
}
