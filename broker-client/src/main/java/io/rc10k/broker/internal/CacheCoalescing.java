package io.rc10k.broker.internal;

import io.rc10k.broker.Caching;
import io.rc10k.broker.Outcome;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A cached exchange's side of its partner's {@link ResponseCache} ({@link Caching}): answered by a fresh
 * entry at once, or waiting for an identical call already out (a follower), or calling the partner itself
 * and then sharing its answer with the cache and the calls that waited (the leader).
 *
 * <pre>{@code
 * CacheCoalescing coalescing = new CacheCoalescing(state.cache(), key, caching);
 * if (!coalescing.served(startNanos, exchange::endWith, exchange::askForItself)) {
 *     ... call the partner; with its answer: coalescing.cacheControl(fields.get(CACHE_CONTROL)) ...
 * }
 * Outcome told = coalescing.shared(outcome);      // as the exchange ends, once
 * }</pre>
 *
 * <p>Threading: {@link #served} on the thread that starts the exchange; its callbacks on the thread that ends
 * the identical call (or in {@link #served} when that one has ended already); {@link #shared} once, on the
 * thread that ends the exchange; {@link #following} from any thread.</p>
 */
final class CacheCoalescing {
    private final ResponseCache cache;
    private final ResponseCache.Key key;
    private final long ttlNanos;
    /** A leader's: what the identical calls that came meanwhile wait on. */
    private CompletableFuture<Outcome> leading;
    /** Waiting for an identical call's answer: nothing of its own is out. */
    private volatile boolean following;
    /** How long the leader's answer may be kept, under the partner's Cache-Control; set before it ends. */
    private volatile long answerTtlNanos;

    CacheCoalescing(ResponseCache cache, ResponseCache.Key key, Caching caching) {
        this.cache = cache;
        this.key = key;
        this.ttlNanos = caching.ttl().toNanos();
    }

    /**
     * As the exchange starts: true when it sends nothing now, answered by the cache (through {@code end}, at
     * once) or following an identical call already out (that call's answer goes to {@code end}; when it got
     * none, {@code askForItself} runs instead); false when this exchange leads and must call the partner.
     */
    boolean served(long startNanos, Consumer<Outcome> end, Runnable askForItself) {
        Outcome hit = cache.fresh(key, startNanos);
        if (hit != null) {
            end.accept(hit.fromCache("hit", System.nanoTime() - startNanos));
            return true;
        }
        CompletableFuture<Outcome> mine = new CompletableFuture<>();
        CompletableFuture<Outcome> out = cache.lead(key, mine);
        if (out == null) {
            // The call this one missed may have stored its answer and left between the look-up and the lead.
            Outcome stored = cache.fresh(key, System.nanoTime());
            if (stored != null) {
                cache.led(key, mine);
                mine.complete(stored);
                end.accept(stored.fromCache("hit", System.nanoTime() - startNanos));
                return true;
            }
            leading = mine;
            return false;
        }
        following = true;
        out.whenComplete((answer, never) -> {
            if (answer.hasResponse()) {
                end.accept(answer.fromCache("coalesced", System.nanoTime() - startNanos));
            } else {
                // The call it waited for got no answer (cancelled, timed out, …): this one may ask for itself.
                askForItself.run();
            }
        });
        return true;
    }

    /** Whether the exchange waits for an identical call: an abort then ends it at once, nothing being out. */
    boolean following() {
        return following;
    }

    /** The follower asks the partner itself, the call it waited for having got no answer. */
    void stopFollowing() {
        following = false;
    }

    /** The leader's answer came with this {@code Cache-Control} (or null): how long it may be kept. */
    void cacheControl(String cacheControl) {
        answerTtlNanos = ResponseCache.ttlUnder(cacheControl, ttlNanos);
    }

    /**
     * As the exchange ends: a leader stores a 200 answer that may be kept, then hands its outcome to the calls
     * that waited, and tells its own as a "miss"; anything else ends with {@code outcome} as it is.
     */
    Outcome shared(Outcome outcome) {
        CompletableFuture<Outcome> led = leading;
        if (led == null) {
            return outcome;
        }
        long ttl = answerTtlNanos;
        if (outcome.kind() == Outcome.Kind.OK && outcome.status() == 200 && ttl > 0) {
            cache.store(key, outcome, ttl, System.nanoTime());
        }
        cache.led(key, led);
        led.complete(outcome);
        return outcome.fromCache("miss", outcome.elapsedNanos());
    }
}
