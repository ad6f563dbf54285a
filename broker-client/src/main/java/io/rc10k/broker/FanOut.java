package io.rc10k.broker;

import io.rc10k.broker.internal.RealExchange;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * C exchanges started together under one deadline; completes exactly once, with every outcome,
 * when the last exchange ends or the deadline fires — whichever is first. At the deadline every
 * unfinished exchange is aborted (TIMEOUT): its HTTP/1.1 connection is closed, its HTTP/2 stream reset.
 *
 * <pre>{@code
 * broker.fanOut(Duration.ofSeconds(1))
 *         .call("weather", "weather?city=Paris")
 *         .call("hotels", "hotels?city=Paris")
 *         .start()
 *         .thenAccept(result -> respond(result.outcomes()));
 * }</pre>
 *
 * <p>A call may be required ({@link #call(String, String, String, HttpFields, ExchangeListener, CallOptions)}):
 * when a required call ends other than {@link Outcome.Kind#OK} — an error status, a timeout, a failed
 * connection, anything — the fan-out does not wait for the rest: every unfinished exchange is cancelled
 * at once (CANCELLED; its HTTP/1.1 connection closed, its HTTP/2 stream reset), and the result, which
 * still holds one outcome per call, names the required call that failed first
 * ({@link FanOutResult#failedRequired()}). An all-or-nothing fan-out is one whose calls are all required.</p>
 *
 * <p>Not thread-safe while calls are being added; {@link #start()} once. The result stage completes
 * on a pool thread — or on the scheduler thread when an exchange's own call timeout ended it, as
 * Jetty fires those there; the fan-out's deadline timer only hands its aborts to the pool — and never
 * exceptionally. Never block in its dependents.</p>
 */
public final class FanOut {
    private final BrokerClient broker;
    private final Scheduler scheduler;
    private final Executor executor;
    private final Duration deadline;
    private final List<RealExchange> exchanges = new ArrayList<>();
    private final List<Boolean> required = new ArrayList<>();
    private final AtomicBoolean started = new AtomicBoolean();

    FanOut(BrokerClient broker, Scheduler scheduler, Executor executor, Duration deadline) {
        if (deadline == null || deadline.isNegative() || deadline.isZero()) {
            throw new IllegalArgumentException("deadline: " + deadline + " (accepted: > 0)");
        }
        this.broker = broker;
        this.scheduler = scheduler;
        this.executor = executor;
        this.deadline = deadline;
    }

    /** Adds a GET of {@code pathAndQuery}, relative to the partner's base URI. */
    public FanOut call(String partner, String pathAndQuery) {
        return call(partner, "GET", pathAndQuery, null, ExchangeListener.NONE);
    }

    public FanOut call(String partner, String pathAndQuery, ExchangeListener listener) {
        return call(partner, "GET", pathAndQuery, null, listener);
    }

    /**
     * @param headers extra request headers, or null; the caller decides what to forward
     */
    public FanOut call(String partner, String method, String pathAndQuery, HttpFields headers,
            ExchangeListener listener) {
        return call(partner, method, pathAndQuery, headers, listener, CallOptions.NONE);
    }

    /**
     * @param headers extra request headers, or null; the caller decides what to forward
     * @param options required, hedged, cached ({@link CallOptions})
     */
    public FanOut call(String partner, String method, String pathAndQuery, HttpFields headers,
            ExchangeListener listener, CallOptions options) {
        if (started.get()) {
            throw new IllegalStateException("fan-out already started");
        }
        exchanges.add(broker.newExchange(partner, method, pathAndQuery, headers, listener, options));
        this.required.add(options.required());
        return this;
    }

    public int size() {
        return exchanges.size();
    }

    /** Starts every call and arms the deadline. */
    public CompletionStage<FanOutResult> start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("fan-out already started");
        }
        long startNanos = System.nanoTime();
        CompletableFuture<FanOutResult> result = new CompletableFuture<>();
        Outcome[] outcomes = new Outcome[exchanges.size()];
        if (outcomes.length == 0) {
            result.complete(new FanOutResult(List.of(), 0, false));
            return result;
        }
        AtomicInteger remaining = new AtomicInteger(outcomes.length);
        AtomicInteger failedRequired = new AtomicInteger(-1);
        AtomicBoolean deadlineHit = new AtomicBoolean();
        // The timer thread only hands the aborts to the pool: completions and their dependents never
        // run on the one scheduler thread that every deadline shares.
        Scheduler.Task timer = scheduler.schedule(() -> executor.execute(() -> {
            deadlineHit.set(true);
            exchanges.forEach(RealExchange::expire);
        }), deadline.toNanos(), TimeUnit.NANOSECONDS);
        for (int i = 0; i < outcomes.length; i++) {
            int slot = i;
            boolean mustSucceed = required.get(i);
            exchanges.get(i).outcome().whenComplete((outcome, never) -> {
                outcomes[slot] = outcome;
                // The first required call to fail decides; the others' cancellations complete their outcomes.
                if (mustSucceed && outcome.kind() != Outcome.Kind.OK && failedRequired.compareAndSet(-1, slot)) {
                    exchanges.forEach(RealExchange::cancel);
                }
                // The decrement that reaches zero happens once; it alone completes the fan-out.
                if (remaining.decrementAndGet() == 0) {
                    timer.cancel();
                    result.complete(new FanOutResult(List.copyOf(Arrays.asList(outcomes)),
                            System.nanoTime() - startNanos, deadlineHit.get(), failedRequired.get()));
                }
            });
        }
        exchanges.forEach(RealExchange::start);
        return result;
    }
}
