package io.rc10k.broker.internal;

import io.rc10k.broker.Partner;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One h2c partner host's connections: at most {@code maxConnections} open (connecting ones count), each
 * carrying at most {@code maxStreamsPerConnection} streams (fewer when the partner says so); a call takes a
 * stream on the first connection with one free, a new connection when none has, or waits in arrival order.
 * Lock-free; any thread.
 */
final class H2cDestination {
    final Partner partner;
    final InetSocketAddress address;
    /** How long a connection without streams may stay open: the partner's {@link Partner#idleTimeout()}. */
    final long idleTimeoutNanos;
    private final H2cWire wire;
    private final List<H2cConnection> connections = new CopyOnWriteArrayList<>();
    /** The calls waiting for a stream, and the connections counted against {@code maxConnections}. */
    private final WaitingCalls<H2cCall> waiting;

    H2cDestination(H2cWire wire, Partner partner, URI base) {
        this.wire = wire;
        this.partner = partner;
        this.address = InetSocketAddress.createUnresolved(base.getHost(), Http1Destination.port(base));
        this.idleTimeoutNanos = partner.idleTimeout().toNanos();
        this.waiting = new WaitingCalls<>(partner.name(), partner.maxConnections(), "stream");
    }

    /** Whether {@code uri} is on this destination's host and port. */
    boolean serves(URI uri) {
        return address.getPort() == Http1Destination.port(uri) && address.getHostString().equals(uri.getHost());
    }

    /** Puts the call on a free stream, on a new connection, or in the queue. */
    void dispatch(H2cCall call) {
        Throwable early = call.aborted();
        if (early != null) {
            call.complete(0, null, early, false);
            return;
        }
        while (true) {
            H2cConnection connection = reserveAny();
            if (connection == null) {
                break;
            }
            if (connection.send(call)) {
                return;
            }
        }
        if (waiting.takePlace()) {
            open(call);
            return;
        }
        waiting.add(call);
        // A stream freed or a connection closed between the tries above and the add has not seen this call.
        serveWaiting();
    }

    /** A reserved stream on an open or connecting connection, or null when every one is full. */
    private H2cConnection reserveAny() {
        for (H2cConnection connection : connections) {
            if (connection.streams.reserve()) {
                return connection;
            }
        }
        return null;
    }

    private void open(H2cCall first) {
        H2cConnection connection = wire.newConnection(this);
        connection.streams.reserveFirst(); // before others can see it
        connections.add(connection);
        // Given the call before it connects: a connect that fails, even at once, ends the call with its cause.
        connection.send(first);
        wire.open(connection); // after the add: a connect that fails takes it off the list again
    }

    /** A stream ended on {@code connection}, or its partner's settings let it carry more: serve the queue. */
    void released(H2cConnection connection) {
        if (!waiting.isEmpty()) {
            serveWaiting();
        }
    }

    /** A connection that closed, or failed to open: its place may serve a waiting call. */
    void closed(H2cConnection connection) {
        if (connections.remove(connection)) {
            waiting.givePlaceBack();
        }
        serveWaiting();
    }

    /** Gives waiting calls free streams and free places, while both remain. */
    private void serveWaiting() {
        while (!waiting.isEmpty()) {
            H2cConnection connection = reserveAny();
            if (connection == null && !waiting.takePlace()) {
                return;
            }
            H2cCall next = waiting.poll();
            if (next == null || next.isDone()) {
                if (connection != null) {
                    connection.streams.release();
                } else {
                    waiting.givePlaceBack();
                }
                continue;
            }
            if (connection == null) {
                open(next);
            } else if (!connection.send(next)) {
                dispatch(next);
            }
        }
    }

    /** False when the call had left the queue already (a connection has it, or it has ended). */
    boolean unqueue(H2cCall call) {
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

    /** Open connections, those carrying streams, and those without. */
    int[] connections() {
        int open = 0;
        int active = 0;
        for (H2cConnection connection : connections) {
            open++;
            if (connection.streams.count() > 0) {
                active++;
            }
        }
        return new int[] {open, active, open - active};
    }
}
