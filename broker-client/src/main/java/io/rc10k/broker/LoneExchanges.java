package io.rc10k.broker;

import io.rc10k.broker.internal.RealExchange;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The exchanges one broker client sent on their own ({@link BrokerClient#send}) and still in flight: what a
 * stop cancels. A fan-out's exchanges are kept by their fan-out, in {@link FanOuts}. Thread-safe.
 */
final class LoneExchanges implements RealExchange.StopList {
    private final Set<RealExchange> inFlight = ConcurrentHashMap.newKeySet();

    @Override
    public void begun(RealExchange exchange) {
        inFlight.add(exchange);
    }

    @Override
    public void ended(RealExchange exchange) {
        inFlight.remove(exchange);
    }

    /** Ends every one in flight as CANCELLED (the client is stopping). */
    void cancelAll() {
        List.copyOf(inFlight).forEach(RealExchange::cancel);
    }
}
