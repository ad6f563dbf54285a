package io.rc10k.broker.internal;

/**
 * What {@link FanOutChainedCallTest} drives: a fan-out of three calls in which call 2 is chained on calls 0
 * and 1 ({@code Call.to(…).after(0, 1)}): {@link LedgerFanOut}, the real {@link FanOutLedger} as
 * {@code FanOutRun} drives it. (Before the ledger, a copy of {@code FanOutRun}'s completion with its plain
 * array of outcomes stood here, and jcstress saw the hang: docs/concurrency.md.)
 */
interface ChainedFanOut {
    /** Call {@code slot} (0 or 1) ended; the chained call is made when both have. */
    void ended(int slot);

    /** How many times the chained call was made (or ended unsent): exactly once is right. */
    int chainedCalls();

    /** How many times the fan-out completed: exactly once is right, none is a fan-out that hangs. */
    int completions();
}
