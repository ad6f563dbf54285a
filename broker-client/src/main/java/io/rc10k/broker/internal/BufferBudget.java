package io.rc10k.broker.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of response bodies being received, shared by every partner of one client, and their bound.
 * A call reserves room as its body grows, by what it actually received (never by what the partner
 * declares), and gives it all back when it ends: a body that became an {@code Outcome} is the caller's
 * memory from then on. When a reservation would pass the bound, the call that asked ends
 * {@code MEMORY_BUDGET}, so slow or trickling partners cannot take the heap between them.
 *
 * <pre>{@code
 * BufferBudget budget = new BufferBudget(256L << 20);
 * if (!budget.reserve(grown)) abort(...);
 * ...
 * budget.release(held);
 * }</pre>
 *
 * <p>Threading: any thread; one atomic counter, no lock.</p>
 */
public final class BufferBudget {
    private final long maxBytes;
    private final AtomicLong used = new AtomicLong();

    public BufferBudget(long maxBytes) {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBufferedBytes: " + maxBytes + " (accepted: >= 1)");
        }
        this.maxBytes = maxBytes;
    }

    /** Takes {@code bytes} more; false (and nothing taken) when that would pass the bound. */
    public boolean reserve(long bytes) {
        while (true) {
            long now = used.get();
            long next = now + bytes;
            if (next > maxBytes) {
                return false;
            }
            if (used.compareAndSet(now, next)) {
                return true;
            }
        }
    }

    /** Gives back {@code bytes} taken by {@link #reserve}. */
    public void release(long bytes) {
        if (bytes > 0) {
            used.addAndGet(-bytes);
        }
    }

    /** Bytes reserved now. */
    public long used() {
        return used.get();
    }

    public long maxBytes() {
        return maxBytes;
    }
}
