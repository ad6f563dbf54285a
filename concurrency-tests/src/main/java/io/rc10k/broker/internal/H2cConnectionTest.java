package io.rc10k.broker.internal;

import java.util.function.Function;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * {@link H2cConnection}'s life against a call that takes one of its streams ({@code H2cDestination.dispatch}:
 * {@link H2cStreams#reserve}, then {@link H2cConnection#send}): the idle close, the partner's close, its GOAWAY, a
 * failed connect. A call must end exactly once or be carried: on the connection's stream, or handed back to its
 * destination and given another connection; and a connection that closed counts no stream.
 *
 * <p>Each state: {@link H2cFixture}'s partner of one connection of one stream, its connection connected over a
 * fake channel and idle (its first call's stream 1 reset) or, for the failed connect, connecting with no call; and
 * a call about to start. What the actors hand the loop runs on the handing thread (at once, beside the loop actor:
 * a harsher schedule than a loop's, which runs it after what it is doing). Results: the call's ends; where
 * it is (0 nowhere, 1 on the connection's stream, 2 on another connection, 3 waiting for a stream); the connection
 * closed; the streams it counts.</p>
 *
 * <p>Failed before the fix it brought: a stream reserved as the connection closed, or held by a call the close
 * ended, stayed counted. Checked against breaks: the idle check not reading the stream count again after it stops
 * taking streams (or reading it before) ends a call it carries, rarely (a window of a few instructions);
 * {@code H2cSender.start} not checking that the connection still takes streams leaves a call on the closed
 * connection or on a stream after the GOAWAY; {@code H2cStreams.goingAway} outside the lock leaves one on a stream
 * the partner will not process; {@code send} not checking for a close leaves a call waiting for a connect that
 * failed (on a connected connection, {@code start} checks again under the same lock, so only the failed connect
 * sees that one).</p>
 */
public class H2cConnectionTest {

    @JCStressTest
    @Description("H2cConnection: the idle check closes the connection as a call takes its stream; the call is "
            + "carried, on it or on the next")
    @Outcome(id = "0, 1, 0, 1", expect = Expect.ACCEPTABLE,
            desc = "the call on the connection's stream: the check found it taken, or came first and left it open")
    @Outcome(id = "0, 2, 1, 0", expect = Expect.ACCEPTABLE,
            desc = "closed idle: the call, refused or handed back, on a new connection")
    @Outcome(id = "1, .*", expect = Expect.FORBIDDEN, desc = "the idle close ended the call it carried")
    @Outcome(id = "0, 2, 1, 1", expect = Expect.FORBIDDEN,
            desc = "the call moved on, but its stream stays counted on the closed connection")
    @Outcome(expect = Expect.FORBIDDEN, desc = "the call lost, or left waiting beside a free stream or place")
    @State
    public static class IdleCloseAsCallTakesStream extends OnIdleConnection {
        @Arbiter
        public void arbiter(IIII_Result r) {
            record(r);
        }

        @Actor
        public void callTakesAStream() {
            call.start();
        }

        /** The loop's tick once the connection has been idle for the partner's idle timeout. */
        @Actor
        public void idleCheck() {
            connection.check(System.nanoTime() + destination.idleTimeoutNanos);
        }
    }

    @JCStressTest
    @Description("H2cConnection: the partner closes the connection as a call is sent on it; the call ends once "
            + "or moves on")
    @Outcome(id = "1, 0, 1, 0", expect = Expect.ACCEPTABLE, desc = "on its stream as it closed: ended by the close")
    @Outcome(id = "0, 2, 1, 0", expect = Expect.ACCEPTABLE,
            desc = "closed first: the call, refused or handed back, on a new connection")
    @Outcome(id = "1, 0, 1, 1", expect = Expect.FORBIDDEN,
            desc = "ended by the close, but its stream stays counted on the closed connection")
    @Outcome(id = "0, 2, 1, 1", expect = Expect.FORBIDDEN,
            desc = "refused, but its stream stays counted on the closed connection")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "the call lost on the closed connection, or left waiting beside a free place")
    @State
    public static class CloseAsCallIsSent extends OnIdleConnection {
        @Arbiter
        public void arbiter(IIII_Result r) {
            record(r);
        }

        @Actor
        public void callIsSent() {
            call.start();
        }

        /** The loop reads the partner's close ({@code H2cReceiver}: end of stream). */
        @Actor
        public void partnerCloses() {
            connection.close();
        }
    }

    @JCStressTest
    @Description("H2cConnection, H2cStreams: the partner's GOAWAY (last stream 1) comes as a call is sent on "
            + "stream 3; the call is handed back and goes out on the next connection")
    @Outcome(id = "0, 2, 1, 0", expect = Expect.ACCEPTABLE,
            desc = "refused or handed back: on a new connection; the old one closed once it had no stream")
    @Outcome(id = "0, 1, .*", expect = Expect.FORBIDDEN,
            desc = "left on a stream the partner said it will not process: it waits for its deadline")
    @Outcome(id = "0, 2, 1, 1", expect = Expect.FORBIDDEN,
            desc = "handed back, but its stream stays counted on the closed connection")
    @Outcome(expect = Expect.FORBIDDEN, desc = "the call lost or ended, or the connection left open with no stream")
    @State
    public static class GoAwayAsCallIsSent extends OnIdleConnection {
        @Arbiter
        public void arbiter(IIII_Result r) {
            record(r);
        }

        @Actor
        public void callIsSentOnStream3() {
            call.start();
        }

        /** The loop reads the partner's GOAWAY ({@code H2cReceiver.onGoAway}): it took stream 1, the first call's. */
        @Actor
        public void partnerGoesAway() {
            connection.streams.goingAway(1);
        }
    }

    @JCStressTest
    @Description("H2cConnection: the connect fails as a call is given to the connecting connection; the call "
            + "ends once or moves on")
    @Outcome(id = "1, 0, 1, 0", expect = Expect.ACCEPTABLE,
            desc = "waiting for the connect as it failed: ended by the failure")
    @Outcome(id = "0, 2, 1, 0", expect = Expect.ACCEPTABLE,
            desc = "failed first: the call, refused, on a new connection")
    @Outcome(id = "0, 0, 1, 1", expect = Expect.FORBIDDEN,
            desc = "given to the connection after it closed: waits for a connect that never comes, unchecked")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "the call lost or left waiting, or a stream counted on the closed connection")
    @State
    public static class ConnectFailsAsCallIsSent extends OnRefusingConnection {
        @Arbiter
        public void arbiter(IIII_Result r) {
            record(r);
        }

        @Actor
        public void callWaitsForTheConnect() {
            call.start();
        }

        /** The loop learns that the partner refused the connect ({@code H2cConnection.ready}). */
        @Actor
        public void connectFails() {
            connection.ready(H2cFixture.CONNECTABLE);
        }
    }

    /** A state's start: the destination's one connection, connected and idle, and a call about to start. */
    static class OnIdleConnection extends ConnectionAndCall {
        OnIdleConnection() {
            super(H2cFixture::idle);
        }
    }

    /** A state's start: the destination's one connection, its connect about to fail, and a call about to start. */
    static class OnRefusingConnection extends ConnectionAndCall {
        OnRefusingConnection() {
            super(H2cFixture::refusing);
        }
    }

    /** A state's start: the destination's one connection, as {@code make} leaves it, and a call about to start. */
    static class ConnectionAndCall extends H2cFixture.DestinationAndCall {
        final H2cConnection connection;

        ConnectionAndCall(Function<H2cDestination, H2cConnection> make) {
            this.connection = make.apply(destination);
        }

        /** Results: see the class javadoc. */
        void record(IIII_Result r) {
            r.r1 = events.completed.get();
            r.r2 = where();
            r.r3 = connection.isClosed() ? 1 : 0;
            r.r4 = connection.streams.count();
        }

        private int where() {
            if (destination.unqueue(call)) {
                return 3;
            }
            H2cConnection on = call.connection;
            if (on == null || on.isClosed()) {
                return 0;
            }
            if (on != connection) {
                return 2;
            }
            return call.streamId != 0 && connection.streams.get(call.streamId) == call ? 1 : 0;
        }
    }
}
