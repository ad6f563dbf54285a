package io.rc10k.stubs.internal;

import io.rc10k.stubs.H2Misbehaviour;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one hostile h2c partner counts beyond its connections and answers (which it counts as the HTTP/1.1 one
 * does, in {@link HostileCounters}): each {@link H2Misbehaviour} acted, and the clients that left push enabled.
 * Thread-safe and lock-free; a count is raised before the first byte of what it counts is written.
 */
public final class H2Counters {
    private final AtomicLongArray misbehaved = new AtomicLongArray(H2Misbehaviour.values().length);
    private final LongAdder pushEnabled = new LongAdder();

    void misbehaved(H2Misbehaviour m) {
        misbehaved.incrementAndGet(m.ordinal());
    }

    /** A connection whose client's first SETTINGS did not say SETTINGS_ENABLE_PUSH=0. */
    void pushEnabled() {
        pushEnabled.increment();
    }

    public long requests(H2Misbehaviour m) {
        return misbehaved.get(m.ordinal());
    }

    public long pushEnabledConnections() {
        return pushEnabled.sum();
    }
}
