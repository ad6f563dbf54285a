package io.rc10k.broker.internal;

import io.rc10k.broker.Caching;
import io.rc10k.broker.Outcome;
import java.time.Duration;
import java.util.List;
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
 * made); it ends while an identical call starts. The actors are two {@link CacheCoalescing}s on the real
 * {@link ResponseCache}: the leader's {@code shared} (store, then {@code led}, then its waiters' answer), and
 * the newcomer's {@code served} (a fresh answer, or lead, or follow).
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
    private static final Caching CACHING = new Caching(Duration.ofMinutes(1));
    private static final Outcome ANSWER = Outcome.response("p", 200, "application/json", new byte[] {'{', '}'}, 0, 1);

    private final ResponseCache cache = new ResponseCache(16, 1 << 20);
    private final ResponseCache.Key key = new ResponseCache.Key("GET", "http://p/weather?city=Paris", List.of());
    private final CacheCoalescing leader = new CacheCoalescing(cache, key, CACHING);
    private final CacheCoalescing newcomer = new CacheCoalescing(cache, key, CACHING);
    /** How the newcomer ended: "hit", "coalesced", "called" (it led), or "asked for itself". */
    private volatile String how = "not ended";

    public ResponseCacheSingleFlightTest() {
        if (leader.served(System.nanoTime(), answer -> { }, () -> { })) {
            throw new AssertionError("a new cache had an answer or a call out");
        }
        leader.cacheControl(null); // the partner's answer may be kept for the call's whole ttl
    }

    /** The leading call ends with a 200 answer that may be cached. */
    @Actor
    public void leaderEnds() {
        leader.shared(ANSWER);
    }

    /** An identical call starts, then makes its partner call if it leads. */
    @Actor
    public void identicalCallStarts() {
        if (!newcomer.served(System.nanoTime(), answer -> how = answer.cache(), () -> how = "asked for itself")) {
            how = "called";
        }
    }

    /** Partner calls made: the leader's, and the newcomer's if it called; how the newcomer ended. */
    @Arbiter
    public void arbiter(IL_Result r) {
        r.r2 = how;
        r.r1 = "called".equals(how) ? 2 : 1;
    }
}
