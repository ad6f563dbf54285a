package io.rc10k.broker.internal;

import io.rc10k.broker.Caching;
import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.Hedging;
import io.rc10k.broker.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIL_Result;

/**
 * A partner's admission ({@code PartnerState.tryAdmit}) taken by a {@link RealExchange} goes back exactly once
 * ({@code RealExchange.releaseAdmission}), whichever of its ends comes first: completion through the wire, or
 * a cancel or expiry from another thread. Given back twice, the partner would admit more exchanges than its
 * capacity; never, its capacity would shrink until it refused every call. Real exchanges over
 * {@link ExchangeFixture.LoopWire}: the actors end the calls as their loops would. Results: the partner's
 * exchanges in flight once every call has ended (0), the calls made, and how the exchange ended.
 *
 * <p>Checked against two breaks: without the release by a {@code finish} that lost to an end that held no
 * admission, {@code FollowerCancelledAsItAsksForItself} leaves one admission taken; with
 * {@code releaseAdmission}'s compare-and-set replaced by a read and a plain write,
 * {@code ExpiredHedgedAttemptsEndTogether} gives one back twice.</p>
 */
public class RealExchangeAdmissionTest {

    @JCStressTest
    @Description("RealExchange: a cached call waiting for an identical one is cancelled as that one fails and it "
            + "begins asking for itself; its admission goes back once")
    @org.openjdk.jcstress.annotations.Outcome(id = {"0, 0, CANCELLED", "0, 1, CANCELLED"}, expect = Expect.ACCEPTABLE,
            desc = "cancelled, no admission left taken (with or without a call of its own made, then aborted)")
    @org.openjdk.jcstress.annotations.Outcome(id = "1, .*", expect = Expect.FORBIDDEN,
            desc = "its admission never given back: the partner admits one exchange fewer from now on")
    @org.openjdk.jcstress.annotations.Outcome(id = "-1, .*", expect = Expect.FORBIDDEN,
            desc = "its admission given back twice: the partner admits one exchange more than its capacity")
    @org.openjdk.jcstress.annotations.Outcome(expect = Expect.FORBIDDEN, desc = "not a way this exchange can end")
    @State
    public static class FollowerCancelledAsItAsksForItself {
        private final ExchangeFixture.LoopWire wire = new ExchangeFixture.LoopWire();
        private final PartnerState state = ExchangeFixture.partnerState();
        private final ResponseCache.Key key = new ResponseCache.Key("GET", ExchangeFixture.PATH.toString(), List.of());
        /** The identical call out, which this exchange waits for. */
        private final CompletableFuture<Outcome> leading = new CompletableFuture<>();
        private final RealExchange exchange;

        public FollowerCancelledAsItAsksForItself() {
            if (state.cache().lead(key, leading) != null) {
                throw new AssertionError("a new cache had a call out");
            }
            exchange = new RealExchange(wire, new ExchangeFixture.ManualScheduler(), Runnable::run, state, "GET",
                    ExchangeFixture.PATH, null, null, ExchangeListener.NONE, RealExchange.StopList.NONE, null,
                    new Caching(Duration.ofMinutes(1)), key, null).start();
            if (exchange.isDone() || state.inFlight() != 0 || !wire.calls.isEmpty()) {
                throw new AssertionError("the exchange did not wait for the identical call");
            }
        }

        /** {@code RealExchange.finish} of the identical call, which got no answer: the waiting one asks for itself. */
        @Actor
        public void identicalCallEndsWithoutAnswer() {
            state.cache().led(key, leading);
            leading.complete(Outcome.failure("p", Outcome.Kind.TIMEOUT, 0, new TimeoutException("no answer"), 0, 1));
        }

        @Actor
        public void callerCancels() {
            exchange.cancel();
        }

        /** The loop of the call it made, if any: the abort ends it. */
        @Arbiter
        public void arbiter(IIL_Result r) {
            for (ExchangeFixture.LoopCall call : wire.calls) {
                call.endIfAborted();
            }
            r.r1 = state.inFlight();
            r.r2 = wire.calls.size();
            r.r3 = kind(exchange);
        }
    }

    @JCStressTest
    @Description("RealExchange: both attempts of an expired hedged exchange end at once on their loops; each "
            + "admission goes back once")
    @org.openjdk.jcstress.annotations.Outcome(id = "0, 2, TIMEOUT", expect = Expect.ACCEPTABLE,
            desc = "expired; the exchange's admission and the hedge's each given back once")
    @org.openjdk.jcstress.annotations.Outcome(id = "-1, .*", expect = Expect.FORBIDDEN,
            desc = "an admission given back twice: the partner admits one exchange more than its capacity")
    @org.openjdk.jcstress.annotations.Outcome(id = "1, .*", expect = Expect.FORBIDDEN,
            desc = "an admission never given back: the partner admits one exchange fewer from now on")
    @org.openjdk.jcstress.annotations.Outcome(expect = Expect.FORBIDDEN, desc = "not a way this exchange can end")
    @State
    public static class ExpiredHedgedAttemptsEndTogether {
        private final ExchangeFixture.LoopWire wire = new ExchangeFixture.LoopWire();
        private final PartnerState state = ExchangeFixture.partnerState();
        private final RealExchange exchange = hedged(wire, state);

        public ExpiredHedgedAttemptsEndTogether() {
            exchange.expire(); // the fan-out's deadline: both calls aborted, each ended by its own loop
        }

        @Actor
        public void firstAttemptsLoopEndsIt() {
            wire.calls.get(0).endIfAborted();
        }

        @Actor
        public void hedgesLoopEndsIt() {
            wire.calls.get(1).endIfAborted();
        }

        @Arbiter
        public void arbiter(IIL_Result r) {
            r.r1 = state.inFlight();
            r.r2 = wire.calls.size();
            r.r3 = kind(exchange);
        }
    }

    /** A hedged exchange with its first attempt and its one hedge out, each admitted. */
    static RealExchange hedged(ExchangeFixture.LoopWire wire, PartnerState state) {
        ExchangeFixture.ManualScheduler scheduler = new ExchangeFixture.ManualScheduler();
        RealExchange exchange = new RealExchange(wire, scheduler, Runnable::run, state, "GET", ExchangeFixture.PATH,
                null, null, ExchangeListener.NONE, RealExchange.StopList.NONE, new Hedging(Duration.ofMillis(1), 1),
                null, null, null).start();
        scheduler.fire(); // the hedge timer: one more attempt, admitted on its own
        if (wire.calls.size() != 2 || state.inFlight() != 2) {
            throw new AssertionError("no hedge went out: calls " + wire.calls.size() + ", in flight "
                    + state.inFlight());
        }
        return exchange;
    }

    /** How the exchange ended, or "not ended". */
    static Object kind(RealExchange exchange) {
        Outcome outcome = exchange.outcome().toCompletableFuture().getNow(null);
        return outcome == null ? "not ended" : outcome.kind();
    }
}
