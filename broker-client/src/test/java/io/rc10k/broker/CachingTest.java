package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.PartnerStubsExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The partner response cache, against a real stub: its count of requests served is the witness. */
class CachingTest {
    @RegisterExtension
    static final PartnerStubsExtension stubs = new PartnerStubsExtension();
    private static final CallOptions CACHED = CallOptions.NONE.withCaching(new Caching(Duration.ofSeconds(30)));

    private BrokerClient broker;

    @BeforeEach
    void startBroker() throws Exception {
        broker = BrokerClient.builder().partner(Partner.builder("stub", stubs.uri().toString()).cacheMaxEntries(2)
                .build()).build();
        broker.start();
    }

    @AfterEach
    void stopBroker() throws Exception {
        broker.stop();
    }

    private Outcome get(String path) throws Exception {
        return broker.send(Call.to("stub").path(path).options(CACHED).build()).outcome()
                .toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private long served() throws InterruptedException {
        ExchangeTest.awaitCondition(() -> stubs.stats().inFlight() == 0, "the stubs still answer");
        return stubs.stats().served();
    }

    @Test
    void concurrentIdenticalCallsMakeOnePartnerCallAndLaterOnesHitTheCache() throws Exception {
        long before = served();
        List<Exchange> exchanges = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            exchanges.add(broker.send(Call.to("stub").path("stub?delay=300&id=together").options(CACHED).build()));
        }
        Map<String, Integer> how = new TreeMap<>();
        for (Exchange exchange : exchanges) {
            Outcome outcome = exchange.outcome().toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertEquals(Outcome.Kind.OK, outcome.kind(), outcome.toString());
            assertTrue(outcome.bodyAsString().contains("together"), outcome.bodyAsString());
            how.merge(outcome.cache(), 1, Integer::sum);
        }
        assertEquals(1, how.get("miss"), how.toString());
        assertEquals(99, how.getOrDefault("coalesced", 0) + how.getOrDefault("hit", 0), how.toString());
        assertEquals("hit", get("stub?delay=300&id=together").cache());
        assertEquals(1, served() - before, stubs.stats().toJson());
        assertEquals(0, broker.exchangesInFlight());
    }

    @Test
    void thePartnersCacheControlDecidesWhatIsKept() throws Exception {
        long before = served();
        assertEquals("miss", get("stub?id=a&cacheControl=no-store").cache());
        assertEquals("miss", get("stub?id=a&cacheControl=no-store").cache());
        assertEquals("miss", get("stub?id=b&cacheControl=max-age%3D0").cache());
        assertEquals("miss", get("stub?id=b&cacheControl=max-age%3D0").cache());
        assertEquals("miss", get("stub?id=c&cacheControl=max-age%3D60").cache());
        assertEquals("hit", get("stub?id=c&cacheControl=max-age%3D60").cache());
        assertEquals(5, served() - before, stubs.stats().toJson());
    }

    @Test
    void errorsAreNotKeptAndTheCacheIsBounded() throws Exception {
        assertEquals("miss", get("stub?id=e&status=500").cache());
        assertEquals("miss", get("stub?id=e&status=500").cache());
        // cacheMaxEntries is 2: a third answer pushes out the least recently used.
        get("stub?id=1");
        get("stub?id=2");
        assertEquals("hit", get("stub?id=1").cache());
        get("stub?id=3");
        assertEquals("miss", get("stub?id=2").cache(), "the least recently used answer was dropped");
    }

    @Test
    void aCallWaitingForAnIdenticalOneEndsAtItsOwnDeadline() throws Exception {
        Exchange leader = broker.send(Call.to("stub").path("stub?delay=5000&id=long").options(CACHED).build());
        FanOutResult waiting = broker.fanOut(Duration.ofMillis(200))
                .add(Call.to("stub").path("stub?delay=5000&id=long").options(CACHED).build())
                .start().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertEquals(Outcome.Kind.TIMEOUT, waiting.outcomes().get(0).kind());
        assertFalse(leader.isDone(), "the call out is not held up by the one that gave up waiting");
        assertEquals(Outcome.Kind.OK, leader.outcome().toCompletableFuture().get(30, TimeUnit.SECONDS).kind());
    }

    @Test
    void onlyReadsMayBeCached() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> broker.send(Call.to("stub").method("POST").path("stub").options(CACHED).build()));
        assertTrue(e.getMessage().contains("cannot be cached"), e.getMessage());
    }
}
