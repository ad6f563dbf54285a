package io.rc10k.broker.internal;

import io.rc10k.broker.Outcome;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IL_Result;

/**
 * Identical cached calls make one partner call at a time: a call that finds no fresh answer and a call of
 * its key already out waits for that one. Each state: a leading call is out for the key (one partner call
 * made); it ends while an identical call starts. The actors do what {@code RealExchange} does, on the real
 * {@link ResponseCache}: the leader's {@code finish} (store, then {@code led}, then its waiters' answer), and
 * the newcomer's {@code servedByCache} (a fresh answer, or lead, or follow). A change to either method of
 * {@code RealExchange} is a change here.
 */
@JCStressTest
@Description("ResponseCache: a call that starts while the identical call out ends makes no second partner call")
@org.openjdk.jcstress.annotations.Outcome(id = {"1, hit", "1, coalesced"}, expect = Expect.ACCEPTABLE,
        desc = "one partner call: the newcomer got the stored answer, or waited for the leader's")
@org.openjdk.jcstress.annotations.Outcome(id = "2, called", expect = Expect.FORBIDDEN,
        desc = "the newcomer missed the answer before it was stored and the leader after it left: a second call")
@org.openjdk.jcstress.annotations.Outcome(expect = Expect.FORBIDDEN, desc = "not a way the newcomer can end")
@State
public class ResponseCacheSingleFlightTest {
    private static final long TTL_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final Outcome ANSWER = Outcome.response("p", 200, "application/json", new byte[] {'{', '}'}, 0, 1);

    private final ResponseCache cache = new ResponseCache(16, 1 << 20);
    private final ResponseCache.Key key = new ResponseCache.Key("GET", "http://p/weather?city=Paris", List.of());
    private final CompletableFuture<Outcome> leading = new CompletableFuture<>();

    public ResponseCacheSingleFlightTest() {
        if (cache.fresh(key, System.nanoTime()) != null || cache.lead(key, leading) != null) {
            throw new AssertionError("a new cache had an answer or a call out");
        }
    }

    /** {@code RealExchange.finish} of the leading call, for a 200 answer that may be cached. */
    @Actor
    public void leaderEnds() {
        cache.store(key, ANSWER, TTL_NANOS, System.nanoTime());
        cache.led(key, leading);
        leading.complete(ANSWER);
    }

    /** {@code RealExchange.servedByCache} of an identical call, then its partner call if it leads. */
    @Actor
    public void identicalCallStarts(IL_Result r) {
        Outcome hit = cache.fresh(key, System.nanoTime());
        if (hit != null) {
            r.r2 = "hit";
            return;
        }
        CompletableFuture<Outcome> mine = new CompletableFuture<>();
        CompletableFuture<Outcome> out = cache.lead(key, mine);
        if (out != null) {
            r.r2 = "coalesced";
            return;
        }
        Outcome stored = cache.fresh(key, System.nanoTime());
        if (stored != null) {
            cache.led(key, mine);
            mine.complete(stored);
            r.r2 = "hit";
            return;
        }
        r.r2 = "called";
    }

    /** Partner calls made: the leader's, and the newcomer's if it called. */
    @Arbiter
    public void arbiter(IL_Result r) {
        r.r1 = "called".equals(r.r2) ? 2 : 1;
    }
}
