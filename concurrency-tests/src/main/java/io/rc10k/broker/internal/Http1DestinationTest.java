package io.rc10k.broker.internal;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.IIII_Result;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@link Http1Destination}'s idle stack and waiting queue, lock-free, on a partner of one connection that is
 * open and idle ({@link Http1Fixture}). Results: requests begun on a connection, calls left waiting, idle
 * connections.
 */
public class Http1DestinationTest {

    @JCStressTest
    @Description("Http1Destination: two calls start at once; one gets the idle connection, the other waits")
    @Outcome(id = "1, 1, 0", expect = Expect.ACCEPTABLE, desc = "one call on the connection, the other waiting")
    @Outcome(id = "2, .*", expect = Expect.FORBIDDEN, desc = "two calls given one connection at once")
    @Outcome(expect = Expect.FORBIDDEN, desc = "a call lost, or both waiting beside an idle connection")
    @State
    public static class IdleConnectionGoesToOneCall extends Http1Fixture.IdleAndCall {
        private final Http1Fixture.Events secondEvents = new Http1Fixture.Events();
        private final Http1Call second = Http1Fixture.call(destination, secondEvents);

        @Actor
        public void firstCallStarts() {
            call.start();
        }

        @Actor
        public void secondCallStarts() {
            second.start();
        }

        @Arbiter
        public void arbiter(III_Result r) {
            r.r1 = events.begun.get() + secondEvents.begun.get();
            r.r2 = (destination.unqueue(call) ? 1 : 0) + (destination.unqueue(second) ? 1 : 0);
            r.r3 = destination.idle();
        }
    }

    @JCStressTest
    @Description("Http1Destination: a connection comes back while a call starts; the call gets it, never strands")
    @Outcome(id = "1, 0, 0", expect = Expect.ACCEPTABLE, desc = "the call got the connection")
    @Outcome(id = "0, 1, 1", expect = Expect.FORBIDDEN,
            desc = "stranded: the call waits while the connection idles, until its deadline")
    @Outcome(expect = Expect.FORBIDDEN, desc = "the call lost, or given a connection twice")
    @State
    public static class ReleasedConnectionServesStartingCall extends Http1Fixture.IdleAndCall {
        /** Takes the idle connection, finds its abort and gives the connection back: {@link Http1Destination#release}. */
        private final Http1Call aborted = Http1Fixture.aborted(destination);

        @Actor
        public void abortedCallTakesAndReleases() {
            destination.dispatch(aborted);
        }

        @Actor
        public void callStarts() {
            call.start();
        }

        @Arbiter
        public void arbiter(III_Result r) {
            r.r1 = events.begun.get();
            r.r2 = destination.unqueue(call) ? 1 : 0;
            r.r3 = destination.idle();
        }
    }

    @JCStressTest
    @Description("Http1Destination: a call and the idle timeout take the idle connection at once; one gets it")
    @Outcome(id = "1, 0, 0", expect = Expect.ACCEPTABLE, desc = "the call got it; the idle check left it")
    @Outcome(id = "0, 1, 1", expect = Expect.ACCEPTABLE, desc = "taken for closing; the call waits for its place")
    @Outcome(id = "1, 1, .*", expect = Expect.FORBIDDEN, desc = "closed under the call it was given")
    @Outcome(expect = Expect.FORBIDDEN, desc = "the call lost, or the connection taken by neither")
    @State
    public static class IdleTakenOnceForCallOrClose extends Http1Fixture.IdleAndCall {

        @Actor
        public void callStarts() {
            call.start();
        }

        /** The loop's idle-timeout check ({@code Http1Connection.check}). */
        @Actor
        public void idleTimeout(III_Result r) {
            r.r2 = destination.takeForClose(connection) ? 1 : 0;
        }

        @Arbiter
        public void arbiter(III_Result r) {
            r.r1 = events.begun.get();
            r.r3 = destination.unqueue(call) ? 1 : 0;
        }
    }

    @JCStressTest
    @Description("Http1Destination: a place comes free as a call starts waiting for one; the call takes it")
    @Outcome(id = "0, 1", expect = Expect.ACCEPTABLE, desc = "the call opens a connection in the free place")
    @Outcome(id = "1, 0", expect = Expect.FORBIDDEN,
            desc = "stranded: the call waits beside a free place, until its deadline")
    @Outcome(expect = Expect.FORBIDDEN, desc = "the call lost, or a place counted twice")
    @State
    public static class FreedPlaceServesStartingCall {
        private final Http1Destination destination = Http1Fixture.destination();
        private final Http1Call call = Http1Fixture.call(destination, new Http1Fixture.Events());

        public FreedPlaceServesStartingCall() {
            Http1Fixture.connecting(destination); // the one place taken
        }

        @Actor
        public void callStarts() {
            call.start();
        }

        /** A connect failed ({@code Http1Wire.open}): its place is free again. */
        @Actor
        public void connectFails() {
            destination.closed(null);
        }

        @Arbiter
        public void arbiter(II_Result r) {
            r.r1 = destination.unqueue(call) ? 1 : 0;
            r.r2 = destination.open();
        }
    }

    @JCStressTest
    @Description("Http1Connection: the partner closes an idle connection as a call takes it; the call ends or goes on")
    @Outcome(id = "1, 1, 0, 0", expect = Expect.ACCEPTABLE, desc = "the request written, then ended by the close")
    @Outcome(id = "0, 1, 0, 0", expect = Expect.ACCEPTABLE, desc = "on the connection as it closed: ended by the close")
    @Outcome(id = "0, 0, 0, 1", expect = Expect.ACCEPTABLE, desc = "closed first: the call opens another connection")
    @Outcome(id = "0, 0, 1, 0", expect = Expect.FORBIDDEN,
            desc = "stranded: the call waits beside the closed connection's free place, until its deadline")
    @Outcome(expect = Expect.FORBIDDEN, desc = "the call left on a closed connection, lost, or ended twice")
    @State
    public static class IdleConnectionClosesAsCallTakesIt extends Http1Fixture.IdleAndCall {

        @Actor
        public void callStarts() {
            call.start();
        }

        /** The loop reads the partner's close of the idle connection ({@code Http1Receiver.eof}). */
        @Actor
        public void partnerCloses() {
            connection.close();
        }

        /** Requests written, calls ended, calls waiting, places taken. */
        @Arbiter
        public void arbiter(IIII_Result r) {
            r.r1 = events.begun.get();
            r.r2 = events.completed.get();
            r.r3 = destination.unqueue(call) ? 1 : 0;
            r.r4 = destination.open();
        }
    }
}
