package io.rc10k.broker.internal;

import io.rc10k.broker.Exchange;
import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.Outcome;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.eclipse.jetty.util.thread.SerializedInvoker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Table 1 events of one exchange (docs/architecture.md's glossary), delivered to its
 * {@link ExchangeListener}, then its outcome.
 *
 * <pre>{@code
 * ExchangeEvents events = ExchangeEvents.of(exchange, listener);
 * ExchangeEvents.AttemptEvents attempt = events.attempt();
 * attempt.connectionEstablished();
 * attempt.sent();                                  // "waiting for response", once per attempt
 * attempt.headersCompleted(200);
 * events.complete(outcome, future);                // onComplete, then the future
 * }</pre>
 *
 * <p>Threading: a wire reports request events (sent) and response events (headers, body) on different
 * paths, possibly on two threads at once. Every listener call therefore goes through a
 * {@link SerializedInvoker}: calls never overlap, each runs on the thread that offered it or on the thread
 * already delivering (never blocking either), and nothing is delivered after {@code onComplete}, which is
 * delivered before the outcome's future completes. "Waiting for response" is decided inside the serialized
 * task, so it precedes "headers completed" even when the response overtakes the request's own success
 * callback. A listener that throws is logged and ignored. Without a listener ({@link #of} with
 * {@link ExchangeListener#NONE}) no event is even queued and the outcome completes on the thread that ends
 * the exchange.</p>
 */
final class ExchangeEvents {
    /** Under the exchange's name: operators set one logger for what an exchange logs. */
    private static final Logger LOG = LoggerFactory.getLogger(RealExchange.class);
    private static final ExchangeEvents NONE = new ExchangeEvents(null, ExchangeListener.NONE);
    private static final AttemptEvents NO_ATTEMPT_EVENTS = NONE.new AttemptEvents();

    private final Exchange exchange;
    private final ExchangeListener listener;
    /** Null without a listener. */
    private final SerializedInvoker invoker;
    /** Touched only inside {@link #invoker} tasks. */
    private boolean delivered;

    private ExchangeEvents(Exchange exchange, ExchangeListener listener) {
        this.exchange = exchange;
        this.listener = listener;
        this.invoker = listener == ExchangeListener.NONE ? null : new SerializedInvoker(RealExchange.class);
    }

    /** The events of {@code exchange}, told to {@code listener} (null or {@link ExchangeListener#NONE}: none). */
    static ExchangeEvents of(Exchange exchange, ExchangeListener listener) {
        return listener == null || listener == ExchangeListener.NONE ? NONE : new ExchangeEvents(exchange, listener);
    }

    /** The events of one attempt; without a listener, one shared object that does nothing. */
    AttemptEvents attempt() {
        return invoker == null ? NO_ATTEMPT_EVENTS : new AttemptEvents();
    }

    void connectionFailed(Throwable failure) {
        if (invoker != null) {
            offer(l -> l.onConnectionFailed(exchange, failure));
        }
    }

    void expired() {
        if (invoker != null) {
            offer(l -> l.onExpired(exchange));
        }
    }

    /** {@code onComplete} with {@code outcome}, the last event, then {@code future} completed with it. */
    void complete(Outcome outcome, CompletableFuture<Outcome> future) {
        if (invoker == null) {
            future.complete(outcome);
            return;
        }
        invoker.run(() -> {
            call(l -> l.onComplete(exchange, outcome));
            delivered = true;
            future.complete(outcome);
        });
    }

    /** With a listener only: without one, not even the event's lambda is made. */
    private void offer(Consumer<ExchangeListener> event) {
        invoker.run(() -> call(event));
    }

    /** Runs inside {@link #invoker}: one listener call, never after onComplete, never throwing. */
    private void call(Consumer<ExchangeListener> event) {
        if (delivered) {
            return;
        }
        try {
            event.accept(listener);
        } catch (Throwable t) {
            LOG.warn("exchange listener failed on {} {}; ignored", exchange.method(), exchange.uri(), t);
        }
    }

    /** One attempt's events: each attempt reports its own, and "waiting for response" once. */
    final class AttemptEvents {
        /** Touched only inside {@link #invoker} tasks. */
        private boolean waitingReported;

        private AttemptEvents() {
        }

        void connectionEstablished() {
            if (invoker != null) {
                offer(l -> l.onConnectionEstablished(exchange));
            }
        }

        /** The request went out whole: "waiting for response", unless a response event reported it first. */
        void sent() {
            if (invoker != null) {
                invoker.run(this::reportWaiting);
            }
        }

        void headersCompleted(int status) {
            if (invoker != null) {
                invoker.run(() -> {
                    reportWaiting();
                    call(l -> l.onHeadersCompleted(exchange, status));
                });
            }
        }

        void bodyCompleted(int bytes) {
            if (invoker != null) {
                offer(l -> l.onBodyCompleted(exchange, bytes));
            }
        }

        void connectionIdle() {
            if (invoker != null) {
                offer(l -> l.onConnectionIdle(exchange));
            }
        }

        /** Inside {@link #invoker}: once per attempt, from the request's success or the first response event. */
        private void reportWaiting() {
            if (!waitingReported) {
                waitingReported = true;
                call(l -> l.onWaitingForResponse(exchange));
            }
        }
    }
}
