package io.rc10k.broker;

import io.rc10k.broker.internal.CallUris;
import io.rc10k.broker.internal.PartnerState;
import io.rc10k.broker.internal.RealExchange;
import io.rc10k.broker.internal.ResponseCache;
import io.rc10k.broker.internal.Wires;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.Executor;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Turns a {@link Call} into an exchange, inert until started: the partner known, the path resolved and
 * checked under its base URI, the partner's own headers over the call's, the wire its scheme and protocol
 * name. What {@link BrokerClient#send} and a {@link FanOut} share; one per start of the client.
 * Thread-safe: a fan-out makes its later-stage calls here from whichever thread ended what they wait for.
 */
final class ExchangeFactory {
    private final LifeCycle client;
    private final Map<String, PartnerState> states;
    private final Wires wires;
    private final Scheduler scheduler;
    private final Executor executor;

    ExchangeFactory(LifeCycle client, Map<String, PartnerState> states, Wires wires, Scheduler scheduler,
            Executor executor) {
        this.client = client;
        this.states = states;
        this.wires = wires;
        this.scheduler = scheduler;
        this.executor = executor;
    }

    /**
     * An exchange of {@code call} with {@code pathAndQuery}, not started.
     *
     * @param stops where it is kept while in flight for a stop to cancel ({@link RealExchange.StopList#NONE}
     *              for a fan-out's call, which its fan-out keeps)
     * @throws IllegalArgumentException for an unknown partner or a path the broker refuses
     * @throws IllegalStateException    when the client is not running
     */
    RealExchange newExchange(Call call, String pathAndQuery, RealExchange.StopList stops) {
        requireStarted();
        PartnerState state = state(call.partner());
        URI uri = CallUris.resolve(state, pathAndQuery);
        HttpFields headers = call.headers();
        CallOptions options = call.options();
        ResponseCache.Key key = options.caching() == null ? null : ResponseCache.key(call.method(), uri, headers);
        Partner partner = state.partner();
        HttpFields sent = partner.headers().size() == 0 ? headers : withPartnerHeaders(headers, partner.headers());
        return new RealExchange(wires.wire(partner), scheduler, executor, state, call.method(), uri, sent, call.body(),
                call.listener(), stops, options.hedging(), options.caching(), key, options.timeout());
    }

    /** Checks a call made later, as far as it can be now: its partner, and its path when it is given. */
    void check(Call call) {
        requireStarted();
        PartnerState state = state(call.partner());
        if (call.pathAndQuery() != null) {
            CallUris.resolve(state, call.pathAndQuery());
        }
    }

    PartnerState state(String partner) {
        return state(states, partner);
    }

    /** The state of {@code partner} in {@code states}; for a partner not there, a message that lists them. */
    static PartnerState state(Map<String, PartnerState> states, String partner) {
        PartnerState state = states.get(partner);
        if (state == null) {
            throw new IllegalArgumentException("unknown partner \"" + partner + "\" (known: "
                    + String.join(", ", states.keySet()) + ")");
        }
        return state;
    }

    Executor executor() {
        return executor;
    }

    private void requireStarted() {
        if (!client.isStarted()) {
            throw new IllegalStateException("broker client is not started (state " + AbstractLifeCycle.getState(client)
                    + ")");
        }
    }

    /** The call's headers, then the partner's own over any of the same name. */
    private static HttpFields withPartnerHeaders(HttpFields call, HttpFields partner) {
        HttpFields.Mutable merged = HttpFields.build((call == null ? 0 : call.size()) + partner.size());
        if (call != null) {
            merged.add(call);
        }
        partner.forEach(merged::put);
        return merged;
    }
}
