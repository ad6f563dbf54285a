package io.rc10k.broker.internal;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZJ_Result;

/**
 * {@link BufferBudget}, the client-wide bound on the response bytes being buffered: calls on different loops
 * reserve as their bodies grow and release when they end, at once. What must hold: the bytes reserved never
 * pass the maximum and never go below 0; a reservation is refused only when the bytes held at that moment
 * leave no room for it; and once every holder has released what it took, the budget is back at 0. Each
 * state: a budget of 10 bytes. Results: whether each actor's reservation was granted, then the bytes still
 * reserved. Checked against a {@code reserve} that sets the sum it computed instead of compare-and-setting it:
 * both tests fail (both granted; bytes left over, or below 0).
 */
public class BufferBudgetTest {
    static final long MAX_BYTES = 10;

    @JCStressTest
    @Description("BufferBudget: two calls each reserve 6 of 10 bytes at once; exactly one gets them")
    @Outcome(id = {"true, false, 6", "false, true, 6"}, expect = Expect.ACCEPTABLE,
            desc = "one reservation granted, the other refused: the budget is spent")
    @Outcome(id = "true, true, .*", expect = Expect.FORBIDDEN, desc = "both granted: 12 bytes held under a bound of 10")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "both refused beside room for one, or a reservation lost or counted twice")
    @State
    public static class OneOfTwoReservationsFits {
        private final BufferBudget budget = new BufferBudget(MAX_BYTES);

        @Actor
        public void firstCallGrows(ZZJ_Result r) {
            r.r1 = budget.reserve(6);
        }

        @Actor
        public void secondCallGrows(ZZJ_Result r) {
            r.r2 = budget.reserve(6);
        }

        @Arbiter
        public void arbiter(ZZJ_Result r) {
            r.r3 = budget.used();
        }
    }

    @JCStressTest
    @Description("BufferBudget: a call grows and ends while another reserves and ends; the budget returns to 0")
    @Outcome(id = {"true, true, 0", "true, false, 0", "false, true, 0"}, expect = Expect.ACCEPTABLE,
            desc = "each refusal found the other's bytes held; everything given back")
    @Outcome(id = "false, false, .*", expect = Expect.FORBIDDEN,
            desc = "both refused: at least one found room (4 + 5 and 8 alone fit in 10)")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "bytes left reserved after every holder released (a lost update), or below 0 (released twice)")
    @State
    public static class GrowAndReleaseReturnsToZero {
        private final BufferBudget budget = new BufferBudget(MAX_BYTES);
        /** What the growing call holds: its first buffer, reserved before the state is shared. */
        private long held = 4;

        public GrowAndReleaseReturnsToZero() {
            if (!budget.reserve(held)) {
                throw new AssertionError("an empty budget of " + MAX_BYTES + " refused " + held + " bytes");
            }
        }

        /** {@code BoundedBody.grow} by 4 more (4 + 4 + 5 would pass 10), then its end gives all back. */
        @Actor
        public void callGrowsThenEnds(ZZJ_Result r) {
            r.r1 = budget.reserve(4);
            if (r.r1) {
                held += 4;
            }
            budget.release(held);
        }

        /** Another call's first buffer of 5, given back when it ends. */
        @Actor
        public void otherCallReservesThenEnds(ZZJ_Result r) {
            r.r2 = budget.reserve(5);
            if (r.r2) {
                budget.release(5);
            }
        }

        @Arbiter
        public void arbiter(ZZJ_Result r) {
            r.r3 = budget.used();
        }
    }
}
