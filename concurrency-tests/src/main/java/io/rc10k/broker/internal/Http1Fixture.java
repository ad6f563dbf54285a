package io.rc10k.broker.internal;

import io.rc10k.broker.Partner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpFields;

/**
 * Real {@link Http1Destination}s, {@link Http1Call}s and {@link Http1Connection}s without sockets or running
 * loops. One wire for every test state, never started: its partner's host is a name, so a connect first
 * hands a look-up to the executor, which drops it (the call stays connecting, its place counted). A
 * connection writes into a {@link FakeSocketChannel}.
 */
final class Http1Fixture {
    /** One connection at most: a second call waits for it. */
    static final Partner PARTNER = Partner.builder("p", "http://partner.invalid:8080").maxConnections(1).build();
    private static final Executor DROP = task -> { };
    static final Http1Wire WIRE = wire();
    private static final URI PATH = URI.create("http://partner.invalid:8080/weather");
    private static final InetSocketAddress ADDRESS = InetSocketAddress.createUnresolved("partner.invalid", 8080);

    private Http1Fixture() {
    }

    private static Http1Wire wire() {
        try {
            return new Http1Wire(List.of(PARTNER), DROP, 1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A loop (of a wire of its own) that has ended: what a thread hands it ({@link Http1Loop#execute}) runs on
     * that thread at once, instead of piling up, millions of times a run, in the queue of a loop that never runs.
     */
    static Http1Loop endedLoop() {
        Http1Loop loop = wire().loop(0);
        try {
            loop.stop(0); // tells it to end, without waiting: it has not begun
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        loop.run(); // begins and ends at once, as a stopped loop does: its selector closed
        return loop;
    }

    static Http1Destination destination() {
        return new Http1Destination(WIRE, PARTNER);
    }

    static Http1Call call(Http1Destination destination, Events events) {
        return new Http1Call(destination, "GET", PATH, null, TimeUnit.MINUTES.toNanos(1), events);
    }

    /** A call aborted while it was starting: whoever gives it a connection ends it there. */
    static Http1Call aborted(Http1Destination destination) {
        Http1Call call = call(destination, new Events());
        call.abort(new CancellationException("aborted while starting"));
        return call;
    }

    /** A call that took a place and is connecting (for ever: the look-up is dropped). */
    static Http1Call connecting(Http1Destination destination) {
        int open = destination.open();
        Http1Call call = call(destination, new Events());
        call.start();
        if (destination.open() != open + 1) {
            throw new AssertionError("the call took no place: open " + destination.open());
        }
        return call;
    }

    /** The destination's one connection, on its idle stack, as after its first exchange. */
    static Http1Connection idle(Http1Destination destination) {
        return idle(destination, new FakeSocketChannel(), WIRE.loop(0));
    }

    /** The destination's one connection over {@code channel}, on {@code loop}, on its idle stack. */
    static Http1Connection idle(Http1Destination destination, FakeSocketChannel channel, Http1Loop loop) {
        Http1Call first = connecting(destination);
        Http1Connection connection = new Http1Connection(loop, destination, channel, first, ADDRESS);
        // Its call ends with nothing written (the path a connection takes back to the stack from any thread).
        if (!connection.send(aborted(destination)) || destination.open() != 1 || destination.idle() != 1) {
            throw new AssertionError("the connection did not go idle: open " + destination.open() + ", idle "
                    + destination.idle());
        }
        return connection;
    }

    /** A state's start: the destination's one connection, open and idle, and a call about to start. */
    static class IdleAndCall {
        final Http1Destination destination = destination();
        final Http1Connection connection = idle(destination);
        final Events events = new Events();
        final Http1Call call = call(destination, events);
    }

    /** What a call heard: requests begun on a connection, completions. */
    static final class Events implements Wire.Events {
        final AtomicInteger begun = new AtomicInteger();
        final AtomicInteger completed = new AtomicInteger();

        @Override
        public void onBegin() {
            begun.incrementAndGet();
        }

        @Override
        public void onSent() {
        }

        @Override
        public void onHeaders(int status, HttpFields headers) {
        }

        @Override
        public void onContent(ByteBuffer content) {
        }

        @Override
        public void onComplete(int status, HttpFields headers, Throwable failure, boolean kept) {
            completed.incrementAndGet();
        }
    }
}
