package io.rc10k.stubs.internal;

import io.rc10k.stubs.H2Misbehaviour;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one hostile h2c partner has done since it started. Thread-safe and lock-free. Every count is raised
 * before the first byte of what it counts is written, so a client that has seen those bytes sees the count.
 */
public final class H2Counters {
    private final LongAdder accepted = new LongAdder();
    private final LongAdder open = new LongAdder();
    private final LongAdder ok = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder capped = new LongAdder();
    private final LongAdder pushEnabled = new LongAdder();
    private final AtomicLongArray misbehaved = new AtomicLongArray(H2Misbehaviour.values().length);

    void accepted() {
        accepted.increment();
        open.increment();
    }

    void closed() {
        open.decrement();
    }

    void answeredOk() {
        ok.increment();
    }

    /** A 404, or a connection turned away at accept because every connection thread was busy. */
    void refused() {
        refused.increment();
    }

    void misbehaved(H2Misbehaviour m) {
        misbehaved.incrementAndGet(m.ordinal());
    }

    void capped() {
        capped.increment();
    }

    /** A client whose SETTINGS left push enabled (no SETTINGS_ENABLE_PUSH=0). */
    void pushEnabled() {
        pushEnabled.increment();
    }

    public long connectionsAccepted() {
        return accepted.sum();
    }

    public long connectionsOpen() {
        return open.sum();
    }

    public long okAnswers() {
        return ok.sum();
    }

    public long refusals() {
        return refused.sum();
    }

    public long cappedConnections() {
        return capped.sum();
    }

    public long pushEnabledConnections() {
        return pushEnabled.sum();
    }

    public long requests(H2Misbehaviour m) {
        return misbehaved.get(m.ordinal());
    }
}
