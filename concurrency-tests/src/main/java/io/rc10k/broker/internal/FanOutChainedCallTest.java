package io.rc10k.broker.internal;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The two calls a chained call depends on end at the same moment on two threads: each stores its outcome,
 * then looks for the other's. At least one of them must see both and make the chained call, once; and the
 * fan-out must complete, once.
 */
@JCStressTest
@Description("FanOut: two dependencies of a chained call end at once; the call is made once, the fan-out completes")
@Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "the chained call made once, the fan-out completed")
@Outcome(id = "0, 0", expect = Expect.FORBIDDEN,
        desc = "each ending missed the other's outcome: the chained call never made, the fan-out hangs")
@Outcome(expect = Expect.FORBIDDEN, desc = "the chained call made twice, or the fan-out completed twice")
@State
public class FanOutChainedCallTest {
    private final ChainedFanOut fanOut = new LedgerFanOut();

    @Actor
    public void firstDependencyEnds() {
        fanOut.ended(0);
    }

    @Actor
    public void secondDependencyEnds() {
        fanOut.ended(1);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r1 = fanOut.chainedCalls();
        r.r2 = fanOut.completions();
    }
}
