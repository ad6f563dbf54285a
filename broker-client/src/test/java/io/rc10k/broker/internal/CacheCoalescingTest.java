package io.rc10k.broker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.broker.Caching;
import io.rc10k.broker.Outcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link CacheCoalescing}, driven directly over a real {@link ResponseCache}: a leader and its followers. */
class CacheCoalescingTest {
    private static final Caching CACHING = new Caching(Duration.ofMinutes(1));
    private static final Outcome ANSWER = Outcome.response("p", 200, "application/json",
            "{}".getBytes(StandardCharsets.US_ASCII), 0, 1);

    private final ResponseCache cache = new ResponseCache(16, 1 << 20);
    private final ResponseCache.Key key = new ResponseCache.Key("GET", "http://p/weather?city=Paris", List.of());
    private final List<Outcome> ended = new ArrayList<>();
    private final AtomicInteger askedForItself = new AtomicInteger();

    private CacheCoalescing call() {
        return new CacheCoalescing(cache, key, CACHING);
    }

    private boolean start(CacheCoalescing call) {
        return call.served(System.nanoTime(), ended::add, askedForItself::incrementAndGet);
    }

    @Test
    void theFirstCallLeadsAndItsIdenticalCallsWaitForItsAnswer() {
        CacheCoalescing leader = call();
        CacheCoalescing follower = call();
        assertFalse(start(leader), "the first call asks the partner");
        assertTrue(start(follower), "the identical one sends nothing");
        assertTrue(follower.following());
        assertTrue(ended.isEmpty());
        leader.cacheControl(null);
        Outcome told = leader.shared(ANSWER);
        assertEquals("miss", told.cache());
        assertEquals(1, ended.size());
        assertEquals("coalesced", ended.get(0).cache());
        assertEquals(200, ended.get(0).status());
        assertEquals(0, askedForItself.get());
    }

    @Test
    void aStoredAnswerServesTheNextCallAtOnceAsAHit() {
        CacheCoalescing leader = call();
        start(leader);
        leader.cacheControl("max-age=30");
        leader.shared(ANSWER);
        assertEquals(1, cache.size());
        assertTrue(start(call()));
        assertEquals(1, ended.size());
        assertEquals("hit", ended.get(0).cache());
        assertTrue(start(call()), "every later call is a hit too, while the entry is fresh");
        assertEquals("hit", ended.get(1).cache());
    }

    @Test
    void anAnswerThePartnerForbidsToKeepIsSharedButNotStored() {
        CacheCoalescing leader = call();
        CacheCoalescing follower = call();
        start(leader);
        start(follower);
        leader.cacheControl("no-store");
        leader.shared(ANSWER);
        assertEquals(0, cache.size());
        assertEquals("coalesced", ended.get(0).cache(), "the call that waited still gets it");
        assertFalse(start(call()), "the next call leads again");
    }

    @Test
    void aFollowerWhoseLeaderGotNoAnswerAsksForItself() {
        CacheCoalescing leader = call();
        CacheCoalescing follower = call();
        start(leader);
        start(follower);
        Outcome failed = Outcome.failure("p", Outcome.Kind.TIMEOUT, 0, new TimeoutException("no answer"), 0, 1);
        assertSame(Outcome.Kind.TIMEOUT, leader.shared(failed).kind());
        assertEquals(0, cache.size());
        assertTrue(ended.isEmpty());
        assertEquals(1, askedForItself.get());
        assertTrue(follower.following(), "until it says it stopped");
        follower.stopFollowing();
        assertFalse(follower.following());
    }

    @Test
    void aCallThatNeitherLedNorFollowedEndsWithItsOutcomeAsItIs() {
        CacheCoalescing neverStarted = call();
        assertSame(ANSWER, neverStarted.shared(ANSWER));
        assertNull(ANSWER.cache());
    }
}
