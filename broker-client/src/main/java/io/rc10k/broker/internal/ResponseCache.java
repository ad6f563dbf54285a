package io.rc10k.broker.internal;

import io.rc10k.broker.Outcome;
import java.net.URI;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;

/**
 * One partner's cache of 200 answers for calls with {@code Caching}: bounded in entries and body
 * bytes, least recently used out first, each entry until its expiry. It also keeps the calls out per
 * key, so that identical calls while one is out wait for it instead of calling the partner again.
 * Thread-safe: the entries under one lock (short: lookups and stores), the calls out in a concurrent map.
 */
public final class ResponseCache {
    /** Bytes counted per entry beyond its body: key, headers and bookkeeping, roughly. */
    private static final int ENTRY_OVERHEAD = 256;

    /** What identifies an answer: method, URI, and the caller's headers (trace context aside), sorted. */
    public record Key(String method, String uri, List<String> headers) {
    }

    private record Entry(Outcome outcome, long expiresNanos, long size) {
    }

    private final int maxEntries;
    private final long maxBytes;
    private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;
    private final Map<Key, CompletableFuture<Outcome>> out = new ConcurrentHashMap<>();

    ResponseCache(int maxEntries, long maxBytes) {
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
    }

    public static Key key(String method, URI uri, HttpFields headers) {
        List<String> named = new ArrayList<>();
        if (headers != null) {
            for (HttpField field : headers) {
                String name = field.getLowerCaseName();
                if (!name.equals("traceparent") && !name.equals("tracestate")) {
                    named.add(name + ": " + field.getValue());
                }
            }
            named.sort(null);
        }
        return new Key(method, uri.toString(), List.copyOf(named));
    }

    /** The fresh answer for {@code key}, or null. */
    synchronized Outcome fresh(Key key, long nowNanos) {
        Entry entry = entries.get(key);
        if (entry == null) {
            return null;
        }
        if (entry.expiresNanos - nowNanos <= 0) {
            remove(key);
            return null;
        }
        return entry.outcome;
    }

    /** Keeps {@code outcome} for {@code ttlNanos}; an answer larger than the whole cache is not kept. */
    synchronized void store(Key key, Outcome outcome, long ttlNanos, long nowNanos) {
        long size = outcome.bodyLength() + ENTRY_OVERHEAD;
        if (size > maxBytes) {
            return;
        }
        remove(key);
        entries.put(key, new Entry(outcome, nowNanos + ttlNanos, size));
        bytes += size;
        Iterator<Map.Entry<Key, Entry>> eldest = entries.entrySet().iterator();
        while ((entries.size() > maxEntries || bytes > maxBytes) && eldest.hasNext()) {
            bytes -= eldest.next().getValue().size;
            eldest.remove();
        }
    }

    private void remove(Key key) {
        Entry old = entries.remove(key);
        if (old != null) {
            bytes -= old.size;
        }
    }

    synchronized int size() {
        return entries.size();
    }

    synchronized long bytes() {
        return bytes;
    }

    /** Registers {@code mine} as the call out for {@code key}; returns the one already out, or null. */
    CompletableFuture<Outcome> lead(Key key, CompletableFuture<Outcome> mine) {
        return out.putIfAbsent(key, mine);
    }

    void led(Key key, CompletableFuture<Outcome> mine) {
        out.remove(key, mine);
    }

    /**
     * How long a 200 answer may be kept under the partner's {@code Cache-Control}: {@code ttlNanos},
     * or less for a shorter {@code max-age}/{@code s-maxage}; 0 for {@code no-store}, {@code no-cache},
     * {@code private} or a malformed age.
     */
    static long ttlUnder(String cacheControl, long ttlNanos) {
        if (cacheControl == null) {
            return ttlNanos;
        }
        long ttl = ttlNanos;
        for (String directive : cacheControl.toLowerCase(Locale.ROOT).split(",")) {
            String d = directive.trim();
            if (d.equals("no-store") || d.equals("no-cache") || d.equals("private")) {
                return 0;
            }
            if (d.startsWith("max-age=") || d.startsWith("s-maxage=")) {
                try {
                    long seconds = Long.parseLong(d.substring(d.indexOf('=') + 1).replace("\"", ""));
                    ttl = Math.min(ttl, Math.max(0, seconds) * 1_000_000_000L);
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return ttl;
    }
}
