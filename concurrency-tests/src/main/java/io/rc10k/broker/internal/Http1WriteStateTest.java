package io.rc10k.broker.internal;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * The hand-over of a connection between the thread that writes a request ({@code Http1Connection.write}) and
 * the loop that reads its answer ({@code Http1Connection.answered}): a partner may answer before the sender is back
 * from writing, and the connection goes back to its pool only once the whole request is out. What must hold,
 * whichever of "the write returned" and "the answer ended" comes first: a request's bytes never begin on the
 * connection before the last one's all went out, the connection is given back exactly once when they did (and
 * its waiting call gets it), or closed when they did not, and the call ends once. {@code Http1Call.writeState}
 * decides: each side compare-and-sets it from {@code WRITING}, and the loser acts on what the winner wrote.
 *
 * <p>Each state: the destination's one connection ({@link Http1Fixture}), over an {@link AnsweringChannel},
 * taken off its idle stack as a starting call takes it; a second call waits for it. The sender sends the
 * first call on it; the loop, once the request has begun to arrive, reads and parses the partner's answer on
 * it (its selector's "readable"). Results: requests the waiting call began on the connection, requests begun
 * over unwritten bytes, the connection closed, the first call's ends, and its {@code writeState} (1 the write
 * returned first, 2 the loop was left to write the rest, 3 the answer ended first).</p>
 *
 * <p>Checked against two breaks. With the compare-and-sets replaced by a read of the state and then a plain
 * write, both sides may read {@code WRITING}: neither gives the connection back nor closes it, and the waiting
 * call is stranded beside it (a window of a few instructions: a quick run sees it, but rarely). With no
 * hand-over at all (the loop gives the connection back unless it has request bytes of its own to write), the
 * waiting call's request begins inside the first one.</p>
 */
public class Http1WriteStateTest {
    /** Where the partial write's connection runs: the close, or the write of the rest, runs on the sender. */
    static final Http1Loop ENDED_LOOP = Http1Fixture.endedLoop();

    @JCStressTest
    @Description("Http1Connection: the answer ends as the sender's write of the whole request returns; the "
            + "connection serves the waiting call once, after the request is out")
    @Outcome(id = {"1, 0, 0, 1, 1", "1, 0, 0, 1, 3"}, expect = Expect.ACCEPTABLE,
            desc = "the waiting call got the connection once the request was out (returned first, or answered first)")
    @Outcome(id = "1, 1, .*", expect = Expect.FORBIDDEN,
            desc = "given back while the request was still being written: the next request begun inside it")
    @Outcome(id = "0, 0, 0, .*", expect = Expect.FORBIDDEN,
            desc = "given back by neither side: the waiting call is stranded beside it")
    @Outcome(expect = Expect.FORBIDDEN, desc = "closed, given back twice, or the call not ended once")
    @State
    public static class AnswerRacesWholeWrite extends Race {
        public AnswerRacesWholeWrite() {
            super(new AnsweringChannel(Integer.MAX_VALUE), Http1Fixture.WIRE.loop(0));
        }

        @Actor
        public void senderWritesTheWholeRequest() {
            send();
        }

        @Actor
        public void loopReadsTheAnswerAsTheWriteReturns() {
            readAnswer();
        }

        @Arbiter
        public void arbiter(IIIII_Result r) {
            record(r);
        }
    }

    @JCStressTest
    @Description("Http1Connection: the answer ends as the sender finds the socket took part of the request; the "
            + "connection is closed, never given to the waiting call")
    @Outcome(id = {"0, 0, 1, 1, 2", "0, 0, 1, 1, 3"}, expect = Expect.ACCEPTABLE,
            desc = "closed: the partner answered without the rest of the request (left to the loop, or answered first)")
    @Outcome(id = "1, 1, .*", expect = Expect.FORBIDDEN,
            desc = "given back with the request's rest unwritten: the next request begun inside it")
    @Outcome(id = "0, 0, 0, .*", expect = Expect.FORBIDDEN,
            desc = "neither closed nor given back: the waiting call is stranded beside it")
    @Outcome(expect = Expect.FORBIDDEN, desc = "given back or closed twice, or the call not ended once")
    @State
    public static class AnswerRacesPartialWrite extends Race {
        /** Takes 8 bytes a write: the loop must write the rest when the socket has room. */
        public AnswerRacesPartialWrite() {
            super(new AnsweringChannel(8), ENDED_LOOP);
        }

        @Actor
        public void senderWritesPartOfTheRequest() {
            send();
        }

        @Actor
        public void loopReadsTheAnswerAsTheSocketFills() {
            readAnswer();
        }

        @Arbiter
        public void arbiter(IIIII_Result r) {
            record(r);
        }
    }

    /**
     * A state's start: the destination's one connection over {@code channel}, on {@code loop}, taken off its idle
     * stack as a starting call does (then sends on it); a second call that finds neither an idle connection nor a
     * free place waits; the first call is yet to be sent.
     */
    static class Race {
        final Http1Destination destination = Http1Fixture.destination();
        final Http1Fixture.Events firstEvents = new Http1Fixture.Events();
        final Http1Fixture.Events waitingEvents = new Http1Fixture.Events();
        final AnsweringChannel channel;
        final Http1Connection connection;
        final Http1Call first;

        Race(AnsweringChannel channel, Http1Loop loop) {
            this.channel = channel;
            this.connection = Http1Fixture.idle(destination, channel, loop);
            this.first = Http1Fixture.call(destination, firstEvents);
            if (!destination.takeForClose(connection)) {
                throw new AssertionError("the idle connection could not be taken");
            }
            Http1Fixture.call(destination, waitingEvents).start();
            if (waitingEvents.begun.get() != 0 || destination.open() != 1 || destination.idle() != 0) {
                throw new AssertionError("the second call did not wait: begun " + waitingEvents.begun.get()
                        + ", open " + destination.open() + ", idle " + destination.idle());
            }
        }

        /** The sender: {@code Http1Destination.sendOnIdle}, with the connection it took. */
        void send() {
            connection.send(first);
        }

        /** The loop: the partner answers once the request has begun to arrive, and the selector says so. */
        void readAnswer() {
            while (!channel.requestArrived()) {
                Thread.onSpinWait();
            }
            connection.ready(AnsweringChannel.READABLE);
        }

        /** Results: see the class javadoc. */
        void record(IIIII_Result r) {
            r.r1 = waitingEvents.begun.get();
            r.r2 = channel.interleaved.get();
            r.r3 = connection.isClosed() ? 1 : 0;
            r.r4 = firstEvents.completed.get();
            r.r5 = first.writeState;
        }
    }
}
