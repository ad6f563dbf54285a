package io.rc10k.stubs.internal;

import io.rc10k.stubs.Misbehaviour;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one hostile partner has done since it started. Thread-safe and lock-free. Every count is raised
 * before the first byte of what it counts is written, so a client that has seen those bytes sees the
 * count.
 */
public final class HostileCounters {
    private final LongAdder accepted = new LongAdder();
    private final LongAdder open = new LongAdder();
    private final LongAdder ok = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder capped = new LongAdder();
    private final AtomicLongArray misbehaved = new AtomicLongArray(Misbehaviour.values().length);

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

    /** A 400, 404 or 431: the request named no misbehaviour, or asked for one wrongly. */
    void refused() {
        refused.increment();
    }

    void misbehaved(Misbehaviour m) {
        misbehaved.incrementAndGet(m.ordinal());
    }

    /** A connection closed because its misbehaviour reached the stall cap. */
    void capped() {
        capped.increment();
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

    public long requests(Misbehaviour m) {
        return misbehaved.get(m.ordinal());
    }

    /** Every misbehaviour acted, over all kinds. */
    public long misbehaviours() {
        long sum = 0;
        for (int i = 0; i < misbehaved.length(); i++) {
            sum += misbehaved.get(i);
        }
        return sum;
    }
}
