package io.rc10k.broker.internal;

import io.rc10k.broker.Caching;
import io.rc10k.broker.Exchange;
import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.Hedging;
import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Drives one exchange over a {@link Wire} (the broker's HTTP/1.1 loops, or Jetty's client for h2c) and ends it
 * exactly once. It composes the parts that hold each concern: {@link Admission} (the partner's breaker and
 * place, given back once), {@link CacheCoalescing} (a cached exchange's side of its partner's cache),
 * {@link AttemptRunner} (the attempts, retries and hedges, and what each attempt's end means) and
 * {@link ExchangeEvents} (the Table 1 events to the listener, serialized, then the outcome).
 *
 * <p>Threading: {@link #start()} on the caller's thread; attempts end on their wire's threads (see
 * {@link Attempt}); {@link #expire()} and {@link #cancel()} from any thread: they record the abort and abort
 * the attempts out, whose completion then ends the exchange. The end is one compare-and-set, and the
 * admission goes back once, whichever end comes first.</p>
 */
public final class RealExchange implements Exchange {
    private static final AtomicIntegerFieldUpdater<RealExchange> COMPLETED =
            AtomicIntegerFieldUpdater.newUpdater(RealExchange.class, "completed");

    private final Partner partner;
    private final String method;
    private final URI uri;
    private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    private final Admission admission;
    private final ExchangeEvents events;
    private final AttemptRunner runner;
    /** Null unless cached. */
    private final CacheCoalescing coalescing;
    private long startNanos;
    /** 1 once ended. */
    private volatile int completed;

    /**
     * Where an admitted exchange is kept while in flight, for a stop to cancel: the client's list for an
     * exchange started on its own; {@link #NONE} for a fan-out's call, which its fan-out keeps.
     */
    public interface StopList {
        StopList NONE = new StopList() {
            @Override
            public void begun(RealExchange exchange) {
            }

            @Override
            public void ended(RealExchange exchange) {
            }
        };

        void begun(RealExchange exchange);

        void ended(RealExchange exchange);
    }

    /**
     * @param hedging  null, or how the exchange is hedged
     * @param caching  null, or how long its answer may be served from the partner's cache
     * @param cacheKey the key of its answer in that cache (with {@code caching})
     * @param timeout  null, or a bound of the call's own: the shorter of it and the partner's callTimeout holds
     */
    public RealExchange(Wire wire, Scheduler scheduler, Executor executor, PartnerState state, String method, URI uri,
            HttpFields headers, byte[] body, ExchangeListener listener, StopList stopList,
            Hedging hedging, Caching caching, ResponseCache.Key cacheKey, Duration timeout) {
        this.partner = state.partner();
        this.method = method;
        this.uri = uri;
        this.admission = new Admission(state, this, stopList);
        this.events = ExchangeEvents.of(this, listener);
        long partnerTimeout = partner.callTimeout().toNanos();
        this.runner = new AttemptRunner(this, wire, scheduler, executor, state, method, headers, body, events,
                hedging, timeout == null ? partnerTimeout : Math.min(partnerTimeout, timeout.toNanos()));
        this.coalescing = caching == null ? null : new CacheCoalescing(state.cache(), cacheKey, caching);
    }

    /** Starts the first attempt, or ends at once: from the cache, or REJECTED when the partner is full. */
    public RealExchange start() {
        startNanos = System.nanoTime();
        runner.start(startNanos);
        if (coalescing == null || !coalescing.served(startNanos, this::endUnasked, this::askForItself)) {
            proceed();
        }
        return this;
    }

    /** The identical call it followed got no answer: it asks for itself, unless it has ended meanwhile. */
    private void askForItself() {
        if (!isDone()) {
            coalescing.stopFollowing();
            proceed();
        }
    }

    /** Admission, then the first attempt (an abort that came first ends it there). */
    private void proceed() {
        Outcome refused = admission.admit();
        if (refused != null) {
            finish(refused, false, true);
            return;
        }
        runner.next();
    }

    @Override
    public void expire() {
        abort(Outcome.Kind.TIMEOUT);
    }

    @Override
    public void cancel() {
        abort(Outcome.Kind.CANCELLED);
    }

    private void abort(Outcome.Kind kind) {
        // One compare-and-set: the first of cancel, expire or stop decides both the kind and the cause.
        if (isDone() || !runner.abort(kind)) {
            return;
        }
        if (coalescing != null && coalescing.following()) {
            // Nothing of its own is out: it ends now, and the answer it waited for is dropped when it comes.
            endUnasked(Outcome.failure(partner.name(), kind, 0, Failures.abortCause(kind, elapsedNanos()),
                    elapsedNanos(), 0).fromCache("coalesced", elapsedNanos()));
            return;
        }
        runner.abortOut(kind);
    }

    /** An attempt's whole response, with these {@code fields}: the exchange's answer. */
    void answered(Outcome answer, HttpFields fields) {
        if (coalescing != null) {
            coalescing.cacheControl(fields.get(HttpHeader.CACHE_CONTROL));
        }
        attempted(answer);
    }

    /** The attempts decided: the exchange ends with {@code result}, its admission given back. */
    void attempted(Outcome result) {
        finish(result, true, true);
    }

    /** Ends with an answer it did not ask the partner for (the cache's, an identical call's): nothing to record. */
    private void endUnasked(Outcome answer) {
        finish(answer, false, false);
    }

    /**
     * Ends the exchange once; later calls are ignored.
     *
     * @param admitted it holds the partner's admission, given back now
     * @param recorded counted in the partner's outcomes and its breaker: false for an answer that came
     *                 from the cache or from an identical call, which told nothing new about the partner
     */
    private void finish(Outcome result, boolean admitted, boolean recorded) {
        if (!COMPLETED.compareAndSet(this, 0, 1)) {
            if (admitted) {
                // Lost to an end that held no admission (an abort while it still followed an identical call, as
                // it began asking for itself): the admission goes back all the same, and a probe that told
                // nothing frees the breaker's probe.
                admission.release();
                if (recorded) {
                    admission.record(Outcome.Kind.CANCELLED, 0);
                }
            }
            return;
        }
        Outcome told = coalescing == null ? result : coalescing.shared(result);
        runner.ended();
        if (admitted) {
            admission.release();
        }
        if (recorded) {
            admission.record(told.kind(), told.status());
        }
        events.complete(told, outcome);
    }

    @Override
    public Partner partner() {
        return partner;
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public URI uri() {
        return uri;
    }

    @Override
    public long elapsedNanos() {
        return System.nanoTime() - startNanos;
    }

    @Override
    public CompletionStage<Outcome> outcome() {
        return outcome;
    }

    @Override
    public boolean isDone() {
        return completed != 0;
    }

    @Override
    public String toString() {
        return "Exchange{" + partner.name() + " " + method + " " + uri + (isDone() ? " done" : "") + "}";
    }
}
