package io.rc10k.mashup;

import io.rc10k.broker.Caching;
import io.rc10k.broker.CallOptions;
import io.rc10k.broker.Hedging;
import java.util.List;

/**
 * One outbound call of a mashup: a part of the composite response.
 *
 * @param name           the part's name in the composite ({@code parts.<name>})
 * @param partner        the partner's name
 * @param template       a path and query under the partner's base URI, with {@code {parameter}}
 *                       placeholders in path segments and query values only, e.g.
 *                       {@code /weather?city={city}&days={days}}
 * @param forwardHeaders inbound headers to pass on to the partner (none by default; never hop-by-hop,
 *                       never {@code traceparent} or {@code tracestate}: every call carries the
 *                       request's trace context anyway)
 * @param options        how the call runs beyond its request ({@link CallOptions#NONE} by default):
 *                       {@code required} — if its call fails or misses the deadline, the mashup answers
 *                       502 (504 for the deadline) at once and cancels the calls still running;
 *                       {@code hedging} — another attempt goes out when none has answered in time, the
 *                       first answer wins; {@code caching} — its 200 answers are served from the partner's
 *                       cache for a while
 */
public record CallDefinition(String name, String partner, String template, List<String> forwardHeaders,
        CallOptions options) {
    public CallDefinition {
        forwardHeaders = forwardHeaders == null ? List.of() : List.copyOf(forwardHeaders);
        options = options == null ? CallOptions.NONE : options;
    }

    /** A plain call: not required, hedged or cached. */
    public CallDefinition(String name, String partner, String template, List<String> forwardHeaders) {
        this(name, partner, template, forwardHeaders, CallOptions.NONE);
    }

    public boolean required() {
        return options.required();
    }

    /** Null when the call is not hedged. */
    public Hedging hedging() {
        return options.hedging();
    }

    /** Null when the call is not cached. */
    public Caching caching() {
        return options.caching();
    }
}
