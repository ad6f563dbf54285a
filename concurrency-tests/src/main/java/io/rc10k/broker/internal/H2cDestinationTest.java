package io.rc10k.broker.internal;

import io.rc10k.broker.Partner;
import io.rc10k.broker.Protocol;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * {@link H2cDestination}'s streams and places, lock-free, and {@link H2cConnection}'s hold of the calls given to
 * it before it connects — on an h2c partner of one connection of one stream, whose connects never complete (its
 * host is a name, and the look-up is dropped) on a wire whose loop has ended (what is handed to it runs on the
 * handing thread). Results: calls completed, streams reserved on open connections (as connections with a
 * stream), connections open.
 */
public class H2cDestinationTest {
    static final Partner PARTNER = Partner.builder("p", "http://partner.invalid:8080").protocol(Protocol.H2C)
            .maxConnections(1).maxStreamsPerConnection(1).build();
    private static final URI PATH = URI.create("http://partner.invalid:8080/weather");
    private static final Executor DROP = task -> { };
    /** One for every state: its loop has ended, so each state only needs a destination of its own. */
    static final H2cWire WIRE = wire();

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

    static H2cCall call(H2cDestination destination, Http1Fixture.Events events) {
        return new H2cCall(destination, "GET", PATH, null, null, TimeUnit.MINUTES.toNanos(1), events);
    }

    /** A destination of its own and a call about to start. */
    static class DestinationAndCall {
        final H2cDestination destination = new H2cDestination(WIRE, PARTNER, PARTNER.baseUri());
        final Http1Fixture.Events events = new Http1Fixture.Events();
        final H2cCall call = call(destination, events);
    }

    @JCStressTest
    @Description("H2cDestination: two calls start at once on a partner of one connection of one stream")
    @Outcome(id = "0, 1, 1", expect = Expect.ACCEPTABLE,
            desc = "one connection opened, one call on its stream, the other waiting")
    @Outcome(id = "0, 1, 2", expect = Expect.FORBIDDEN, desc = "two connections where one is allowed")
    @Outcome(expect = Expect.FORBIDDEN, desc = "a call lost or ended, or a stream given twice")
    @State
    public static class TwoCallsOneStream extends DestinationAndCall {
        private final Http1Fixture.Events otherEvents = new Http1Fixture.Events();
        private final H2cCall other = call(destination, otherEvents);

        @Actor
        public void oneStarts() {
            call.start();
        }

        @Actor
        public void otherStarts() {
            other.start();
        }

        @Arbiter
        public void arbiter(III_Result r) {
            int waiting = (destination.unqueue(call) ? 1 : 0) + (destination.unqueue(other) ? 1 : 0);
            r.r1 = events.completed.get() + otherEvents.completed.get() + (waiting == 1 ? 0 : 10);
            r.r2 = destination.connections()[1];
            r.r3 = destination.connections()[0];
        }
    }

    @JCStressTest
    @Description("H2cDestination, H2cConnection: a call is aborted as it starts and is given to a connecting connection")
    @Outcome(id = "1, 0, 0", expect = Expect.ACCEPTABLE, desc = "aborted before it took a stream: ended, nothing opened")
    @Outcome(id = "1, 0, 1", expect = Expect.ACCEPTABLE,
            desc = "aborted on the connection: ended, its stream given back, the connection still connecting")
    @Outcome(id = "0, .*", expect = Expect.FORBIDDEN,
            desc = "the abort lost: the call holds its stream until the connect or its deadline")
    @Outcome(expect = Expect.FORBIDDEN, desc = "ended twice, or a stream kept by an ended call")
    @State
    public static class AbortAsItStarts extends DestinationAndCall {
        @Actor
        public void callStarts() {
            call.start();
        }

        @Actor
        public void callAborted() {
            call.abort(new CancellationException("cancelled as it started"));
        }

        @Arbiter
        public void arbiter(III_Result r) {
            r.r1 = events.completed.get();
            r.r2 = destination.connections()[1];
            r.r3 = destination.connections()[0];
        }
    }
}
