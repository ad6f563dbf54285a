package io.rc10k.broker;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Records every exchange's events as letters and checks their order against the contract in
 * {@link ExchangeListener}: per attempt E|F, then W, H, B, I as far as it got; X (expired) anywhere
 * before the end; C exactly once, last.
 */
final class RecordingListener implements ExchangeListener {
    private static final Pattern ORDER = Pattern.compile("((E|F)X?W?X?H?X?B?I?X?)*X?C");

    final Map<Exchange, List<String>> events = new ConcurrentHashMap<>();

    private void add(Exchange exchange, String event) {
        events.computeIfAbsent(exchange, e -> Collections.synchronizedList(new ArrayList<>())).add(event);
    }

    String sequence(Exchange exchange) {
        List<String> list = events.getOrDefault(exchange, List.of());
        synchronized (list) {
            return String.join("", list);
        }
    }

    /** Null when the exchange's events follow the contract, else what is wrong. */
    String violation(Exchange exchange) {
        String s = sequence(exchange);
        return ORDER.matcher(s).matches() ? null : exchange + " events " + s;
    }

    @Override
    public void onConnectionEstablished(Exchange exchange) {
        add(exchange, "E");
    }

    @Override
    public void onConnectionFailed(Exchange exchange, Throwable failure) {
        add(exchange, "F");
    }

    @Override
    public void onWaitingForResponse(Exchange exchange) {
        add(exchange, "W");
    }

    @Override
    public void onHeadersCompleted(Exchange exchange, int status) {
        add(exchange, "H");
    }

    @Override
    public void onBodyCompleted(Exchange exchange, int bodyBytes) {
        add(exchange, "B");
    }

    @Override
    public void onConnectionIdle(Exchange exchange) {
        add(exchange, "I");
    }

    @Override
    public void onExpired(Exchange exchange) {
        add(exchange, "X");
    }

    @Override
    public void onComplete(Exchange exchange, Outcome outcome) {
        add(exchange, "C");
    }
}
