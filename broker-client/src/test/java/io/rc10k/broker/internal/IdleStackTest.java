package io.rc10k.broker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.util.Pool;
import org.junit.jupiter.api.Test;

/** The HTTP/1.1 partner pool's entries: bounded, one holder at a time, last released first out. */
class IdleStackTest {
    private static Pool.Entry<String> idleEntry(IdleStack<String> pool, String name) {
        Pool.Entry<String> entry = pool.reserve();
        assertNotNull(entry, "no room for " + name + " in " + pool);
        assertTrue(entry.enable(name, false));
        return entry;
    }

    @Test
    void reservesNoMoreThanMaxSizeAndARemovedEntryMakesRoom() {
        IdleStack<String> pool = new IdleStack<>(2);
        Pool.Entry<String> a = pool.reserve();
        Pool.Entry<String> b = pool.reserve();
        assertNull(pool.reserve());
        assertEquals(2, pool.size());
        assertTrue(a.isReserved());
        assertNull(pool.acquire(), "a reserved entry is not idle yet");
        assertTrue(a.remove());
        assertFalse(a.remove(), "removed once only");
        assertEquals(1, pool.size());
        assertNotNull(pool.reserve());
        assertTrue(b.enable("b", true));
        assertTrue(b.isInUse());
        assertThrows(IllegalStateException.class, () -> b.enable("b again", false));
    }

    @Test
    void handsOutEachIdleEntryToOneHolderTheLastReleasedFirst() {
        IdleStack<String> pool = new IdleStack<>(3);
        idleEntry(pool, "a");
        idleEntry(pool, "b");
        idleEntry(pool, "c");
        Pool.Entry<String> first = pool.acquire();
        Pool.Entry<String> second = pool.acquire();
        Pool.Entry<String> third = pool.acquire();
        assertEquals(List.of("c", "b", "a"), List.of(first.getPooled(), second.getPooled(), third.getPooled()));
        assertNull(pool.acquire(), "all three are in use");
        assertTrue(first.release());
        assertFalse(first.release(), "a second release of one use is refused");
        assertTrue(third.release());
        assertSame(third, pool.acquire(), "the entry released last comes first");
        assertSame(first, pool.acquire());
        assertNull(pool.acquire());
    }

    @Test
    void aRemovedIdleEntryIsNeverHandedOut() {
        IdleStack<String> pool = new IdleStack<>(2);
        Pool.Entry<String> a = idleEntry(pool, "a");
        Pool.Entry<String> b = idleEntry(pool, "b");
        assertTrue(b.remove());
        assertTrue(b.isTerminated());
        assertFalse(b.release());
        assertSame(a, pool.acquire());
        assertNull(pool.acquire());
        assertEquals(1, pool.size());
        assertEquals(1, pool.stream().count());
    }

    @Test
    void aTerminatedPoolGivesNothingAndTakesNothingBack() {
        IdleStack<String> pool = new IdleStack<>(4);
        Pool.Entry<String> idle = idleEntry(pool, "idle");
        Pool.Entry<String> busy = idleEntry(pool, "busy");
        assertSame(busy, pool.acquire());
        Pool.Entry<String> reserved = pool.reserve();
        List<Pool.Entry<String>> all = new ArrayList<>(pool.terminate());
        assertTrue(pool.isTerminated());
        assertEquals(3, all.size());
        assertNull(pool.acquire());
        assertNull(pool.reserve());
        assertFalse(busy.release(), "released into a terminated pool: the caller must remove it");
        assertFalse(reserved.enable("late", false));
        assertTrue(idle.isTerminated() && !idle.isIdle());
        for (Pool.Entry<String> entry : all) {
            assertTrue(entry.remove());
        }
        assertEquals(0, pool.size());
    }

    @Test
    void racingHoldersNeverShareAnEntryAndNothingIsLost() throws Exception {
        int entries = 8;
        IdleStack<AtomicBoolean> pool = new IdleStack<>(entries);
        for (int i = 0; i < entries; i++) {
            assertTrue(pool.reserve().enable(new AtomicBoolean(), false));
        }
        int threads = 4;
        int rounds = 50_000;
        AtomicInteger acquired = new AtomicInteger();
        AtomicReference<String> violation = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    for (int r = 0; r < rounds; r++) {
                        List<Pool.Entry<AtomicBoolean>> held = new ArrayList<>();
                        for (int k = 0; k < 3; k++) {
                            Pool.Entry<AtomicBoolean> entry = pool.acquire();
                            if (entry == null) {
                                continue;
                            }
                            if (!entry.getPooled().compareAndSet(false, true)) {
                                violation.compareAndSet(null, "one entry handed to two holders: " + entry);
                            }
                            acquired.incrementAndGet();
                            held.add(entry);
                        }
                        for (Pool.Entry<AtomicBoolean> entry : held) {
                            entry.getPooled().set(false);
                            if (!entry.release()) {
                                violation.compareAndSet(null, "release refused: " + entry);
                            }
                        }
                    }
                } finally {
                    done.countDown();
                }
            });
            thread.start();
        }
        assertTrue(done.await(120, TimeUnit.SECONDS), "the racing threads did not finish");
        assertNull(violation.get());
        assertTrue(acquired.get() > 0);
        List<Pool.Entry<AtomicBoolean>> all = new ArrayList<>();
        for (Pool.Entry<AtomicBoolean> entry = pool.acquire(); entry != null; entry = pool.acquire()) {
            all.add(entry);
        }
        assertEquals(entries, all.size(), "every entry is idle again, once");
    }
}
