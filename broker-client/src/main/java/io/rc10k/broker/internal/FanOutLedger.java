package io.rc10k.broker.internal;

import io.rc10k.broker.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The book of one started fan-out: each call's outcome, which later-stage calls may be made, and the one
 * count that completes the fan-out. No I/O and no callbacks: {@code FanOut} makes the calls and completes;
 * this class decides, so that its rules can be checked by a concurrency tool on their own
 * ({@code concurrency-tests}).
 *
 * <pre>{@code
 * FanOutLedger ledger = new FanOutLedger(new int[][] {null, null, {0, 1}}); // call 2 waits for 0 and 1
 * if (ledger.record(0, outcome)) {
 *     for (int s = ledger.claimReady(0); s >= 0; s = ledger.claimReady(s + 1)) make(s);
 *     if (ledger.countDown()) complete(ledger.outcomes());
 * }
 * }</pre>
 *
 * <p>Threading: any thread, no lock. Calls end on whichever thread completes them, often two at once.
 * An outcome is published with a volatile write before its slot's dependents are looked at, and read
 * with volatile reads: of two dependencies of one call ending together on two threads, at least the
 * second to look sees both, so a ready call is always claimed (the store-buffer pattern; a plain array
 * let both threads miss each other's outcome, and the chained call was never made). Each slot is
 * recorded once, claimed once and counted once, whoever races for it.</p>
 */
public final class FanOutLedger {
    private final AtomicReferenceArray<Outcome> outcomes;
    /** Per slot, the slots it waits for; null for a call made at start. Read-only after construction. */
    private final int[][] dependsOn;
    /** Per slot: 1 once claimed (made or ended unsent). Calls made at start are claimed from the outset. */
    private final AtomicIntegerArray claimed;
    private final AtomicInteger remaining;
    private final boolean chained;

    /**
     * @param dependsOn per call, the indexes of the earlier calls it waits for, or null for one made at
     *                  start; the array is kept, not copied
     */
    public FanOutLedger(int[][] dependsOn) {
        this.dependsOn = dependsOn;
        this.outcomes = new AtomicReferenceArray<>(dependsOn.length);
        this.claimed = new AtomicIntegerArray(dependsOn.length);
        this.remaining = new AtomicInteger(dependsOn.length);
        boolean any = false;
        for (int i = 0; i < dependsOn.length; i++) {
            if (dependsOn[i] == null) {
                claimed.set(i, 1);
            } else {
                any = true;
            }
        }
        this.chained = any;
    }

    public int size() {
        return dependsOn.length;
    }

    /** True when some call waits for others. */
    public boolean chained() {
        return chained;
    }

    /** Records how {@code slot} ended; false when it had ended already (the later word is dropped). */
    public boolean record(int slot, Outcome outcome) {
        return outcomes.compareAndSet(slot, null, outcome);
    }

    /** How {@code slot} ended, or null while it has not. */
    public Outcome outcome(int slot) {
        return outcomes.get(slot);
    }

    /**
     * Claims the first later-stage call at or after {@code from} whose dependencies have all ended, for
     * the caller alone to make; -1 when there is none.
     */
    public int claimReady(int from) {
        for (int i = from; i < dependsOn.length; i++) {
            if (claimed.get(i) == 0 && allEnded(dependsOn[i]) && claimed.compareAndSet(i, 0, 1)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Claims the first later-stage call at or after {@code from} not claimed yet, ready or not: at the
     * deadline or a stop, such a call ends unsent; -1 when there is none.
     */
    public int claimAny(int from) {
        for (int i = from; i < dependsOn.length; i++) {
            if (claimed.get(i) == 0 && claimed.compareAndSet(i, 0, 1)) {
                return i;
            }
        }
        return -1;
    }

    private boolean allEnded(int[] slots) {
        for (int d : slots) {
            if (outcomes.get(d) == null) {
                return false;
            }
        }
        return true;
    }

    /** The outcomes of {@code slots}, in their order (each must have ended). */
    public List<Outcome> outcomesOf(int[] slots) {
        List<Outcome> inputs = new ArrayList<>(slots.length);
        for (int d : slots) {
            inputs.add(outcomes.get(d));
        }
        return inputs;
    }

    /** Counts one recorded slot as ended; true for the one call that counts the last. */
    public boolean countDown() {
        return remaining.decrementAndGet() == 0;
    }

    /** Every outcome, in call order (complete once {@link #countDown()} returned true). */
    public List<Outcome> outcomes() {
        List<Outcome> all = new ArrayList<>(dependsOn.length);
        for (int i = 0; i < dependsOn.length; i++) {
            all.add(outcomes.get(i));
        }
        return List.copyOf(all);
    }
}
