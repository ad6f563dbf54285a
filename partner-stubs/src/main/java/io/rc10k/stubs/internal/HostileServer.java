package io.rc10k.stubs.internal;

import io.rc10k.stubs.Misbehaviour;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hostile partner's machinery: a plain NIO server socket, {@code loops} selector threads that own
 * the connections, and one timer thread for pauses, stall caps and idle timeouts. Nothing else runs,
 * however many connections are open or stalled.
 *
 * <pre>{@code
 * HostileServer server = HostileServer.start(settings);
 * int port = server.port();
 * ...
 * server.stop();
 * }</pre>
 *
 * <p>Threads: {@code hostile-<port>-loop-<i>} (the first also accepts) and {@code hostile-<port>-timer},
 * all daemons. The timer only hands tasks to the loops.</p>
 */
public final class HostileServer {
    private static final Logger LOG = LoggerFactory.getLogger(HostileServer.class);

    /** How the server was asked to run; validated by {@code HostilePartner.Builder}. */
    public record Settings(Listening listening, int loops, boolean chaos, double chaosProbability, long seed,
            List<Misbehaviour> chaosAmong, Misbehaviour atAccept) {
        /** The same partner on an ephemeral loopback port: behind a TLS front that owns the public one. */
        public Settings onLoopback() {
            return new Settings(listening.onLoopback(), loops, chaos, chaosProbability, seed, chaosAmong, atAccept);
        }
    }

    /** What every connection shares. */
    record Shared(HostileCounters counters, Router router, ScheduledExecutorService timer, long idleTimeoutMillis,
            long maxStallMillis) {
    }

    private final ServerSocketChannel server;
    private final List<HostileLoop> loops = new ArrayList<>();
    private final ScheduledThreadPoolExecutor timer;
    private final HostileCounters counters = new HostileCounters();
    private final Shared shared;
    private final Misbehaviour atAccept;
    private int next;

    private HostileServer(ServerSocketChannel server, Settings settings) {
        this.server = server;
        int port = server.socket().getLocalPort();
        this.timer = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "hostile-" + port + "-timer");
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        Chaos chaos = settings.chaos()
                ? new Chaos(settings.chaosProbability(), settings.seed(), settings.chaosAmong()) : null;
        Listening listening = settings.listening();
        this.shared = new Shared(counters, new Router(counters, chaos), timer, listening.idleTimeoutMillis(),
                listening.maxStallMillis());
        this.atAccept = settings.atAccept();
        for (int i = 0; i < settings.loops(); i++) {
            loops.add(new HostileLoop("hostile-" + port + "-loop-" + i));
        }
    }

    /** Binds and starts; a port that cannot be bound is an {@link IOException} ({@code BindException}). */
    public static HostileServer start(Settings settings) throws IOException {
        Listening listening = settings.listening();
        ServerSocketChannel channel = ServerSocketChannel.open();
        try {
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            channel.bind(new InetSocketAddress(listening.host(), listening.port()), listening.acceptQueue());
            channel.configureBlocking(false);
        } catch (IOException e) {
            channel.close();
            throw e;
        }
        HostileServer server = new HostileServer(channel, settings);
        server.loops.forEach(HostileLoop::start);
        HostileLoop first = server.loops.get(0);
        first.execute(() -> {
            try {
                first.register(channel, SelectionKey.OP_ACCEPT, server.new Acceptor());
            } catch (IOException e) {
                LOG.warn("hostile partner on port {} cannot accept", server.port(), e);
            }
        });
        return server;
    }

    public int port() {
        return server.socket().getLocalPort();
    }

    public HostileCounters counters() {
        return counters;
    }

    /** Closes the server socket and every connection; idempotent. */
    public void stop() {
        loops.forEach(HostileLoop::stop);
        timer.shutdownNow();
        try {
            server.close();
        } catch (IOException e) {
            LOG.debug("closing the server socket: {}", e.toString());
        }
    }

    /** Accepts on the first loop, and deals connections to the loops in turn. */
    private final class Acceptor implements HostileLoop.Ready {
        @Override
        public void ready(SelectionKey key) {
            try {
                for (SocketChannel channel = server.accept(); channel != null; channel = server.accept()) {
                    channel.configureBlocking(false);
                    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    counters.accepted();
                    HostileLoop loop = loops.get(next);
                    next = (next + 1) % loops.size();
                    HostileConnection connection = new HostileConnection(channel, loop, shared);
                    loop.execute(() -> connection.open(atAccept));
                }
            } catch (IOException e) {
                LOG.warn("hostile partner on port {}: accept failed", port(), e);
            }
        }

        @Override
        public void stop() {
            try {
                server.close();
            } catch (IOException e) {
                LOG.debug("closing the server socket: {}", e.toString());
            }
        }
    }
}
