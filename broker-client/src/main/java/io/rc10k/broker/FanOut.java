package io.rc10k.broker;

import io.rc10k.broker.internal.FanOutLedger;
import io.rc10k.broker.internal.RealExchange;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import java.util.function.Function;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.io.CyclicTimeouts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * Jetty fires those there; the deadlines' timer only hands its aborts to the pool ({@link FanOuts}) —
 * and never exceptionally. Never block in its dependents.</p>
 */
public final class FanOut {
    private static final Logger LOG = LoggerFactory.getLogger(FanOut.class);
    /**
     * A later-stage call is built on the thread that ended its last dependency — often an event thread —
     * unless its dependencies' bodies come to more than this: its path function may parse them, so it is
     * then built on the pool.
     */
    static final int BUILD_INLINE_MAX_BYTES = 64 * 1024;

    private final BrokerClient broker;
    private final FanOuts running;
    private final Duration deadline;
    private final List<RealExchange> exchanges = new ArrayList<>();
    private final List<Boolean> required = new ArrayList<>();
    /** Later-stage calls by slot (null for a call made at start); null when there are none. */
    private List<Later> deferred;
    private final AtomicBoolean started = new AtomicBoolean();

    FanOut(BrokerClient broker, FanOuts running, Duration deadline) {
        if (deadline == null || deadline.isNegative() || deadline.isZero()) {
            throw new IllegalArgumentException("deadline: " + deadline + " (accepted: > 0)");
        }
        this.broker = broker;
        this.running = running;
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
        return call(partner, method, pathAndQuery, headers, null, listener, options);
    }

    /** @param body the request's body, or null ({@link ExchangeBuilder#body}) */
    public FanOut call(String partner, String method, String pathAndQuery, HttpFields headers, byte[] body,
            ExchangeListener listener, CallOptions options) {
        if (started.get()) {
            throw new IllegalStateException("fan-out already started");
        }
        exchanges.add(broker.create(partner, method, pathAndQuery, headers, body, listener, options, false));
        this.required.add(options.required());
        return this;
    }

    /** Adds the exchange {@code exchange} describes (as it is set now); it starts with the fan-out. */
    public FanOut add(ExchangeBuilder exchange) {
        return call(exchange.partner(), exchange.method(), exchange.pathAndQuery(), exchange.headers(),
                exchange.body(), exchange.listener(), exchange.options());
    }

    public int size() {
        return exchanges.size();
    }

    /**
     * Adds a call made only once the calls it depends on have ended — the later stage of a chain. When
     * the last of {@code dependsOn} ends, {@code pathAndQuery} gets their outcomes (in {@code dependsOn}
     * order) and returns the call's path and query; if it throws {@link IllegalArgumentException} (a
     * value it needed is missing, or the broker refuses the call), the call ends {@link Outcome.Kind#SKIPPED}
     * with that message and sends nothing. The fan-out's deadline covers the whole chain: a call whose
     * dependencies end after it ends TIMEOUT unsent; after a required call failed, CANCELLED unsent.
     *
     * @param dependsOn indexes of calls added before this one (the order of {@code call}/{@code callAfter})
     */
    public FanOut callAfter(int[] dependsOn, String partner, String method,
            Function<List<Outcome>, String> pathAndQuery, HttpFields headers, ExchangeListener listener,
            CallOptions options) {
        if (started.get()) {
            throw new IllegalStateException("fan-out already started");
        }
        int slot = exchanges.size();
        if (dependsOn.length == 0) {
            throw new IllegalArgumentException("callAfter: no call to wait for (use call)");
        }
        for (int d : dependsOn) {
            if (d < 0 || d >= slot) {
                throw new IllegalArgumentException("callAfter: " + d + " is not a call added before call " + slot);
            }
        }
        if (broker.partner(partner) == null) {
            throw broker.unknownPartner(partner);
        }
        if (deferred == null) {
            deferred = new ArrayList<>();
        }
        while (deferred.size() < slot) {
            deferred.add(null);
        }
        deferred.add(new Later(dependsOn.clone(), partner, method, pathAndQuery, headers, listener, options));
        exchanges.add(null);
        required.add(options.required());
        return this;
    }

    /** A call of a later stage: what it waits for and how it is made. */
    private record Later(int[] dependsOn, String partner, String method, Function<List<Outcome>, String> pathAndQuery,
            HttpFields headers, ExchangeListener listener, CallOptions options) {
    }

    /** Starts every call that depends on none, and arms the deadline. */
    public CompletionStage<FanOutResult> start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("fan-out already started");
        }
        CompletableFuture<FanOutResult> result = new CompletableFuture<>();
        if (exchanges.isEmpty()) {
            result.complete(new FanOutResult(List.of(), 0, false));
            return result;
        }
        new Run(result).start();
        return result;
    }

    /**
     * One started fan-out: the calls out, and the one completion; its {@link FanOutLedger} decides which
     * later-stage calls are made and when the last call ended. From start to completion it is in the
     * client's {@link FanOuts}, which expires it at its deadline and cancels it on a stop.
     */
    final class Run implements CyclicTimeouts.Expirable {
        private final long startNanos = System.nanoTime();
        private final long dueNanos = FanOuts.due(startNanos + deadline.toNanos());
        private final CompletableFuture<FanOutResult> result;
        private final FanOutLedger ledger;
        /** The calls out; a later stage's slot stays null until its call is made. */
        private final AtomicReferenceArray<RealExchange> out = new AtomicReferenceArray<>(exchanges.size());
        private final AtomicInteger failedRequired = new AtomicInteger(-1);
        private final AtomicBoolean deadlineHit = new AtomicBoolean();
        /** The client stopped: calls not made yet end CANCELLED unsent. */
        private volatile boolean stopped;

        Run(CompletableFuture<FanOutResult> result) {
            this.result = result;
            int[][] dependsOn = new int[exchanges.size()][];
            for (int i = 0; deferred != null && i < deferred.size(); i++) {
                Later later = deferred.get(i);
                dependsOn[i] = later == null ? null : later.dependsOn();
            }
            this.ledger = new FanOutLedger(dependsOn);
        }

        void start() {
            for (int i = 0; i < exchanges.size(); i++) {
                out.set(i, exchanges.get(i));
            }
            running.started(this);
            for (int i = 0; i < exchanges.size(); i++) {
                RealExchange exchange = exchanges.get(i);
                if (exchange != null) {
                    watch(i, exchange);
                }
            }
            for (int i = 0; i < exchanges.size(); i++) {
                RealExchange exchange = exchanges.get(i);
                if (exchange != null) {
                    exchange.start();
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
            for (int i = 0; i < exchanges.size(); i++) {
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
                ended(slot, unsent(deferred.get(slot), kind, why));
            }
        }

        private void watch(int slot, RealExchange exchange) {
            exchange.outcome().whenComplete((outcome, failure) -> ended(slot, outcome != null ? outcome
                    : Outcome.failure(exchange.partner().name(), Outcome.Kind.CANCELLED, 0, failure, 0, 0)));
        }

        /**
         * A call ended: the first word for its slot counts, and whatever happens next — cancelling the rest,
         * making the calls it let start, even a fault of ours — the slot is counted, so the fan-out
         * completes. (Thrown out of here, a fault would vanish in {@code whenComplete}, and with it the
         * completion.)
         */
        private void ended(int slot, Outcome outcome) {
            if (!ledger.record(slot, outcome)) {
                return;
            }
            try {
                // The first required call to fail decides; the others' cancellations complete their outcomes.
                if (required.get(slot) && outcome.kind() != Outcome.Kind.OK && failedRequired.compareAndSet(-1, slot)) {
                    forEachOut(RealExchange::cancel);
                }
                if (ledger.chained()) {
                    for (int ready = ledger.claimReady(0); ready >= 0; ready = ledger.claimReady(ready + 1)) {
                        makeSoon(ready, deferred.get(ready));
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
        private void makeSoon(int slot, Later later) {
            long inputBytes = 0;
            for (int d : later.dependsOn()) {
                inputBytes += ledger.outcome(d).bodyLength();
            }
            if (inputBytes <= BUILD_INLINE_MAX_BYTES) {
                makeSafely(slot, later);
                return;
            }
            try {
                broker.executor().execute(() -> makeSafely(slot, later));
            } catch (RejectedExecutionException stopping) {
                ended(slot, unsent(later, Outcome.Kind.CANCELLED, "the broker client stopped"));
            }
        }

        /** A claimed call must end, whatever happens while it is made: else the fan-out would wait for it for good. */
        private void makeSafely(int slot, Later later) {
            try {
                make(slot, later);
            } catch (RuntimeException | Error e) {
                LOG.error("fan-out: making call {} failed; it ends skipped", slot, e);
                ended(slot, unsent(later, Outcome.Kind.SKIPPED, "making the call failed: " + e));
            }
        }

        /** Makes a claimed later-stage call, or ends it unsent when it may no longer go out or cannot be built. */
        private void make(int slot, Later later) {
            if (deadlineHit.get() || failedRequired.get() >= 0 || stopped) {
                ended(slot, unsent(later, deadlineHit.get() ? Outcome.Kind.TIMEOUT : Outcome.Kind.CANCELLED,
                        deadlineHit.get() ? "the deadline passed before the calls it depends on ended"
                                : stopped ? "the broker client stopped" : "a required call failed first"));
                return;
            }
            String path;
            try {
                path = later.pathAndQuery().apply(ledger.outcomesOf(later.dependsOn()));
            } catch (RuntimeException e) {
                // IllegalArgumentException: a value it needed is missing. Anything else is a fault of the caller's
                // function; it ends the call the same way, never the fan-out.
                ended(slot, unsent(later, Outcome.Kind.SKIPPED, e instanceof IllegalArgumentException ? e.getMessage()
                        : "building the call's path failed: " + e));
                return;
            }
            RealExchange exchange;
            try {
                exchange = broker.create(later.partner(), later.method(), path, later.headers(), null, later.listener(),
                        later.options(), false);
            } catch (IllegalArgumentException e) {
                ended(slot, unsent(later, Outcome.Kind.SKIPPED, e.getMessage())); // the broker refused the call
                return;
            } catch (IllegalStateException e) {
                // The client began to stop after the check above, before it cancelled this fan-out.
                ended(slot, unsent(later, Outcome.Kind.CANCELLED, "the broker client stopped"));
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

        private Outcome unsent(Later later, Outcome.Kind kind, String why) {
            return Outcome.failure(later.partner(), kind, 0, new CancellationException(why), 0, 0);
        }
    }
}
