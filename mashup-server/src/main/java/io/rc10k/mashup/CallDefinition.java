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
 *                       cache for a while; {@code timeout} — a bound of its own
 * @param method         the request's method: {@code GET} by default; a method that changes something
 *                       ({@code POST}, {@code PUT}, {@code PATCH}, {@code DELETE}) is never hedged or cached,
 *                       nor repeated after a reset
 * @param body           null, or the request body's template: {@code {parameter}} placeholders (the mashup's
 *                       parameters only), each value escaped for {@code contentType}
 *                       ({@link BodyTemplate})
 * @param contentType    the body's type ({@value #DEFAULT_CONTENT_TYPE} by default); null without a body
 */
public record CallDefinition(String name, String partner, String template, List<String> forwardHeaders,
        CallOptions options, String method, String body, String contentType) {
    /** The type of a body when none is named. */
    public static final String DEFAULT_CONTENT_TYPE = "application/json";

    public CallDefinition {
        forwardHeaders = forwardHeaders == null ? List.of() : List.copyOf(forwardHeaders);
        options = options == null ? CallOptions.NONE : options;
        method = method == null ? "GET" : method.toUpperCase(java.util.Locale.ROOT);
        contentType = body == null ? null : contentType == null ? DEFAULT_CONTENT_TYPE : contentType;
    }

    /** A GET without a body. */
    public CallDefinition(String name, String partner, String template, List<String> forwardHeaders,
            CallOptions options) {
        this(name, partner, template, forwardHeaders, options, "GET", null, null);
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
