package io.rc10k.mashup;

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
 * @param required       when true, the mashup cannot answer without this part: if its call fails or
 *                       misses the deadline, the mashup answers 502 (504 for the deadline) at once and
 *                       cancels the calls still running (false by default)
 */
public record CallDefinition(String name, String partner, String template, List<String> forwardHeaders,
        boolean required) {
    public CallDefinition {
        forwardHeaders = forwardHeaders == null ? List.of() : List.copyOf(forwardHeaders);
    }

    /** A call that is not required. */
    public CallDefinition(String name, String partner, String template, List<String> forwardHeaders) {
        this(name, partner, template, forwardHeaders, false);
    }
}
