package io.rc10k.broker;

import io.rc10k.broker.internal.RealExchange;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * C calls started together under one deadline; completes exactly once, with every outcome, when the last
 * call ends or the deadline fires — whichever is first. At the deadline every unfinished exchange is
 * aborted (TIMEOUT): its HTTP/1.1 connection is closed, its HTTP/2 stream reset.
 *
 * <pre>{@code
 * broker.fanOut(Duration.ofSeconds(1))
 *         .add(Call.to("weather").path("weather?city=Paris").build())
 *         .add(Call.to("hotels").path("hotels?city=Paris").required().build())
 *         .start()
 *         .thenAccept(result -> respond(result.outcomes()));
 * }</pre>
 *
 * <p>A call may be {@linkplain Call.Builder#required() required}: when a required call ends other than
 * {@link Outcome.Kind#OK} — an error status, a timeout, a failed connection, anything — the fan-out does
 * not wait for the rest: every unfinished exchange is cancelled at once (CANCELLED; its HTTP/1.1
 * connection closed, its HTTP/2 stream reset), and the result, which still holds one outcome per call,
 * names the required call that failed first ({@link FanOutResult#failedRequired()}). An all-or-nothing
 * fan-out is one whose calls are all required.</p>
 *
 * <p>A call may come {@linkplain Call.Builder#after after} others, made from their outcomes once they have
 * ended: the later stage of a chain. The deadline covers the whole chain; a later call that may no longer go
 * out (the deadline passed, a required call failed, the client stopped, its path could not be made) ends
 * TIMEOUT, CANCELLED or SKIPPED unsent.</p>
 *
 * <p>Not thread-safe while calls are being added; {@link #start()} once. The result stage completes
 * on a pool thread — or on the scheduler thread when an exchange's own call timeout ended it, as
 * Jetty fires those there; the deadlines' timer only hands its aborts to the pool ({@link FanOuts}) —
 * and never exceptionally. Never block in its dependents.</p>
 */
public final class FanOut {
    private final ExchangeFactory factory;
    private final FanOuts running;
    private final Duration deadline;
    private final List<Call> calls = new ArrayList<>();
    /** By slot: the exchange made (not started) when its call was added; null for a later-stage call. */
    private final List<RealExchange> exchanges = new ArrayList<>();
    private final AtomicBoolean started = new AtomicBoolean();

    FanOut(ExchangeFactory factory, FanOuts running, Duration deadline) {
        if (deadline == null || deadline.isNegative() || deadline.isZero()) {
            throw new IllegalArgumentException("deadline: " + deadline + " (accepted: > 0)");
        }
        this.factory = factory;
        this.running = running;
        this.deadline = deadline;
    }

    /**
     * Adds {@code call}; it starts with the fan-out, or once the calls it comes after have ended. Its index is
     * the number of calls added before it.
     *
     * @throws IllegalArgumentException for a partner the client does not know, a path it refuses, or a call
     *                                  that comes after one not added yet (the message says which)
     * @throws IllegalStateException    once the fan-out started, or when the client is not running
     */
    public FanOut add(Call call) {
        if (started.get()) {
            throw new IllegalStateException("fan-out already started");
        }
        int slot = calls.size();
        if (call.chained()) {
            for (int d : call.after()) {
                if (d >= slot) {
                    throw new IllegalArgumentException("after: " + d + " is not a call added before call " + slot);
                }
            }
            factory.check(call);
            exchanges.add(null);
        } else {
            exchanges.add(factory.newExchange(call, call.pathAndQuery(), RealExchange.StopList.NONE));
        }
        calls.add(call);
        return this;
    }

    public int size() {
        return calls.size();
    }

    /** Starts every call that comes after none, and arms the deadline. */
    public CompletionStage<FanOutResult> start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("fan-out already started");
        }
        CompletableFuture<FanOutResult> result = new CompletableFuture<>();
        if (calls.isEmpty()) {
            result.complete(new FanOutResult(List.of(), 0, false));
            return result;
        }
        new FanOutRun(calls, exchanges, deadline, factory, running, result).start();
        return result;
    }
}
