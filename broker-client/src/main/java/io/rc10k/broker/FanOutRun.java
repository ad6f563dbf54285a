package io.rc10k.broker;

import io.rc10k.broker.internal.FanOutLedger;
import io.rc10k.broker.internal.RealExchange;
import io.rc10k.broker.internal.WriteBatch;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import org.eclipse.jetty.io.CyclicTimeouts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One started {@link FanOut}: the calls out, and the one completion. Its {@link FanOutLedger} decides which
 * later-stage calls are made and when the last call ended; this class makes them, cancels the rest when a
 * required call fails, and completes. From start to completion it is in the client's {@link FanOuts}, which
 * expires it at its deadline and cancels it on a stop.
 *
 * <p>Threading: calls end on whichever thread completes them (a loop, a pool thread, the scheduler), often
 * several at once; the deadline and a stop come from the pool. Every transition is atomic; the completion
 * happens once, on the thread that counted the last call.</p>
 */
final class FanOutRun implements CyclicTimeouts.Expirable {
    private static final Logger LOG = LoggerFactory.getLogger(FanOutRun.class);
    /**
     * A later-stage call is built on the thread that ended its last dependency — often an event thread —
     * unless its dependencies' bodies come to more than this: its path function may parse them, so it is
     * then built on the pool.
     */
    static final int BUILD_INLINE_MAX_BYTES = 64 * 1024;

    private final List<Call> calls;
    private final ExchangeFactory factory;
    private final FanOuts running;
    private final CompletableFuture<FanOutResult> result;
    private final long startNanos = System.nanoTime();
    private final long dueNanos;
    private final FanOutLedger ledger;
    /** The calls out; a later stage's slot stays null until its call is made. */
    private final AtomicReferenceArray<RealExchange> out;
    private final AtomicInteger failedRequired = new AtomicInteger(-1);
    private final AtomicBoolean deadlineHit = new AtomicBoolean();
    /** The client stopped: calls not made yet end CANCELLED unsent. */
    private volatile boolean stopped;

    /** @param exchanges by slot, the exchange of each call made at start (not started); null for a later one */
    FanOutRun(List<Call> calls, List<RealExchange> exchanges, Duration deadline, ExchangeFactory factory,
            FanOuts running, CompletableFuture<FanOutResult> result) {
        this.calls = calls;
        this.factory = factory;
        this.running = running;
        this.result = result;
        this.dueNanos = FanOuts.due(startNanos + deadline.toNanos());
        int[][] dependsOn = new int[calls.size()][];
        this.out = new AtomicReferenceArray<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            Call call = calls.get(i);
            dependsOn[i] = call.chained() ? call.after() : null;
            out.set(i, exchanges.get(i));
        }
        this.ledger = new FanOutLedger(dependsOn);
    }

    void start() {
        running.started(this);
        for (int i = 0; i < out.length(); i++) {
            if (!calls.get(i).chained()) {
                watch(i, out.get(i));
            }
        }
        // Only the calls made at start: a later-stage call may be made (and started) while this loop runs.
        // In one write batch: the requests of the calls that share an h2c connection go out in one write.
        try (WriteBatch batch = WriteBatch.open()) {
            for (int i = 0; i < out.length(); i++) {
                if (!calls.get(i).chained()) {
                    out.get(i).start();
                }
            }
        }
    }

    @Override
    public long getExpireNanoTime() {
        return dueNanos;
    }

    /**
     * The deadline passed: every call still out ends TIMEOUT, and so does every later-stage call not
     * made yet, unsent (run on the pool, by {@link FanOuts}).
     */
    void expire() {
        deadlineHit.set(true);
        forEachOut(RealExchange::expire);
        endUnmade(Outcome.Kind.TIMEOUT, "the deadline passed before the calls it depends on ended");
    }

    /** The client is stopping: every call still out ends CANCELLED, and none is made after. */
    void cancel() {
        stopped = true;
        forEachOut(RealExchange::cancel);
        endUnmade(Outcome.Kind.CANCELLED, "the broker client stopped");
    }

    private void forEachOut(Consumer<RealExchange> action) {
        for (int i = 0; i < out.length(); i++) {
            RealExchange exchange = out.get(i);
            if (exchange != null) {
                action.accept(exchange);
            }
        }
    }

    /** Ends, unsent, every later-stage call not claimed yet: nothing it waits for can make it any more. */
    private void endUnmade(Outcome.Kind kind, String why) {
        if (!ledger.chained()) {
            return;
        }
        for (int slot = ledger.claimAny(0); slot >= 0; slot = ledger.claimAny(slot + 1)) {
            ended(slot, unsent(slot, kind, why));
        }
    }

    private void watch(int slot, RealExchange exchange) {
        exchange.outcome().whenComplete((outcome, failure) -> ended(slot, outcome != null ? outcome
                : Outcome.failure(exchange.partner().name(), Outcome.Kind.CANCELLED, 0, failure, 0, 0)));
    }

    /**
     * A call ended: the first word for its slot counts, and whatever happens next — cancelling the rest,
     * making the calls it let start, even a fault of ours — the slot is counted, so the fan-out completes.
     * (Thrown out of here, a fault would vanish in {@code whenComplete}, and with it the completion.)
     */
    private void ended(int slot, Outcome outcome) {
        if (!ledger.record(slot, outcome)) {
            return;
        }
        try {
            // The first required call to fail decides; the others' cancellations complete their outcomes.
            if (calls.get(slot).required() && outcome.kind() != Outcome.Kind.OK
                    && failedRequired.compareAndSet(-1, slot)) {
                forEachOut(RealExchange::cancel);
            }
            if (ledger.chained()) {
                for (int ready = ledger.claimReady(0); ready >= 0; ready = ledger.claimReady(ready + 1)) {
                    makeSoon(ready);
                }
            }
        } catch (RuntimeException | Error e) {
            LOG.error("fan-out: handling the end of call {} ({}) failed; the fan-out still completes", slot,
                    outcome, e);
        } finally {
            // The count that reaches zero happens once; it alone completes the fan-out.
            if (ledger.countDown()) {
                running.ended(this);
                result.complete(new FanOutResult(ledger.outcomes(), System.nanoTime() - startNanos,
                        deadlineHit.get(), failedRequired.get()));
            }
        }
    }

    /** Makes a claimed later-stage call here, or on the pool when its inputs are large. */
    private void makeSoon(int slot) {
        long inputBytes = 0;
        for (int d : calls.get(slot).after()) {
            inputBytes += ledger.outcome(d).bodyLength();
        }
        if (inputBytes <= BUILD_INLINE_MAX_BYTES) {
            makeSafely(slot);
            return;
        }
        try {
            factory.executor().execute(() -> makeSafely(slot));
        } catch (RejectedExecutionException stopping) {
            ended(slot, unsent(slot, Outcome.Kind.CANCELLED, "the broker client stopped"));
        }
    }

    /** A claimed call must end, whatever happens while it is made: else the fan-out would wait for it for good. */
    private void makeSafely(int slot) {
        try {
            make(slot);
        } catch (RuntimeException | Error e) {
            LOG.error("fan-out: making call {} failed; it ends skipped", slot, e);
            ended(slot, unsent(slot, Outcome.Kind.SKIPPED, "making the call failed: " + e));
        }
    }

    /** Makes a claimed later-stage call, or ends it unsent when it may no longer go out or cannot be built. */
    private void make(int slot) {
        if (deadlineHit.get() || failedRequired.get() >= 0 || stopped) {
            ended(slot, unsent(slot, deadlineHit.get() ? Outcome.Kind.TIMEOUT : Outcome.Kind.CANCELLED,
                    deadlineHit.get() ? "the deadline passed before the calls it depends on ended"
                            : stopped ? "the broker client stopped" : "a required call failed first"));
            return;
        }
        Call call = calls.get(slot);
        String path;
        try {
            path = call.pathAndQuery(ledger.outcomesOf(call.after()));
        } catch (RuntimeException e) {
            // IllegalArgumentException: a value it needed is missing. Anything else is a fault of the caller's
            // function; it ends the call the same way, never the fan-out.
            ended(slot, unsent(slot, Outcome.Kind.SKIPPED, e instanceof IllegalArgumentException ? e.getMessage()
                    : "building the call's path failed: " + e));
            return;
        }
        RealExchange exchange;
        try {
            exchange = factory.newExchange(call, path, RealExchange.StopList.NONE);
        } catch (IllegalArgumentException e) {
            ended(slot, unsent(slot, Outcome.Kind.SKIPPED, e.getMessage())); // the broker refused the call
            return;
        } catch (IllegalStateException e) {
            // The client began to stop after the check above, before it cancelled this fan-out.
            ended(slot, unsent(slot, Outcome.Kind.CANCELLED, "the broker client stopped"));
            return;
        }
        out.set(slot, exchange);
        watch(slot, exchange);
        exchange.start();
        // Made while the deadline, a required failure or a stop was being handled: it must not escape them.
        if (deadlineHit.get()) {
            exchange.expire();
        } else if (failedRequired.get() >= 0 || stopped) {
            exchange.cancel();
        }
    }

    private Outcome unsent(int slot, Outcome.Kind kind, String why) {
        return Outcome.failure(calls.get(slot).partner(), kind, 0, new CancellationException(why), 0, 0);
    }
}
