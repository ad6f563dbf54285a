package io.rc10k.broker.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.eclipse.jetty.util.Pool;

/**
 * A pool of single-use entries (one request at a time, as HTTP/1.1 connections are) whose idle entries
 * wait on a stack: {@link #acquire()}, {@link Entry#release()} and {@link #reserve()} cost the same
 * whether one entry or all of them are busy. Jetty's {@code ConcurrentPool} scans its entries from the
 * first on every acquire, so a partner whose connections are all busy — the normal state under load —
 * costs a full scan (twice, and a lock) per request sent.
 *
 * <p>The entry released last is taken first, so the connections a lull leaves unused age and reach
 * their idle timeout.</p>
 *
 * <p>The contract is {@link Pool}'s as Jetty's connection pools use it: an entry is reserved, then
 * enabled (idle, or acquired at once); a released entry of a terminated pool is not reusable, and
 * removing an entry, idle or in use, ends it.</p>
 */
final class IdleStack<P> implements Pool<P> {
    private static final int RESERVED = 0;
    private static final int IDLE = 1;
    private static final int IN_USE = 2;
    private static final int REMOVED = 3;

    private final int maxSize;
    /** Reserved, idle and in-use entries; counted before they are added so that none over maxSize exists. */
    private final AtomicInteger size = new AtomicInteger();
    private final Set<Slot<P>> entries = ConcurrentHashMap.newKeySet();
    /** Idle entries, the most recently released first. An entry is pushed only when it becomes idle. */
    private final ConcurrentLinkedDeque<Slot<P>> idle = new ConcurrentLinkedDeque<>();
    private volatile boolean terminated;

    IdleStack(int maxSize) {
        if (maxSize < 1) {
            throw new IllegalArgumentException("maxSize must be at least 1: " + maxSize);
        }
        this.maxSize = maxSize;
    }

    @Override
    public Entry<P> reserve() {
        int n;
        do {
            n = size.get();
            if (terminated || n >= maxSize) {
                return null;
            }
        } while (!size.compareAndSet(n, n + 1));
        Slot<P> slot = new Slot<>(this);
        entries.add(slot);
        if (terminated) {
            // terminate() may have listed the entries before this one was added.
            slot.remove();
            return null;
        }
        return slot;
    }

    @Override
    public Entry<P> acquire() {
        if (terminated) {
            return null;
        }
        for (Slot<P> slot = idle.pollFirst(); slot != null; slot = idle.pollFirst()) {
            // An entry removed while it waited here is dropped.
            if (slot.state.compareAndSet(IDLE, IN_USE)) {
                return slot;
            }
        }
        return null;
    }

    @Override
    public boolean isTerminated() {
        return terminated;
    }

    @Override
    public Collection<Entry<P>> terminate() {
        terminated = true;
        List<Entry<P>> all = new ArrayList<>(entries);
        idle.clear();
        return all;
    }

    @Override
    public int size() {
        return size.get();
    }

    @Override
    public int getMaxSize() {
        return maxSize;
    }

    @Override
    public Stream<Entry<P>> stream() {
        return entries.stream().map(slot -> slot);
    }

    @Override
    public String toString() {
        return "IdleStack{size=" + size.get() + "/" + maxSize + (terminated ? ", terminated" : "") + "}";
    }

    private static final class Slot<P> implements Entry<P> {
        private final IdleStack<P> pool;
        private final AtomicInteger state = new AtomicInteger(RESERVED);
        private volatile P pooled;

        Slot(IdleStack<P> pool) {
            this.pool = pool;
        }

        @Override
        public boolean enable(P pooled, boolean acquire) {
            Objects.requireNonNull(pooled);
            if (pool.terminated || state.get() == REMOVED) {
                return false;
            }
            this.pooled = pooled;
            if (!state.compareAndSet(RESERVED, acquire ? IN_USE : IDLE)) {
                if (state.get() == REMOVED) {
                    return false;
                }
                throw new IllegalStateException("entry already enabled: " + this);
            }
            if (!acquire) {
                pool.idle.offerFirst(this);
            }
            return true;
        }

        @Override
        public P getPooled() {
            return pooled;
        }

        @Override
        public boolean release() {
            if (pool.terminated || !state.compareAndSet(IN_USE, IDLE)) {
                return false;
            }
            pool.idle.offerFirst(this);
            return true;
        }

        @Override
        public boolean remove() {
            int was = state.getAndSet(REMOVED);
            if (was == REMOVED) {
                return false;
            }
            pool.entries.remove(this);
            pool.size.decrementAndGet();
            if (was == IDLE) {
                pool.idle.remove(this);
            }
            return true;
        }

        @Override
        public boolean isReserved() {
            return state.get() == RESERVED;
        }

        @Override
        public boolean isIdle() {
            return !pool.terminated && state.get() == IDLE;
        }

        @Override
        public boolean isInUse() {
            return !pool.terminated && state.get() == IN_USE;
        }

        @Override
        public boolean isTerminated() {
            return state.get() == REMOVED || pool.terminated;
        }

        @Override
        public String toString() {
            String[] names = {"reserved", "idle", "in use", "removed"};
            return "IdleStack.Slot{" + names[state.get()] + ", " + pooled + "}";
        }
    }
}
