package io.rc10k.mashup;

import io.rc10k.stubs.PartnerStubs;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Bounded waits on events and counters for the tests: generous bounds, and a failure that says what was awaited. */
final class Await {
    private static final long BOUND_SECONDS = 30;

    private Await() {
    }

    /** Waits until {@code condition} holds; fails after 30 s with {@code state}. */
    static void until(BooleanSupplier condition, Supplier<String> state) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not within " + BOUND_SECONDS + " s: " + state.get());
            }
            Thread.sleep(10);
        }
    }

    /** Waits until the stubs have no request in flight: they count one served just after writing its answer. */
    static void idle(PartnerStubs stubs) throws InterruptedException {
        until(() -> stubs.stats().inFlight() == 0, () -> "the stubs still have requests in flight: "
                + stubs.stats().toJson());
    }
}
