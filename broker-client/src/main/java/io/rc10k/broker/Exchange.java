package io.rc10k.broker;

import java.net.URI;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/**
 * One outbound request and its response: a {@link Call} sent by {@link BrokerClient#send}, or made by a
 * {@link FanOut}. It reports the paper's Table 1 events to its {@link ExchangeListener} and ends
 * with exactly one {@link Outcome}.
 *
 * <pre>{@code
 * Exchange exchange = broker.send(Call.to("weather").path("weather?city=Paris").build());
 * exchange.outcome().thenAccept(outcome -> System.out.println(outcome.kind() + " " + outcome.bodyAsString()));
 * }</pre>
 *
 * <p>Thread-safe. The outcome stage completes on a client thread (for an HTTP/1.1 or h2c partner the loop
 * that read the answer; for https a pool thread of Jetty's client) or on the pool for a fan-out deadline;
 * dependent stages must not block there.</p>
 */
public interface Exchange {
    Partner partner();

    String method();

    /** The absolute URI called: the partner's base URI with the call's path and query. */
    URI uri();

    /** Nanoseconds since the exchange started. */
    long elapsedNanos();

    /** Completes exactly once, with the exchange's outcome. Never completes exceptionally. */
    CompletionStage<Outcome> outcome();

    boolean isDone();

    /**
     * Waits for the outcome: for callers that may block (never on a client or loop thread). Every
     * exchange ends, at the latest at its partner's call timeout.
     */
    default Outcome await() throws InterruptedException {
        try {
            return outcome().toCompletableFuture().get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("an exchange's outcome never fails", e);
        }
    }

    /** Ends the exchange as CANCELLED unless it already ended; its connection is closed, never reused half-read. */
    void cancel();

    /** Ends the exchange as TIMEOUT (a deadline of the caller's passed) unless it already ended; as {@link #cancel()}. */
    void expire();
}
