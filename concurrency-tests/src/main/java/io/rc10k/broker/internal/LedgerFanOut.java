package io.rc10k.broker.internal;

import io.rc10k.broker.Outcome;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link FanOutLedger}, driven as {@code FanOutRun} drives it: an ended call is recorded, every
 * later-stage call it made ready is claimed and made (here it ends at once, as an unsent call does),
 * and the count that reaches zero completes the fan-out. Calls 0 and 1 are made at start; call 2 waits
 * for both.
 */
final class LedgerFanOut implements ChainedFanOut {
    private static final Outcome ANSWER = Outcome.response("p", 200, "application/json", new byte[] {'1'}, 0, 1);

    private final FanOutLedger ledger = new FanOutLedger(new int[][] {null, null, {0, 1}});
    private final AtomicInteger chained = new AtomicInteger();
    private final AtomicInteger completed = new AtomicInteger();

    @Override
    public void ended(int slot) {
        end(slot);
    }

    private void end(int slot) {
        if (!ledger.record(slot, ANSWER)) {
            return;
        }
        for (int ready = ledger.claimReady(0); ready >= 0; ready = ledger.claimReady(ready + 1)) {
            chained.incrementAndGet();
            end(ready);
        }
        if (ledger.countDown()) {
            completed.incrementAndGet();
        }
    }

    @Override
    public int chainedCalls() {
        return chained.get();
    }

    @Override
    public int completions() {
        return completed.get();
    }
}
