package io.rc10k.broker.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;

import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Test;

/**
 * Lincheck's model checker on the race of {@code Http1DestinationTest.FreedPlaceServesStartingCall}: it
 * tries the two threads' interleavings one by one instead of waiting for the machine to produce them, so
 * a race jcstress sees in one sample of ten thousand fails here at once, with the interleaving printed.
 * (It runs the threads as if memory were sequentially consistent: the reorderings of a weak memory model
 * stay jcstress's to find.)
 */
class Http1DestinationLincheckTest {
    /** Interleavings tried: the race before the fix failed within the first few hundred. */
    private static final int INVOCATIONS = 2_000;

    @Test
    void placeFreedAsCallStartsWaitingServesIt() {
        Lincheck.runConcurrentTest(INVOCATIONS, () -> {
            Http1Destination destination = Http1Fixture.destination();
            Http1Fixture.connecting(destination); // the one place taken
            Http1Call call = Http1Fixture.call(destination, new Http1Fixture.Events());
            Thread starts = new Thread(call::start);
            Thread connectFails = new Thread(() -> destination.closed(null));
            starts.start();
            connectFails.start();
            join(starts);
            join(connectFails);
            assertFalse(destination.unqueue(call) && destination.open() == 0,
                    "the call waits beside a free place");
        });
    }

    private static void join(Thread thread) {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
