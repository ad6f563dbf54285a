package io.rc10k.broker.internal;

import io.rc10k.broker.Caching;
import io.rc10k.broker.Exchange;
import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.Hedging;
import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import java.net.URI;
import java.time.Duration;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.concurrent.Executor;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.util.thread.Scheduler;
import org.eclipse.jetty.util.thread.SerializedInvoker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives one exchange over a {@link Wire} (the broker's HTTP/1.1 loops, or Jetty's client for h2c):
 * admission, attempts and retries, the Table 1 events, the body bound, and exactly one completion.
 *
 * <p>Threading: a wire reports request events (sent) and response events (headers, body) on
 * different paths, possibly on two threads at once. Every listener call therefore goes through a
 * {@link SerializedInvoker}: calls never overlap, each runs on the thread that offered it or on the
 * thread already delivering (never blocking either), and nothing is delivered after
 * {@code onComplete}. "Waiting for response" is decided inside the serialized task, so it precedes
 * "headers completed" even when the response overtakes the request's own success callback. An
 * exchange without a listener ({@link ExchangeListener#NONE}) queues no event at all: its outcome
 * completes on the thread that ends it.
 * {@link #expire()} and {@link #cancel()} may come from any thread: they set a flag and abort the
 * current request; completion then comes through Jetty's callback.</p>
 *
 * <p>Hedging ({@link Hedging}): a timer sends one more attempt while none has answered, each admitted
 * by the partner like an exchange of its own and released when it ends. The first attempt whose
 * response headers arrive answers the exchange and aborts the others; an attempt that fails while
 * another is still out is dropped. Every attempt reports its own Table 1 events.</p>
 */
public final class RealExchange implements Exchange {
    private static final Logger LOG = LoggerFactory.getLogger(RealExchange.class);
    private static final Set<String> IDEMPOTENT = Set.of("GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE");
    private static final byte[] NO_BODY = new byte[0];
    /** A body's first buffer when it may be larger: it then doubles as bytes arrive, up to its declared length. */
    private static final int FIRST_BUFFER_BYTES = 8 * 1024;

    private final Wire wire;
    private final Scheduler scheduler;
    private final Executor executor;
    private final PartnerState state;
    private final Partner partner;
    private final String method;
    private final URI uri;
    private final HttpFields headers;
    /** The request's body, the same bytes on every attempt; null for none. */
    private final byte[] body;
    private final ExchangeListener listener;
    /** False for {@link ExchangeListener#NONE}: then no event is even queued, and the outcome completes at once. */
    private final boolean listening;
    private final StopList stopList;
    private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    private final AtomicBoolean completed = new AtomicBoolean();
    private final SerializedInvoker events = new SerializedInvoker(RealExchange.class);
    /** Touched only inside {@link #events} tasks. */
    private boolean delivered;
    private long startNanos;
    private long deadlineNanos;
    private int attempts;
    /** What the partner's circuit breaker gave the call: the probe's permit tells its outcome is the verdict. */
    private long breakerPermit = CircuitBreaker.ALLOWED;
    /** The attempt whose request is out, when not hedged. */
    private volatile Attempt current;
    private final Hedging hedging;
    /** Null unless hedged: what an exchange without hedging never allocates. */
    private final Hedged hedged;
    private final Caching caching;
    private final ResponseCache.Key cacheKey;
    /** Cached and the first of its key: the identical calls that came meanwhile wait on this. */
    private CompletableFuture<Outcome> leading;
    /** Cached and waiting for an identical call's answer: nothing of its own is out. */
    private volatile boolean following;
    /** How long the answer may be cached, under the partner's Cache-Control; set before finish. */
    private volatile long cacheTtlNanos;

    /** A hedged exchange's attempts out, the one answering, hedges sent, and the timer for the next. */
    private static final class Hedged {
        final Set<Attempt> live = ConcurrentHashMap.newKeySet();
        /**
         * Attempts launched whose end has not been taken yet: each launch adds one, each end takes one off
         * first thing, so exactly one failing attempt sees none left (the verdict, if none answered).
         */
        final AtomicInteger out = new AtomicInteger();
        final AtomicReference<Attempt> answering = new AtomicReference<>();
        final AtomicInteger sent = new AtomicInteger();
        volatile Scheduler.Task timer;

        void cancelTimer() {
            Scheduler.Task task = timer;
            if (task != null) {
                task.cancel();
            }
        }
    }
    private final AtomicReference<Outcome.Kind> abortKind = new AtomicReference<>();
    /** 1 once the partner's admission went back ({@link #releaseAdmission()}). */
    private volatile int released;
    private static final AtomicIntegerFieldUpdater<RealExchange> RELEASED =
            AtomicIntegerFieldUpdater.newUpdater(RealExchange.class, "released");

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
     */
    public RealExchange(Wire wire, Scheduler scheduler, Executor executor, PartnerState state, String method, URI uri,
            HttpFields headers, byte[] body, ExchangeListener listener, StopList stopList,
            Hedging hedging, Caching caching, ResponseCache.Key cacheKey, Duration timeout) {
        this.wire = wire;
        long partnerTimeout = state.partner().callTimeout().toNanos();
        this.timeoutNanos = timeout == null ? partnerTimeout : Math.min(partnerTimeout, timeout.toNanos());
        this.scheduler = scheduler;
        this.executor = executor;
        this.caching = caching;
        this.cacheKey = cacheKey;
        this.hedging = hedging;
        this.hedged = hedging == null ? null : new Hedged();
        this.state = state;
        this.partner = state.partner();
        this.method = method;
        this.uri = uri;
        this.headers = headers;
        this.body = body;
        this.listener = listener == null ? ExchangeListener.NONE : listener;
        this.listening = this.listener != ExchangeListener.NONE;
        this.stopList = stopList;
    }

    /** Starts the first attempt, or ends REJECTED at once when the partner is full. */
    public RealExchange start() {
        startNanos = System.nanoTime();
        deadlineNanos = startNanos + timeoutNanos;
        if (caching != null && servedByCache()) {
            return this;
        }
        proceed();
        return this;
    }

    /**
     * Cached: true when the cache answers at once or an identical call already out will (this exchange
     * then sends nothing); false when this exchange leads and must call the partner.
     */
    private boolean servedByCache() {
        ResponseCache cache = state.cache();
        Outcome hit = cache.fresh(cacheKey, startNanos);
        if (hit != null) {
            finish(hit.fromCache("hit", System.nanoTime() - startNanos), false, false);
            return true;
        }
        CompletableFuture<Outcome> mine = new CompletableFuture<>();
        CompletableFuture<Outcome> out = cache.lead(cacheKey, mine);
        if (out == null) {
            // The call this one missed may have stored its answer and left between the look-up and the lead.
            Outcome stored = cache.fresh(cacheKey, System.nanoTime());
            if (stored != null) {
                cache.led(cacheKey, mine);
                mine.complete(stored);
                finish(stored.fromCache("hit", System.nanoTime() - startNanos), false, false);
                return true;
            }
            leading = mine;
            return false;
        }
        following = true;
        out.whenComplete((answer, never) -> {
            if (answer.hasResponse()) {
                finish(answer.fromCache("coalesced", elapsedNanos()), false, false);
            } else if (!completed.get()) {
                // The call it waited for got no answer (cancelled, timed out, …): this one asks for itself.
                following = false;
                proceed();
            }
        });
        return true;
    }

    /** Admission, then the first attempt (an abort that came first ends it there). */
    private void proceed() {
        breakerPermit = state.breakerPermit();
        if (breakerPermit == CircuitBreaker.REFUSED) {
            finish(Outcome.failure(partner.name(), Outcome.Kind.CIRCUIT_OPEN, 0, new RejectedExecutionException(
                    "partner " + partner.name() + ": circuit breaker open after repeated failures"), 0, 0), false);
            return;
        }
        if (!state.tryAdmit()) {
            finish(Outcome.failure(partner.name(), Outcome.Kind.REJECTED, 0, new RejectedExecutionException(
                    "partner " + partner.name() + " is full: " + partner.capacity() + " exchanges in flight "
                            + "(maxConnections and maxQueued)"), 0, 0), false);
            return;
        }
        stopList.begun(this);
        attempt();
    }

    private void attempt() {
        Outcome.Kind aborted = abortKind.get();
        long remaining = deadlineNanos - System.nanoTime();
        if (aborted != null || remaining <= 0) {
            Outcome.Kind kind = aborted != null ? aborted : Outcome.Kind.TIMEOUT;
            if (kind == Outcome.Kind.TIMEOUT) {
                notify(l -> l.onExpired(this));
            }
            finish(Outcome.failure(partner.name(), kind, 0, new TimeoutException("no time left for attempt "
                    + (attempts + 1)), elapsedNanos(), attempts), true);
            return;
        }
        attempts++;
        if (hedged != null && hedged.timer == null) {
            scheduleHedge();
        }
        launch(remaining, false);
    }

    private void launch(long remaining, boolean hedge) {
        Attempt attempt = new Attempt(hedge);
        PartnerHosts hosts = state.hosts();
        // A retry or a hedge goes to another host than the last attempt's when there is one.
        PartnerHosts.Host host = hosts.pick(lastHost);
        lastHost = host;
        attempt.host = host;
        hosts.started(host);
        attempt.call = wire.newCall(partner.name(), method, host.rebase(uri, hosts.first()), headers, body,
                remaining, attempt);
        if (hedged != null) {
            hedged.out.incrementAndGet();
            hedged.live.add(attempt);
        } else {
            current = attempt;
        }
        // An expire/cancel that came between the flag check and now must still abort this attempt.
        Outcome.Kind late = abortKind.get();
        if (late != null) {
            attempt.call.abort(abortCause(late));
        }
        attempt.call.start();
    }

    private void scheduleHedge() {
        hedged.timer = scheduler.schedule(() -> executor.execute(this::hedge),
                hedging.after().toNanos(), TimeUnit.NANOSECONDS);
    }

    /** The hedge timer fired: one more attempt, if none has answered, time is left and the partner admits it. */
    private void hedge() {
        long remaining = deadlineNanos - System.nanoTime();
        if (completed.get() || abortKind.get() != null || hedged.answering.get() != null || hedged.live.isEmpty()
                || remaining <= 0 || !state.tryAdmit()) {
            return;
        }
        int sent = hedged.sent.incrementAndGet();
        LOG.debug("hedging {} {}: attempt {} after {} ms", method, uri, sent + 1, hedging.after().toMillis());
        if (sent < hedging.maxExtra()) {
            scheduleHedge();
        }
        launch(remaining, true);
    }

    private int hedges() {
        return hedged == null ? 0 : hedged.sent.get();
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
        if (completed.get() || !abortKind.compareAndSet(null, kind)) {
            return;
        }
        if (following) {
            // Nothing of its own is out: it ends now, and the answer it waited for is dropped when it comes.
            finish(Outcome.failure(partner.name(), kind, 0, abortCause(kind), elapsedNanos(), 0).fromCache("coalesced",
                    elapsedNanos()), false, false);
            return;
        }
        if (hedged == null) {
            Attempt attempt = current;
            if (attempt != null) {
                attempt.call.abort(abortCause(kind));
            }
            return;
        }
        for (Attempt attempt : hedged.live) {
            attempt.call.abort(abortCause(kind));
        }
    }

    private Throwable abortCause(Outcome.Kind kind) {
        return kind == Outcome.Kind.TIMEOUT
                ? new TimeoutException("fan-out deadline passed after " + TimeUnit.NANOSECONDS.toMillis(elapsedNanos())
                        + " ms")
                : new Failures.CancelledException("cancelled");
    }

    /** Ends the exchange once; later calls are ignored. */
    private void finish(Outcome result, boolean admitted) {
        finish(result, admitted, true);
    }

    /**
     * Ends the exchange once; later calls are ignored.
     *
     * @param recorded counted in the partner's outcomes and its breaker: false for an answer that came
     *                 from the cache or from an identical call, which told nothing new about the partner
     */
    private void finish(Outcome outcome, boolean admitted, boolean recorded) {
        if (!completed.compareAndSet(false, true)) {
            if (admitted) {
                // Lost to an end that held no admission (an abort while it still followed an identical call, as
                // it began asking for itself): the admission goes back all the same, and a probe that told
                // nothing frees the breaker's probe.
                releaseAdmission();
                if (recorded) {
                    state.record(Outcome.Kind.CANCELLED, 0, breakerPermit);
                }
            }
            return;
        }
        Outcome result = outcome;
        CompletableFuture<Outcome> led = leading;
        if (led != null) {
            long ttl = cacheTtlNanos;
            if (outcome.kind() == Outcome.Kind.OK && outcome.status() == 200 && ttl > 0) {
                state.cache().store(cacheKey, outcome, ttl, System.nanoTime());
            }
            state.cache().led(cacheKey, led);
            led.complete(outcome);
            result = outcome.fromCache("miss", outcome.elapsedNanos());
        }
        if (hedged != null) {
            hedged.cancelTimer();
        }
        current = null;
        if (admitted) {
            releaseAdmission();
        }
        if (recorded) {
            state.record(result.kind(), result.status(), breakerPermit);
        }
        if (!listening) {
            this.outcome.complete(result);
            return;
        }
        Outcome answer = result;
        events.run(() -> {
            call(l -> l.onComplete(this, answer));
            delivered = true;
            this.outcome.complete(answer);
        });
    }

    /** Gives the partner's admission back once, whichever end comes first. */
    private void releaseAdmission() {
        if (RELEASED.compareAndSet(this, 0, 1)) {
            state.release();
            stopList.ended(this);
        }
    }

    private void notify(Consumer<ExchangeListener> event) {
        if (listening) {
            events.run(() -> call(event));
        }
    }

    /** Runs inside {@link #events}: one listener call, never after onComplete, never throwing. */
    private void call(Consumer<ExchangeListener> event) {
        if (delivered) {
            return;
        }
        try {
            event.accept(listener);
        } catch (Throwable t) {
            LOG.warn("exchange listener failed on {} {}; ignored", method, uri, t);
        }
    }

    /**
     * Logs on the pool, not here: this may be an event thread (a loop, a selector), which must not wait
     * for an appender, whatever logging backend the application chose.
     */
    private void warn(String format, Object... arguments) {
        try {
            executor.execute(() -> LOG.warn(format, arguments));
        } catch (RejectedExecutionException stopping) {
            LOG.warn(format, arguments);
        }
    }

    private boolean mayRetry(Outcome.Kind kind) {
        if (attempts > partner.retries() || abortKind.get() != null || !wire.isRunning()
                || deadlineNanos - System.nanoTime() <= 0) {
            return false;
        }
        return kind == Outcome.Kind.CONNECT_FAILED || (kind == Outcome.Kind.RESET && IDEMPOTENT.contains(method));
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
        return completed.get();
    }

    @Override
    public String toString() {
        return "Exchange{" + partner.name() + " " + method + " " + uri + (isDone() ? " done" : "") + "}";
    }

    /** One attempt: its wire events, the body bound, the verdict. */
    /** The call's own bound, retries included: the partner's callTimeout or a shorter one of the call's. */
    private final long timeoutNanos;

    /** The host of the attempt launched last: the one a retry or hedge avoids. */
    private volatile PartnerHosts.Host lastHost;

    private final class Attempt implements Wire.Events {
        /** Where this attempt went. */
        private PartnerHosts.Host host;
        /** A hedge: admitted by the partner on its own, released when it ends. */
        private final boolean hedge;
        /** Set before the call starts; its own events may abort it. */
        private Wire.Call call;
        /** Aborted because another attempt answered first. */
        private volatile boolean superseded;
        /** A connection carried the request: a failure now is a reset, no longer a failed connect. */
        private volatile boolean begun;
        /** Touched only inside {@link #events} tasks. */
        private boolean waitingReported;
        /*
         * The body so far. Response events and the completion come on one thread at a time (a connection's
         * loop, or Jetty's serialized response callbacks), so these need no synchronization.
         */
        private byte[] body = NO_BODY;
        private int length;
        /** How far the buffer may grow before the bytes force it: the declared length, else maxResponseBytes. */
        private long expected = Long.MAX_VALUE;
        /** Of the client's {@link BufferBudget}: the buffer's capacity, given back when the attempt ends. */
        private long reserved;
        /** Aborted for its size or the budget: what still arrives until the abort lands is dropped. */
        private boolean refused;

        Attempt(boolean hedge) {
            this.hedge = hedge;
        }

        @Override
        public void onBegin() {
            begun = true;
            if (listening) {
                RealExchange.this.notify(l -> l.onConnectionEstablished(RealExchange.this));
            }
        }

        @Override
        public void onSent() {
            if (listening) {
                events.run(this::reportWaiting);
            }
        }

        /** Inside {@link #events}: once per attempt, from the request's success or the first response event. */
        private void reportWaiting() {
            if (!waitingReported) {
                waitingReported = true;
                call(l -> l.onWaitingForResponse(RealExchange.this));
            }
        }

        @Override
        public void onHeaders(int status, HttpFields fields) {
            if (hedging != null && !answer()) {
                return;
            }
            if (listening) {
                events.run(() -> {
                    reportWaiting();
                    call(l -> l.onHeadersCompleted(RealExchange.this, status));
                });
            }
            long declared = fields.getLongField(HttpHeader.CONTENT_LENGTH);
            // HEAD, 204 and 304 declare a length but carry no body: nothing to refuse.
            boolean bodyFollows = !"HEAD".equals(method) && status != 204 && status != 304;
            if (bodyFollows && declared > partner.maxResponseBytes()) {
                refuse(tooLarge(declared));
            } else if (bodyFollows && declared >= 0) {
                // Only a hint for how far to grow: the buffer follows the bytes that come, never the declaration.
                expected = declared;
            }
        }

        @Override
        public void onContent(ByteBuffer content) {
            if (refused) {
                return;
            }
            int n = content.remaining();
            if ((long) length + n > partner.maxResponseBytes()) {
                refuse(tooLarge((long) length + n));
                return;
            }
            if (length + n > body.length && !grow(length + n)) {
                return;
            }
            content.get(body, length, n);
            length += n;
        }

        /**
         * Makes room for {@code needed} bytes: doubling from {@value #FIRST_BUFFER_BYTES}, never past the
         * declared length or maxResponseBytes unless the bytes themselves do, each step reserved from the
         * client's budget first; false (and the attempt aborted) when the budget is spent.
         */
        private boolean grow(int needed) {
            long doubled = Math.max(FIRST_BUFFER_BYTES, 2L * body.length);
            int capacity = (int) Math.max(needed, Math.min(doubled, Math.min(expected, partner.maxResponseBytes())));
            long more = capacity - body.length;
            if (!state.buffers().reserve(more)) {
                refuse(new Failures.MemoryBudgetException("partner " + partner.name() + ": the client's budget of "
                        + state.buffers().maxBytes() + " buffered response bytes is spent by the calls in flight "
                        + "(maxBufferedBytes)"));
                return false;
            }
            reserved += more;
            body = Arrays.copyOf(body, capacity);
            return true;
        }

        private void refuse(Throwable why) {
            refused = true;
            call.abort(why);
        }

        /** Hedged: the first attempt with a response answers, and aborts the others; false for a later one. */
        private boolean answer() {
            if (!hedged.answering.compareAndSet(null, this) && hedged.answering.get() != this) {
                superseded = true;
                call.abort(new Failures.CancelledException("another attempt answered first"));
                return false;
            }
            hedged.cancelTimer();
            for (Attempt other : hedged.live) {
                if (other != this) {
                    other.superseded = true;
                    other.call.abort(new Failures.CancelledException("another attempt answered first"));
                }
            }
            return true;
        }

        private Failures.TooLargeException tooLarge(long bytes) {
            return new Failures.TooLargeException("response body of " + partner.name() + " exceeds maxResponseBytes "
                    + partner.maxResponseBytes() + " (at least " + bytes + " bytes)");
        }

        @Override
        public void onComplete(int status, HttpFields fields, Throwable failure, boolean kept) {
            state.buffers().release(reserved);
            reserved = 0;
            if (!state.hosts().single()) {
                Outcome.Kind aborted = abortKind.get();
                Outcome.Kind kind = failure == null ? (status >= 400 ? Outcome.Kind.HTTP_ERROR : Outcome.Kind.OK)
                        : superseded ? Outcome.Kind.CANCELLED : aborted != null ? aborted
                        : Failures.classify(failure, begun);
                state.hosts().ended(host, kind, status);
            }
            // Taken before this attempt leaves the live set: an attempt that answers after that (and so does not
            // mark this one superseded) began before this end, so this one finds it still out, not 0 left.
            int left = hedged == null ? 0 : hedged.out.decrementAndGet();
            if (hedged != null) {
                hedged.live.remove(this);
            }
            if (hedge) {
                state.release();
            }
            // Superseded by an attempt that answered first, or late: the exchange has already ended.
            if (superseded || completed.get()) {
                return;
            }
            if (failure == null) {
                byte[] whole = length == body.length ? body : Arrays.copyOf(body, length);
                if (listening) {
                    int bytes = length;
                    RealExchange.this.notify(l -> l.onBodyCompleted(RealExchange.this, bytes));
                }
                if (kept && listening) {
                    RealExchange.this.notify(l -> l.onConnectionIdle(RealExchange.this));
                }
                if (caching != null) {
                    cacheTtlNanos = ResponseCache.ttlUnder(fields.get(HttpHeader.CACHE_CONTROL), caching.ttl().toNanos());
                }
                finish(Outcome.response(partner.name(), status, fields.get(HttpHeader.CONTENT_TYPE), whole,
                        elapsedNanos(), attempts + hedges()).withHedges(hedges(), hedge), true);
                return;
            }
            // Hedged: the attempt that answered decides, with its failure too (it superseded the others, whose ends
            // are dropped); without an answer, the last attempt to end does. Any other failure is not the verdict.
            // A retry after a failed answer may answer in its turn.
            if (hedged != null && !hedged.answering.compareAndSet(this, null) && abortKind.get() == null
                    && (hedged.answering.get() != null || left > 0)) {
                LOG.debug("{} {}: an attempt failed while another is out ({})", method, uri, failure.toString());
                return;
            }
            Outcome.Kind aborted = abortKind.get();
            Outcome.Kind kind = aborted != null ? aborted : Failures.classify(failure, begun);
            if (kind == Outcome.Kind.CONNECT_FAILED) {
                RealExchange.this.notify(l -> l.onConnectionFailed(RealExchange.this, failure));
            } else if (kind == Outcome.Kind.MALFORMED) {
                warn("partner {}: {} {} ended malformed, the connection closed and the call not retried: {}",
                        partner.name(), method, uri, failure.getMessage());
            } else if (kind == Outcome.Kind.TLS_FAILED) {
                warn("partner {}: TLS handshake with {} failed, nothing sent and the call not retried: {}",
                        partner.name(), uri.getAuthority(), Failures.tlsReason(failure));
            }
            if (mayRetry(kind)) {
                LOG.debug("retrying {} {} after {} (attempt {})", method, uri, kind, attempts);
                attempt();
                return;
            }
            if (kind == Outcome.Kind.TIMEOUT) {
                RealExchange.this.notify(l -> l.onExpired(RealExchange.this));
            }
            finish(Outcome.failure(partner.name(), kind, status, failure, elapsedNanos(), attempts + hedges())
                    .withHedges(hedges(), false), true);
        }
    }
}
