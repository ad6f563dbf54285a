package io.rc10k.broker.internal;

import io.rc10k.broker.Partner;
import io.rc10k.broker.Protocol;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.channels.SocketChannel;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.thread.ThreadPool;
import org.eclipse.jetty.util.thread.ThreadPoolBudget;

/**
 * Calls to HTTP/1.1 partners on the broker's own event loops, built on Java NIO and Jetty's
 * {@code HttpParser}: the reverse-C10K path, where each call should cost what a plain event-loop
 * client's does. A connection stays registered for reading from its connect to its close, so an
 * exchange costs one write and one read (no interest change, no thread hand-off); the request is
 * written by the thread that starts the call, the response parsed and delivered on the loop that reads
 * it; deadlines are checked by the loops every {@value Http1Loop#TICK_MILLIS} ms, not by a timer per call.
 *
 * <p>Threading: {@code loops} selector loops, each a long task on the executor (taken from the shared
 * pool like Jetty's selectors). Response events and completions run on a loop thread: listeners must not
 * block it. Per partner, at most {@code maxConnections} connections (see {@link Http1Destination}).</p>
 */
public final class Http1Wire extends AbstractLifeCycle implements Wire {
    private final Executor executor;
    /** Per partner, a destination per host ({@link Partner#baseUris()}), in the partner's order. */
    private final Map<String, Http1Destination[]> destinations = new LinkedHashMap<>();
    private final Http1Loop[] loops;
    private final AtomicInteger next = new AtomicInteger();
    private ThreadPoolBudget.Lease lease;
    /** The h2c calls that share these loops, or null. */
    private volatile H2cWire h2c;

    /**
     * The loops a pool can spare: one per two cores (at most 8), as Jetty gives a server connector one
     * selector per two cores, so that the server's selectors and these loops come to about one event
     * thread per core; and no more than one per 16 threads of a sized pool (so a pool of 8 keeps its
     * threads for requests). More loops than that only wake more threads per mashup: fewer loops cost less CPU
     * and fewer context switches per mashup (measured in docs/results/peers.md).
     */
    public static int defaultLoops(Executor executor) {
        int loops = Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors() / 2));
        if (executor instanceof ThreadPool.SizedThreadPool sized) {
            return Math.max(1, Math.min(loops, sized.getMaxThreads() / 16));
        }
        return loops;
    }

    public Http1Wire(Collection<Partner> partners, Executor executor, int loops) throws IOException {
        this.executor = executor;
        for (Partner partner : partners) {
            if (partner.protocol() == Protocol.HTTP_1_1 && !partner.secure()) {
                destinations.put(partner.name(), partner.baseUris().stream()
                        .map(base -> new Http1Destination(this, partner, base)).toArray(Http1Destination[]::new));
            }
        }
        this.loops = new Http1Loop[loops];
        for (int i = 0; i < loops; i++) {
            this.loops[i] = new Http1Loop(this);
        }
    }

    @Override
    protected void doStart() throws Exception {
        // Counted in the shared pool's budget, like Jetty's selectors: a pool too small fails to start, clearly.
        lease = ThreadPoolBudget.leaseFrom(executor, this, loops.length);
        for (Http1Loop loop : loops) {
            executor.execute(loop);
        }
        super.doStart();
    }

    @Override
    protected void doStop() throws Exception {
        IOException stopping = new IOException("the broker client is stopping");
        H2cWire multiplexed = h2c;
        if (multiplexed != null) {
            multiplexed.failWaiting(stopping);
        }
        for (Http1Destination[] hosts : destinations.values()) {
            for (Http1Destination destination : hosts) {
                destination.failWaiting(stopping);
            }
        }
        for (Http1Loop loop : loops) {
            loop.stop(5_000);
        }
        if (lease != null) {
            lease.close();
        }
        super.doStop();
    }

    @Override
    public Call newCall(String partner, String method, URI uri, HttpFields headers, byte[] body,
            long timeoutNanos, Events events) {
        Http1Destination[] hosts = destinations.get(partner);
        if (hosts == null) {
            throw new IllegalArgumentException("partner \"" + partner + "\" is not an HTTP/1.1 partner of this wire");
        }
        Http1Destination destination = hosts[0];
        for (int i = 1; i < hosts.length && !destination.serves(uri); i++) {
            destination = hosts[i];
        }
        return new Http1Call(destination, method, uri, headers, body, timeoutNanos, events);
    }

    /** Any thread: opens a connection for {@code first} on the next loop (the place is already counted). */
    void connect(Http1Destination destination, Http1Call first) {
        Http1Loop loop = nextLoop();
        onLoop(loop, destination.address, resolved -> open(loop, destination, first, resolved));
    }

    /** Any thread: the loop a new connection goes on, the loops taken in turn. */
    Http1Loop nextLoop() {
        return loops[Math.floorMod(next.getAndIncrement(), loops.length)];
    }

    /**
     * Any thread: runs {@code open} on {@code loop} with {@code address} resolved; a name to look up is looked
     * up on the executor first, since a loop must never block.
     */
    void onLoop(Http1Loop loop, InetSocketAddress address, Consumer<InetSocketAddress> open) {
        if (address.isUnresolved() && !isLiteral(address.getHostString())) {
            executor.execute(() -> {
                InetSocketAddress resolved = resolve(address);
                loop.execute(() -> open.accept(resolved));
            });
        } else {
            loop.execute(() -> open.accept(resolve(address)));
        }
    }

    private static boolean isLiteral(String host) {
        return host.indexOf(':') >= 0 || host.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
    }

    private static InetSocketAddress resolve(InetSocketAddress address) {
        return address.isUnresolved() ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
    }

    /** On the loop. */
    private void open(Http1Loop loop, Http1Destination destination, Http1Call first, InetSocketAddress address) {
        SocketChannel channel = null;
        try {
            channel = SocketChannel.open();
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            Http1Connection connection = new Http1Connection(loop, destination, channel, first, address);
            loop.adopt(connection);
            connection.open(destination.partner.connectTimeout().toNanos());
        } catch (IOException | RuntimeException e) {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // failing anyway
                }
            }
            destination.closed(null);
            first.complete(0, null, e, false);
        }
    }

    /** On a loop, every tick: the first loop also ends calls that waited for a connection past their deadline. */
    void tick(Http1Loop loop, long now) {
        if (loop == loops[0]) {
            H2cWire multiplexed = h2c;
            if (multiplexed != null) {
                multiplexed.expireWaiting(now);
            }
            for (Http1Destination[] hosts : destinations.values()) {
                for (Http1Destination destination : hosts) {
                    destination.expireWaiting(now);
                }
            }
        }
    }

    /** {@code wire}'s connections run on these loops too: its waiting calls expire and fail with theirs. */
    void share(H2cWire wire) {
        this.h2c = wire;
    }

    /** True when called on one of this wire's loops. */
    public boolean isLoopThread() {
        for (Http1Loop loop : loops) {
            if (loop.isCurrentThread()) {
                return true;
            }
        }
        return false;
    }

    /** The loop at {@code index}: for tests that need to act on a loop's own thread. */
    Http1Loop loop(int index) {
        return loops[index];
    }

    /** Open, active and idle connections to {@code partner}, all its hosts; zeros for a partner not served here. */
    public int[] connections(String partner) {
        Http1Destination[] hosts = destinations.get(partner);
        int open = 0;
        int idle = 0;
        for (Http1Destination destination : hosts == null ? new Http1Destination[0] : hosts) {
            open += destination.open();
            idle += destination.idle();
        }
        return new int[] {open, Math.max(0, open - idle), idle};
    }
}
