package io.rc10k.broker.internal;

import io.rc10k.broker.Exchange;
import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.Outcome;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/** A listener that writes down its exchange's Table 1 events as words, in the order it hears them. */
final class EventLog implements ExchangeListener {
    final List<String> heard = new CopyOnWriteArrayList<>();
    /** Null, or the exchange's outcome: "complete" then says whether it had completed by then. */
    private final CompletableFuture<Outcome> outcome;

    EventLog(CompletableFuture<Outcome> outcome) {
        this.outcome = outcome;
    }

    @Override
    public void onConnectionEstablished(Exchange exchange) {
        heard.add("established");
    }

    @Override
    public void onConnectionFailed(Exchange exchange, Throwable failure) {
        heard.add("failed " + failure.getMessage());
    }

    @Override
    public void onWaitingForResponse(Exchange exchange) {
        heard.add("waiting");
    }

    @Override
    public void onHeadersCompleted(Exchange exchange, int status) {
        heard.add("headers " + status);
    }

    @Override
    public void onBodyCompleted(Exchange exchange, int bodyBytes) {
        heard.add("body " + bodyBytes);
    }

    @Override
    public void onConnectionIdle(Exchange exchange) {
        heard.add("idle");
    }

    @Override
    public void onExpired(Exchange exchange) {
        heard.add("expired");
    }

    @Override
    public void onComplete(Exchange exchange, Outcome outcome) {
        heard.add("complete " + outcome.kind() + (this.outcome == null ? "" : ", future done " + this.outcome.isDone()));
    }
}
