package io.rc10k.broker.internal;

import io.rc10k.broker.Partner;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.ConcurrentLinkedDeque;
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
    /** The calls waiting for a connection, and the connections counted against {@code maxConnections}. */
    private final WaitingCalls<Http1Call> waiting;

    Http1Destination(Http1Wire wire, Partner partner) {
        this(wire, partner, partner.baseUri());
    }

    /** @param base one of the partner's hosts ({@link Partner#baseUris()}): a destination and a pool per host */
    Http1Destination(Http1Wire wire, Partner partner, URI base) {
        this.wire = wire;
        this.partner = partner;
        this.address = InetSocketAddress.createUnresolved(base.getHost(), port(base));
        this.idleTimeoutNanos = partner.idleTimeout().toNanos();
        this.waiting = new WaitingCalls<>(partner.name(), partner.maxConnections(), "connection");
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
        if (waiting.takePlace()) {
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
        waiting.givePlaceBack();
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
            if (connection == null && !waiting.takePlace()) {
                return;
            }
            Http1Call next = waiting.poll();
            if (next == null || next.isDone()) {
                if (connection != null) {
                    release(connection);
                    return;
                }
                waiting.givePlaceBack();
                continue;
            }
            if (connection == null) {
                wire.connect(this, next);
            } else if (!connection.send(next)) {
                dispatch(next);
            }
        }
    }

    /** False when the call had left the queue already (a connection has it, or it has ended). */
    boolean unqueue(Http1Call call) {
        return waiting.remove(call);
    }

    /** Ends the waiting calls whose deadline has passed. */
    void expireWaiting(long now) {
        waiting.expire(now);
    }

    /** Fails every waiting call (the wire stops). */
    void failWaiting(Throwable cause) {
        waiting.failAll(cause);
    }

    int open() {
        return waiting.places();
    }

    int idle() {
        return idleCount.get();
    }
}
