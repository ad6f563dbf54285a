package io.rc10k.broker.internal;

import io.rc10k.broker.Caching;
import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressMeta;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIL_Result;

/**
 * A partner's admission taken by a {@link RealExchange} ({@link Admission#admit}) goes back exactly once
 * ({@link Admission#release}), whichever of its ends comes first: completion through the wire, or a cancel or
 * expiry from another thread. Given back twice, the partner would admit more exchanges than its capacity;
 * never, its capacity would shrink until it refused every call. Real exchanges over
 * {@link ExchangeFixture.LoopWire}: the actors end the calls as their loops would. What every state forbids,
 * and its results: {@link ExchangeFixture.Admissions}.
 *
 * <p>Checked against two breaks: without the release by a {@code finish} that lost to an end that held no
 * admission, {@code FollowerCancelledAsItAsksForItself} leaves one admission taken; with
 * {@code Admission.release}'s compare-and-set replaced by a read and a plain write,
 * {@code ExpiredHedgedAttemptsEndTogether} gives one back twice.</p>
 */
public class RealExchangeAdmissionTest {
    private static final Caching CACHING = new Caching(Duration.ofMinutes(1));

    @JCStressTest
    @JCStressMeta(ExchangeFixture.Admissions.class)
    @Description("RealExchange: a cached call waiting for an identical one is cancelled as that one fails and it "
            + "begins asking for itself; its admission goes back once")
    @org.openjdk.jcstress.annotations.Outcome(id = {"0, 0, CANCELLED", "0, 1, CANCELLED"}, expect = Expect.ACCEPTABLE,
            desc = "cancelled, no admission left taken (with or without a call of its own made, then aborted)")
    @State
    public static class FollowerCancelledAsItAsksForItself {
        private final ExchangeFixture.LoopWire wire = new ExchangeFixture.LoopWire();
        private final PartnerState state = ExchangeFixture.partnerState();
        private final ResponseCache.Key key = new ResponseCache.Key("GET", ExchangeFixture.PATH.toString(), List.of());
        /** The identical call out, which this exchange waits for. */
        private final CacheCoalescing identical = new CacheCoalescing(state.cache(), key, CACHING);
        private final RealExchange exchange;

        public FollowerCancelledAsItAsksForItself() {
            if (identical.served(System.nanoTime(), answer -> { }, () -> { })) {
                throw new AssertionError("a new cache had an answer or a call out");
            }
            exchange = new RealExchange(wire, new ExchangeFixture.ManualScheduler(), Runnable::run, state, "GET",
                    ExchangeFixture.PATH, null, null, ExchangeListener.NONE, RealExchange.StopList.NONE, null,
                    CACHING, key, null).start();
            if (exchange.isDone() || state.inFlight() != 0 || !wire.calls.isEmpty()) {
                throw new AssertionError("the exchange did not wait for the identical call");
            }
        }

        /** The identical call ends without an answer: the waiting one asks for itself. */
        @Actor
        public void identicalCallEndsWithoutAnswer() {
            identical.shared(Outcome.failure("p", Outcome.Kind.TIMEOUT, 0, new TimeoutException("no answer"), 0, 1));
        }

        @Actor
        public void callerCancels() {
            exchange.cancel();
        }

        /** The loop of the call it made, if any: the abort ends it. */
        @Arbiter
        public void arbiter(IIL_Result r) {
            wire.endAborted();
            ExchangeFixture.record(r, state, wire, exchange);
        }
    }

    @JCStressTest
    @JCStressMeta(ExchangeFixture.Admissions.class)
    @Description("RealExchange: both attempts of an expired hedged exchange end at once on their loops; each "
            + "admission goes back once")
    @org.openjdk.jcstress.annotations.Outcome(id = "0, 2, TIMEOUT", expect = Expect.ACCEPTABLE,
            desc = "expired; the exchange's admission and the hedge's each given back once")
    @State
    public static class ExpiredHedgedAttemptsEndTogether extends ExchangeFixture.Hedged {
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
            record(r);
        }
    }
}
