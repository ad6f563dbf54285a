package io.rc10k.broker.internal;

import io.rc10k.broker.Partner;
import io.rc10k.broker.Protocol;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.nio.channels.SelectionKey;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.ArrayByteBufferPool;

/**
 * Real {@link H2cDestination}s, {@link H2cConnection}s and {@link H2cCall}s without sockets or a running loop, on
 * an h2c partner of one connection of one stream. One wire for every test state: its partner's host is a name, so
 * a connect first hands a look-up to the executor, which drops it (the connection stays connecting, its place
 * counted); its one loop has ended, so what a thread hands it runs on that thread at once. A connection
 * connected here writes into a {@link FakeSocketChannel}.
 */
final class H2cFixture {
    static final Partner PARTNER = Partner.builder("p", "http://partner.invalid:8080").protocol(Protocol.H2C)
            .maxConnections(1).maxStreamsPerConnection(1).build();
    private static final URI PATH = URI.create("http://partner.invalid:8080/weather");
    private static final Executor DROP = task -> { };
    static final H2cWire WIRE = wire();
    /** What the selector hands a connection whose connect has finished, or failed. */
    static final SelectionKey CONNECTABLE = new FakeSelectionKey(SelectionKey.OP_CONNECT);

    private H2cFixture() {
    }

    private static H2cWire wire() {
        try {
            Http1Wire loops = new Http1Wire(List.of(PARTNER), DROP, 1);
            Http1Loop loop = loops.loop(0);
            loop.stop(0); // tells it to end, without waiting: it has not begun
            loop.run(); // begins and ends at once, its selector closed
            return new H2cWire(List.of(PARTNER), loops, new ArrayByteBufferPool());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    static H2cDestination destination() {
        return new H2cDestination(WIRE, PARTNER, PARTNER.baseUri());
    }

    static H2cCall call(H2cDestination destination, Http1Fixture.Events events) {
        return new H2cCall(destination, "GET", PATH, null, null, TimeUnit.MINUTES.toNanos(1), events);
    }

    /**
     * The destination's one connection, connected over a {@link FakeSocketChannel} and idle: a first call opened
     * it and took stream 1, and its abort reset the stream, as after a first exchange.
     */
    static H2cConnection idle(H2cDestination destination) {
        H2cCall first = opening(destination);
        H2cConnection connection = connecting(first.connection, new FakeSocketChannel());
        connection.ready(CONNECTABLE); // the connect finished: the preface and the first call's request written
        return withoutFirst(first, 1);
    }

    /**
     * The destination's one connection, connecting, with no call (its first call aborted while it waited): the
     * partner refuses the connect, which the loop learns at the next {@link #CONNECTABLE} it is handed.
     */
    static H2cConnection refusing(H2cDestination destination) {
        H2cCall first = opening(destination);
        connecting(first.connection, new RefusingChannel());
        return withoutFirst(first, 0);
    }

    /** A connection the loop is connecting over {@code channel}, as {@code H2cConnection.open} leaves it. */
    private static H2cConnection connecting(H2cConnection connection, FakeSocketChannel channel) {
        connection.channel = channel;
        connection.key = CONNECTABLE;
        return connection;
    }

    /** A first call that takes the one place: a connection whose look-up is dropped, the call waiting on it. */
    private static H2cCall opening(H2cDestination destination) {
        H2cCall first = call(destination, new Http1Fixture.Events());
        first.start();
        return first;
    }

    /** Aborts the first call, leaving its connection with no stream, {@code lastStream} the last one it opened. */
    private static H2cConnection withoutFirst(H2cCall first, int lastStream) {
        H2cConnection connection = first.connection;
        first.abort(new CancellationException("the first call's end"));
        if (!first.isDone() || connection.streams.count() != 0 || connection.streams.lastId() != lastStream
                || first.destination.connections()[0] != 1) {
            throw new AssertionError("the connection kept its first call: " + first + ", streams "
                    + connection.streams.count() + ", last stream " + connection.streams.lastId()
                    + ", connections " + first.destination.connections()[0]);
        }
        return connection;
    }

    /** A state's start: a destination of its own and a call about to start. */
    static class DestinationAndCall {
        final H2cDestination destination = destination();
        final Http1Fixture.Events events = new Http1Fixture.Events();
        final H2cCall call = call(destination, events);
    }

    /** The other end of a connect the partner refuses. */
    private static final class RefusingChannel extends FakeSocketChannel {
        @Override
        public boolean finishConnect() throws IOException {
            throw new ConnectException("connection refused");
        }
    }
}
