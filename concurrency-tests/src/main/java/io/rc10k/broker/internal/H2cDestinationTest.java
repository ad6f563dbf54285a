package io.rc10k.broker.internal;

import java.util.concurrent.CancellationException;
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
 * it before it connects — on {@link H2cFixture}'s partner of one connection of one stream, whose connects never
 * complete, on a wire whose loop has ended (what is handed to it runs on the handing thread). Results: calls
 * completed, streams reserved on open connections (as connections with a stream), connections open.
 */
public class H2cDestinationTest {

    @JCStressTest
    @Description("H2cDestination: two calls start at once on a partner of one connection of one stream")
    @Outcome(id = "0, 1, 1", expect = Expect.ACCEPTABLE,
            desc = "one connection opened, one call on its stream, the other waiting")
    @Outcome(id = "0, 1, 2", expect = Expect.FORBIDDEN, desc = "two connections where one is allowed")
    @Outcome(expect = Expect.FORBIDDEN, desc = "a call lost or ended, or a stream given twice")
    @State
    public static class TwoCallsOneStream extends H2cFixture.DestinationAndCall {
        private final Http1Fixture.Events otherEvents = new Http1Fixture.Events();
        private final H2cCall other = H2cFixture.call(destination, otherEvents);

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
    public static class AbortAsItStarts extends H2cFixture.DestinationAndCall {
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
