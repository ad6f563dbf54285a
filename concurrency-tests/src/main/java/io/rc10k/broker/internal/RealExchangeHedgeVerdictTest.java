package io.rc10k.broker.internal;

import java.io.EOFException;
import java.net.ConnectException;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIL_Result;

/**
 * A hedged {@link RealExchange} ends once, and the attempt that answered decides (its whole answer, or its
 * failure): a superseded attempt's end is dropped, and so is another attempt's failure while one has answered
 * or may still answer ({@link io.rc10k.broker.Hedging}). Each state: a hedged exchange with its first attempt
 * and its hedge out ({@link RealExchangeAdmissionTest#hedged}); the actors are the two calls' loops. Results:
 * the partner's exchanges in flight once both calls have ended (0), the calls made, and how the exchange ended.
 *
 * <p>Both failed before the fix (quick run, JDK 17): with the hedge still out, the failure of the attempt that
 * answered was dropped, then the hedge's end was dropped as superseded, and the exchange never ended, holding its
 * admission for good (an {@code expire()} found nothing to abort: 259,530 of 927,782 samples); and a hedge that
 * failed as the answering attempt ended could find no attempt out and decide in its place (1 to 3 samples). Now an
 * attempt's end is counted off ({@code Hedged.out}) before it leaves the live set, the attempt that answered
 * decides, and without an answer only the last to end does: none of either in a quick run.</p>
 */
public class RealExchangeHedgeVerdictTest {

    @JCStressTest
    @Description("RealExchange: a hedged exchange's first attempt answers as its hedge fails; the answer decides, "
            + "and each admission goes back once")
    @org.openjdk.jcstress.annotations.Outcome(id = "0, 2, OK", expect = Expect.ACCEPTABLE,
            desc = "answered; the exchange's admission and the hedge's each given back once")
    @org.openjdk.jcstress.annotations.Outcome(id = "0, 2, CONNECT_FAILED", expect = Expect.FORBIDDEN,
            desc = "the hedge's failure decided, though the first attempt had answered and was still ending")
    @org.openjdk.jcstress.annotations.Outcome(id = "-1, .*", expect = Expect.FORBIDDEN,
            desc = "an admission given back twice: the partner admits one exchange more than its capacity")
    @org.openjdk.jcstress.annotations.Outcome(id = "1, .*", expect = Expect.FORBIDDEN,
            desc = "an admission never given back: the partner admits one exchange fewer from now on")
    @org.openjdk.jcstress.annotations.Outcome(expect = Expect.FORBIDDEN, desc = "not a way this exchange can end")
    @State
    public static class HedgeFailsAsFirstAttemptAnswers {
        private final ExchangeFixture.LoopWire wire = new ExchangeFixture.LoopWire();
        private final PartnerState state = ExchangeFixture.partnerState();
        private final RealExchange exchange = RealExchangeAdmissionTest.hedged(wire, state);

        @Actor
        public void firstAttemptAnswers() {
            wire.calls.get(0).answer();
        }

        @Actor
        public void hedgeFailsToConnect() {
            wire.calls.get(1).fail(new ConnectException("connection refused"));
        }

        /** The hedge's loop, if the answer aborted it after it failed: nothing left to end. */
        @Arbiter
        public void arbiter(IIL_Result r) {
            for (ExchangeFixture.LoopCall call : wire.calls) {
                call.endIfAborted();
            }
            r.r1 = state.inFlight();
            r.r2 = wire.calls.size();
            r.r3 = RealExchangeAdmissionTest.kind(exchange);
        }
    }

    @JCStressTest
    @Description("RealExchange: a hedged exchange's first attempt answers, then fails mid-body, as its hedge's "
            + "loop ends the hedge; the exchange ends with the failure and gives its admissions back")
    @org.openjdk.jcstress.annotations.Outcome(id = "0, 2, RESET", expect = Expect.ACCEPTABLE,
            desc = "the attempt that answered decided, with its failure; both admissions given back")
    @org.openjdk.jcstress.annotations.Outcome(id = "1, 2, not ended", expect = Expect.FORBIDDEN,
            desc = "never ends; the answer's failure dropped while the superseded hedge was out, the hedge's "
                    + "end dropped as superseded; its admission held for good")
    @org.openjdk.jcstress.annotations.Outcome(id = "0, 2, CONNECT_FAILED", expect = Expect.FORBIDDEN,
            desc = "the hedge's failure decided, though the first attempt had answered and was still ending")
    @org.openjdk.jcstress.annotations.Outcome(expect = Expect.FORBIDDEN, desc = "not a way this exchange can end")
    @State
    public static class AnswerFailsAsHedgeEnds {
        private final ExchangeFixture.LoopWire wire = new ExchangeFixture.LoopWire();
        private final PartnerState state = ExchangeFixture.partnerState();
        private final RealExchange exchange = RealExchangeAdmissionTest.hedged(wire, state);

        @Actor
        public void firstAttemptAnswersThenFails() {
            wire.calls.get(0).answerThenFail(new EOFException("the partner closed the connection mid-body"));
        }

        /** The hedge's loop: the abort of the answer ends it, if it has come; else its connect fails. */
        @Actor
        public void hedgesLoopEndsIt() {
            wire.calls.get(1).fail(new ConnectException("connection refused"));
        }

        @Arbiter
        public void arbiter(IIL_Result r) {
            r.r1 = state.inFlight();
            r.r2 = wire.calls.size();
            r.r3 = RealExchangeAdmissionTest.kind(exchange);
        }
    }
}
