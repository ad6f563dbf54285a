package io.rc10k.broker.internal;

import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import io.rc10k.broker.PartnerStats;
import java.net.URI;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Per-partner admission and counters. Admission bounds exchanges in flight to the partner's
 * {@link Partner#capacity()}: what a full connection pool serves plus {@code maxQueued} waiting;
 * beyond it an exchange is REJECTED before anything is queued. Lock-free.
 */
public final class PartnerState {
    private final Partner partner;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Map<Outcome.Kind, LongAdder> outcomes = new EnumMap<>(Outcome.Kind.class);
    private final CircuitBreaker breaker;
    private final PartnerHosts hosts;
    private final BufferBudget buffers;
    private volatile ResponseCache cache;
    /**
     * The last call paths resolved, one per slot chosen by the path's hash, and their URIs: a call made
     * again and again is parsed and checked once, and a path built from request values stays only
     * until another path takes its slot.
     */
    private final AtomicReferenceArray<Resolved> resolved = new AtomicReferenceArray<>(RESOLVED_SLOTS);
    static final int RESOLVED_SLOTS = 64;
    /** Longer paths are not remembered. */
    static final int RESOLVED_MAX_LENGTH = 512;

    private record Resolved(String pathAndQuery, URI uri) {
    }

    /** @param buffers the client's budget of response bytes being received, shared by every partner */
    public PartnerState(Partner partner, BufferBudget buffers) {
        this.partner = partner;
        this.buffers = buffers;
        this.breaker = new CircuitBreaker(partner.name(), partner.circuitBreaker());
        this.hosts = new PartnerHosts(partner);
        for (Outcome.Kind kind : Outcome.Kind.values()) {
            outcomes.put(kind, new LongAdder());
        }
    }

    public Partner partner() {
        return partner;
    }

    /** The partner's hosts: where each attempt goes, which are ejected. */
    public PartnerHosts hosts() {
        return hosts;
    }

    BufferBudget buffers() {
        return buffers;
    }

    /** The partner's response cache, made on first use (calls without caching never make one). */
    ResponseCache cache() {
        ResponseCache c = cache;
        if (c == null) {
            synchronized (this) {
                c = cache;
                if (c == null) {
                    c = new ResponseCache(partner.cacheMaxEntries(), partner.cacheMaxBytes());
                    cache = c;
                }
            }
        }
        return c;
    }

    /** The URI {@code pathAndQuery} resolved to when it was last remembered, or null. */
    public URI resolvedBefore(String pathAndQuery) {
        Resolved last = resolved.get(slot(pathAndQuery));
        return last != null && last.pathAndQuery().equals(pathAndQuery) ? last.uri() : null;
    }

    /** Remembers a resolution that passed every check, in its path's slot (replacing what was there). */
    public void remember(String pathAndQuery, URI uri) {
        if (pathAndQuery.length() <= RESOLVED_MAX_LENGTH) {
            resolved.set(slot(pathAndQuery), new Resolved(pathAndQuery, uri));
        }
    }

    private static int slot(String pathAndQuery) {
        int h = pathAndQuery.hashCode();
        return (h ^ (h >>> 16)) & (RESOLVED_SLOTS - 1);
    }

    boolean tryAdmit() {
        int capacity = partner.capacity();
        while (true) {
            int now = inFlight.get();
            if (now >= capacity) {
                return false;
            }
            if (inFlight.compareAndSet(now, now + 1)) {
                return true;
            }
        }
    }

    void release() {
        inFlight.decrementAndGet();
    }

    /** @param breakerPermit what {@link #breakerPermit()} gave the call ({@code CircuitBreaker.ALLOWED} if none) */
    void record(Outcome.Kind kind, int status, long breakerPermit) {
        outcomes.get(kind).increment();
        breaker.record(kind, status, breakerPermit);
    }

    /** {@code CircuitBreaker.REFUSED} when the partner's breaker refuses a call now; else what to record it with. */
    long breakerPermit() {
        return breaker.allow();
    }

    /** {@code closed}, {@code open} or {@code half_open}. */
    public String breakerState() {
        return breaker.state().name().toLowerCase(Locale.ROOT);
    }

    public int inFlight() {
        return inFlight.get();
    }

    public Map<Outcome.Kind, Long> outcomes() {
        Map<Outcome.Kind, Long> copy = new EnumMap<>(Outcome.Kind.class);
        outcomes.forEach((kind, count) -> copy.put(kind, count.sum()));
        return copy;
    }

    /**
     * A snapshot for metrics.
     *
     * @param connections open, active and idle, as the partner's wire counts them
     */
    public PartnerStats stats(int[] connections) {
        List<PartnerStats.Host> all = hosts.all().stream()
                .map(h -> new PartnerStats.Host(h.label(), h.inFlight(), h.ejected(), h.ejections())).toList();
        return new PartnerStats(partner.name(), inFlight(), connections[0], connections[1], connections[2],
                outcomes(), breakerState(), all);
    }
}
