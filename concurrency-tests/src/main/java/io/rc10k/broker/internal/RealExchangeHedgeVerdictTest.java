package io.rc10k.broker.internal;

import java.io.EOFException;
import java.net.ConnectException;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIL_Result;

/**
 * A hedged {@link RealExchange} ends once, and the attempt that answered decides (its whole answer, or its
 * failure): a superseded attempt's end is dropped, and so is another attempt's failure while one has answered
 * or may still answer ({@link Hedges}). Each state: a hedged exchange with its first attempt and its hedge out
 * ({@link ExchangeFixture.Hedged}); the actors are the two calls' loops. What every state forbids, and its
 * results: {@link ExchangeFixture.Admissions}.
 *
 * <p>Both failed before the fix (quick run, JDK 17): with the hedge still out, the failure of the attempt that
 * answered was dropped, then the hedge's end was dropped as superseded, and the exchange never ended, holding its
 * admission for good (an {@code expire()} found nothing to abort: 259,530 of 927,782 samples); and a hedge that
 * failed as the answering attempt ended could find no attempt out and decide in its place (1 to 3 samples). Now an
 * attempt's end is counted off ({@code Hedges.ended}) before it leaves the live set, the attempt that answered
 * decides, and without an answer only the last to end does: none of either in a quick run.</p>
 */
public class RealExchangeHedgeVerdictTest {

    @JCStressTest
    @JCStressMeta(ExchangeFixture.Admissions.class)
    @Description("RealExchange: a hedged exchange's first attempt answers as its hedge fails; the answer decides, "
            + "and each admission goes back once")
    @Outcome(id = "0, 2, OK", expect = Expect.ACCEPTABLE,
            desc = "answered; the exchange's admission and the hedge's each given back once")
    @Outcome(id = "0, 2, CONNECT_FAILED", expect = Expect.FORBIDDEN,
            desc = "the hedge's failure decided, though the first attempt had answered and was still ending")
    @State
    public static class HedgeFailsAsFirstAttemptAnswers extends ExchangeFixture.Hedged {
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
            wire.endAborted();
            record(r);
        }
    }

    @JCStressTest
    @JCStressMeta(ExchangeFixture.Admissions.class)
    @Description("RealExchange: a hedged exchange's first attempt answers, then fails mid-body, as its hedge's "
            + "loop ends the hedge; the exchange ends with the failure and gives its admissions back")
    @Outcome(id = "0, 2, RESET", expect = Expect.ACCEPTABLE,
            desc = "the attempt that answered decided, with its failure; both admissions given back")
    @Outcome(id = "1, 2, not ended", expect = Expect.FORBIDDEN,
            desc = "never ends; the answer's failure dropped while the superseded hedge was out, the hedge's "
                    + "end dropped as superseded; its admission held for good")
    @Outcome(id = "0, 2, CONNECT_FAILED", expect = Expect.FORBIDDEN,
            desc = "the hedge's failure decided, though the first attempt had answered and was still ending")
    @State
    public static class AnswerFailsAsHedgeEnds extends ExchangeFixture.Hedged {
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
            record(r);
        }
    }
}
