package io.rc10k.broker.internal;

import io.rc10k.broker.Partner;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One HTTP/1.1 partner's connections: at most {@code maxConnections} open (connecting ones count), the
 * idle ones on a stack (the most recently used is taken first, so the others age out), and the calls
 * that wait for one in arrival order. Lock-free; any thread.
 */
final class Http1Destination {
    final Partner partner;
    final InetSocketAddress address;
    /** How long a connection may stay idle here: the partner's {@link Partner#idleTimeout()}. */
    final long idleTimeoutNanos;
    private final Http1Wire wire;
    private final ConcurrentLinkedDeque<Http1Connection> idle = new ConcurrentLinkedDeque<>();
    private final AtomicInteger idleCount = new AtomicInteger();
    private final AtomicInteger open = new AtomicInteger();
    private final Queue<Http1Call> waiting = new ConcurrentLinkedQueue<>();

    Http1Destination(Http1Wire wire, Partner partner) {
        this(wire, partner, partner.baseUri());
    }

    /** @param base one of the partner's hosts ({@link Partner#baseUris()}): a destination and a pool per host */
    Http1Destination(Http1Wire wire, Partner partner, URI base) {
        this.wire = wire;
        this.partner = partner;
        this.address = InetSocketAddress.createUnresolved(base.getHost(), port(base));
        this.idleTimeoutNanos = partner.idleTimeout().toNanos();
    }

    static int port(URI uri) {
        return uri.getPort() < 0 ? 80 : uri.getPort();
    }

    /** Whether {@code uri} is on this destination's host and port. */
    boolean serves(URI uri) {
        return address.getPort() == port(uri) && address.getHostString().equals(uri.getHost());
    }

    /** Puts the call on an idle connection, on a new one, or in the queue. */
    void dispatch(Http1Call call) {
        if (sendOnIdle(call)) {
            return;
        }
        if (takePlace()) {
            wire.connect(this, call);
            return;
        }
        waiting.add(call);
        // A connection freed or closed between the tries above and the add has not seen this call.
        serveWaiting();
    }

    private boolean sendOnIdle(Http1Call call) {
        for (Http1Connection connection = takeIdle(); connection != null; connection = takeIdle()) {
            if (connection.send(call)) {
                return true;
            }
        }
        return false;
    }

    private Http1Connection takeIdle() {
        for (Http1Connection connection = idle.pollFirst(); connection != null; connection = idle.pollFirst()) {
            if (connection.leaveIdle()) {
                idleCount.decrementAndGet();
                return connection;
            }
            // Left behind by a connection that closed while idle.
        }
        return null;
    }

    /** A connection whose exchange ended cleanly: the next waiting call, or the idle stack. */
    void release(Http1Connection connection) {
        if (connection.isClosed()) {
            return; // closed meanwhile (stray bytes, say): closed() has given its place to a waiting call
        }
        for (Http1Call next = waiting.poll(); next != null; next = waiting.poll()) {
            if (!next.isDone() && connection.send(next)) {
                return;
            }
            if (connection.isClosed()) {
                dispatch(next);
                return;
            }
        }
        connection.enterIdle(System.nanoTime());
        idle.offerFirst(connection);
        idleCount.incrementAndGet();
        serveWaiting();
    }

    /** A connection that closed, or failed to open (null): its place may serve a waiting call. */
    void closed(Http1Connection connection) {
        if (connection != null && connection.leaveIdle()) {
            idleCount.decrementAndGet();
            idle.removeLastOccurrence(connection); // the long idle are near the bottom of the stack
        }
        open.decrementAndGet();
        serveWaiting();
    }

    /** Takes an idle connection back for closing; false when a call took it first. */
    boolean takeForClose(Http1Connection connection) {
        if (connection.leaveIdle()) {
            idleCount.decrementAndGet();
            idle.removeLastOccurrence(connection);
            return true;
        }
        return false;
    }

    /** Gives waiting calls the idle connections and the free places, while both remain. */
    private void serveWaiting() {
        while (!waiting.isEmpty()) {
            Http1Connection connection = takeIdle();
            if (connection == null && !takePlace()) {
                return;
            }
            Http1Call next = waiting.poll();
            if (next == null || next.isDone()) {
                if (connection != null) {
                    release(connection);
                    return;
                }
                open.decrementAndGet();
                continue;
            }
            if (connection == null) {
                wire.connect(this, next);
            } else if (!connection.send(next)) {
                dispatch(next);
            }
        }
    }

    /**
     * Counts a new connection's place, if one is free. Never counts one it then gives back: a thread that
     * freed a place and came to serve the waiting calls would see it taken and leave, and the one that gave it
     * back would leave too, a call waiting beside a free place until its deadline.
     */
    private boolean takePlace() {
        for (int now = open.get(); now < partner.maxConnections(); now = open.get()) {
            if (open.compareAndSet(now, now + 1)) {
                return true;
            }
        }
        return false;
    }

    /** False when the call had left the queue already (a connection has it, or it has ended). */
    boolean unqueue(Http1Call call) {
        return waiting.remove(call);
    }

    /** Ends the waiting calls whose deadline has passed. */
    void expireWaiting(long now) {
        for (Iterator<Http1Call> it = waiting.iterator(); it.hasNext(); ) {
            Http1Call call = it.next();
            if (now - call.deadlineNanos >= 0 && waiting.remove(call)) {
                call.complete(0, null, new TimeoutException("no connection to " + partner.name()
                        + " came free within the call's timeout"), false);
            }
        }
    }

    /** Fails every waiting call (the wire stops). */
    void failWaiting(Throwable cause) {
        for (Http1Call call = waiting.poll(); call != null; call = waiting.poll()) {
            call.complete(0, null, cause, false);
        }
    }

    int open() {
        return open.get();
    }

    int idle() {
        return idleCount.get();
    }
}
