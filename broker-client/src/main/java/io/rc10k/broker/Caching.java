package io.rc10k.broker;

import java.time.Duration;

/**
 * A cached call: a 200 answer is kept in its partner's response cache for {@code ttl} — less when the
 * partner says {@code Cache-Control: max-age} (or {@code s-maxage}) shorter, not at all when it says
 * {@code no-store}, {@code no-cache} or {@code private} — keyed by method, URI and the caller's request
 * headers ({@code traceparent} and {@code tracestate} aside, which differ on every call). While a call
 * for a key is out, identical calls wait for its answer instead of calling the partner again. The
 * cache of each partner is bounded by its {@link Partner#cacheMaxEntries()} and
 * {@link Partner#cacheMaxBytes()}, least recently used first out. GET and HEAD only.
 *
 * @param ttl how long an answer may be served from the cache: 1 s to 1 day
 */
public record Caching(Duration ttl) {
    public Caching {
        if (ttl == null || ttl.toMillis() < 1_000 || ttl.toSeconds() > 86_400) {
            throw new IllegalArgumentException("caching for " + ttl + " (accepted: 1 s to 1 day)");
        }
    }
}
