package io.rc10k.broker;

/**
 * The events of one exchange — the RC10K paper's Table 1 — as default no-op methods; implement
 * the ones you need. One listener may serve many exchanges concurrently.
 *
 * <p>Order, for each attempt: {@code onConnectionEstablished} or {@code onConnectionFailed}; then
 * {@code onWaitingForResponse}, {@code onHeadersCompleted}, {@code onBodyCompleted},
 * {@code onConnectionIdle}, each only if the exchange got that far. {@code onExpired} comes at most
 * once, just before {@link #onComplete}, which comes exactly once, last, after success or failure.
 * A retry starts the sequence again with {@code onConnectionEstablished} or {@code onConnectionFailed}.</p>
 *
 * <p>Threading: events run on client threads (an HTTP/1.1 loop, a thread of the shared pool) or the
 * scheduler thread. They must not block: a blocked loop stops every connection it reads. A listener that throws is logged and ignored; the exchange goes on.</p>
 *
 * <pre>{@code
 * ExchangeListener timing = new ExchangeListener() {
 *     public void onHeadersCompleted(Exchange exchange, int status) { firstByte.record(exchange.elapsedNanos()); }
 *     public void onComplete(Exchange exchange, Outcome outcome) { outcomes.increment(outcome.kind()); }
 * };
 * }</pre>
 */
public interface ExchangeListener {
    ExchangeListener NONE = new ExchangeListener() {
    };

    /** A connection was obtained for the exchange: a new one, or one reused from the partner's pool. */
    default void onConnectionEstablished(Exchange exchange) {
    }

    /** No connection could be made (refused, timed out) before any byte was sent. */
    default void onConnectionFailed(Exchange exchange, Throwable failure) {
    }

    /** The request was fully sent; the partner has it. */
    default void onWaitingForResponse(Exchange exchange) {
    }

    /** The response status and headers were parsed. */
    default void onHeadersCompleted(Exchange exchange, int status) {
    }

    /** The response body is complete, within {@code maxResponseBytes}. */
    default void onBodyCompleted(Exchange exchange, int bodyBytes) {
    }

    /** The exchange's connection went back to the partner's pool, open and reusable (HTTP/2: its stream ended). */
    default void onConnectionIdle(Exchange exchange) {
    }

    /** The exchange's own call timeout or its fan-out deadline hit first; {@code onComplete} (TIMEOUT) follows. */
    default void onExpired(Exchange exchange) {
    }

    /** The exchange ended; called exactly once, after every other event. */
    default void onComplete(Exchange exchange, Outcome outcome) {
    }
}
