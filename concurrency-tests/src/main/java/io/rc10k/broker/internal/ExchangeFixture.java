package io.rc10k.broker.internal;

import io.rc10k.broker.CircuitBreakerSettings;
import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.Hedging;
import io.rc10k.broker.Partner;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.infra.results.IIL_Result;

/**
 * Real {@link RealExchange}s over a {@link Wire} whose calls a jcstress actor ends by hand, as a connection's
 * loop would: what an exchange does with its admission, its attempts and its one completion, without sockets
 * or threads of its own. Each state makes its own wire, partner state and scheduler.
 */
final class ExchangeFixture {
    /** Two exchanges admitted at once (an exchange and its hedge); no retry; a breaker that never opens. */
    static final Partner PARTNER = Partner.builder("p", "http://partner.invalid:8080").maxConnections(2).maxQueued(0)
            .retries(0).circuitBreaker(CircuitBreakerSettings.DISABLED).build();
    static final URI PATH = URI.create("http://partner.invalid:8080/weather");
    private static final HttpFields ANSWER_FIELDS = HttpFields.build()
            .put(HttpHeader.CONTENT_TYPE, "application/json").put(HttpHeader.CONTENT_LENGTH, "2").asImmutable();
    private static final HttpFields CUT_SHORT_FIELDS = HttpFields.build()
            .put(HttpHeader.CONTENT_TYPE, "application/json").put(HttpHeader.CONTENT_LENGTH, "100").asImmutable();
    private static final byte[] ANSWER_BODY = "{}".getBytes(StandardCharsets.US_ASCII);

    private ExchangeFixture() {
    }

    static PartnerState partnerState() {
        return new PartnerState(PARTNER, new BufferBudget(1 << 20));
    }

    /**
     * What every exchange state forbids ({@code @JCStressMeta} of its test): an admission given back twice or
     * never, and any end not listed as the test's own. Results: the partner's exchanges in flight once every call
     * has ended (0), the calls made, and how the exchange ended ({@link #record}).
     */
    @Outcome(id = "-1, .*", expect = Expect.FORBIDDEN,
            desc = "an admission given back twice: the partner admits one exchange more than its capacity")
    @Outcome(id = "1, .*", expect = Expect.FORBIDDEN,
            desc = "an admission never given back: the partner admits one exchange fewer from now on")
    @Outcome(expect = Expect.FORBIDDEN, desc = "not a way this exchange can end")
    static final class Admissions {
        private Admissions() {
        }
    }

    /** A hedged exchange with its first attempt and its one hedge out, each admitted: a state's start. */
    static class Hedged {
        final LoopWire wire = new LoopWire();
        final PartnerState state = partnerState();
        final RealExchange exchange = hedged(wire, state);

        /** The results of {@link Admissions}. */
        void record(IIL_Result r) {
            ExchangeFixture.record(r, state, wire, exchange);
        }
    }

    /** A hedged exchange with its first attempt and its one hedge out, each admitted. */
    static RealExchange hedged(LoopWire wire, PartnerState state) {
        ManualScheduler scheduler = new ManualScheduler();
        RealExchange exchange = new RealExchange(wire, scheduler, Runnable::run, state, "GET", PATH, null, null,
                ExchangeListener.NONE, RealExchange.StopList.NONE, new Hedging(Duration.ofMillis(1), 1), null, null,
                null).start();
        scheduler.fire(); // the hedge timer: one more attempt, admitted on its own
        if (wire.calls.size() != 2 || state.inFlight() != 2) {
            throw new AssertionError("no hedge went out: calls " + wire.calls.size() + ", in flight "
                    + state.inFlight());
        }
        return exchange;
    }

    /** The results of {@link Admissions}: exchanges in flight, calls made, how the exchange ended (or "not ended"). */
    static void record(IIL_Result r, PartnerState state, LoopWire wire, RealExchange exchange) {
        r.r1 = state.inFlight();
        r.r2 = wire.calls.size();
        io.rc10k.broker.Outcome outcome = exchange.outcome().toCompletableFuture().getNow(null);
        r.r3 = outcome == null ? "not ended" : outcome.kind();
    }

    /**
     * The calls it made, in order. Like {@link Http1Call}: an abort before the call starts ends it as it
     * starts; an abort after only sets its flag, and its loop ends it ({@link LoopCall#answer},
     * {@link LoopCall#fail}, {@link LoopCall#endIfAborted}).
     */
    static final class LoopWire implements Wire {
        final List<LoopCall> calls = new CopyOnWriteArrayList<>();

        @Override
        public Call newCall(String partner, String method, URI uri, HttpFields headers, byte[] body,
                long timeoutNanos, Events events) {
            LoopCall call = new LoopCall(events);
            calls.add(call);
            return call;
        }

        @Override
        public boolean isRunning() {
            return true;
        }

        /** The loops of the calls made: each aborted call not ended yet ends with its abort's cause. */
        void endAborted() {
            for (LoopCall call : calls) {
                call.endIfAborted();
            }
        }
    }

    static final class LoopCall implements Wire.Call {
        private final Wire.Events events;
        private final AtomicBoolean done = new AtomicBoolean();
        private final AtomicReference<Throwable> aborted = new AtomicReference<>();

        LoopCall(Wire.Events events) {
            this.events = events;
        }

        @Override
        public void start() {
            Throwable early = aborted.get();
            if (early != null) {
                complete(0, null, early);
            }
            // Otherwise it is out on a connection: its loop ends it.
        }

        @Override
        public void abort(Throwable cause) {
            aborted.compareAndSet(null, cause);
        }

        /** The loop: the partner's whole answer (200, "{}", kept alive), unless the call was aborted first. */
        void answer() {
            if (endIfAborted()) {
                return;
            }
            events.onBegin();
            events.onSent();
            events.onHeaders(200, ANSWER_FIELDS);
            events.onContent(ByteBuffer.wrap(ANSWER_BODY));
            if (!endIfAborted()) {
                complete(200, ANSWER_FIELDS, null);
            }
        }

        /**
         * The loop: the partner's answer begins (a 200 that declares 100 bytes; the call answers with it), then
         * the connection fails with {@code failure} before the body ends, unless the call was aborted first.
         */
        void answerThenFail(Throwable failure) {
            if (endIfAborted()) {
                return;
            }
            events.onBegin();
            events.onSent();
            events.onHeaders(200, CUT_SHORT_FIELDS);
            events.onContent(ByteBuffer.wrap(ANSWER_BODY));
            fail(failure);
        }

        /** The loop: the call fails with {@code failure}, or with its abort's cause. */
        void fail(Throwable failure) {
            if (!endIfAborted()) {
                complete(0, null, failure);
            }
        }

        /** The loop ends an aborted call with its abort's cause; false when it was not aborted. */
        boolean endIfAborted() {
            Throwable cause = aborted.get();
            if (cause == null) {
                return false;
            }
            complete(0, null, cause);
            return true;
        }

        boolean isDone() {
            return done.get();
        }

        private void complete(int status, HttpFields fields, Throwable failure) {
            if (done.compareAndSet(false, true)) {
                events.onComplete(status, fields, failure, failure == null);
            }
        }
    }

    /** Holds what is scheduled until {@link #fire()} runs it on the caller. */
    static final class ManualScheduler extends AbstractLifeCycle implements Scheduler {
        private Runnable scheduled;

        @Override
        public Task schedule(Runnable task, long delay, TimeUnit units) {
            scheduled = task;
            return () -> false;
        }

        void fire() {
            Runnable task = scheduled;
            scheduled = null;
            task.run();
        }
    }
}
