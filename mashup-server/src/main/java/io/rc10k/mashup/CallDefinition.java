package io.rc10k.mashup;

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
 * @param required       when true, the mashup cannot answer without this part: if its call fails or
 *                       misses the deadline, the mashup answers 502 (504 for the deadline) at once and
 *                       cancels the calls still running (false by default)
 * @param hedging        when not null, the call is hedged: another attempt goes out when none has
 *                       answered within {@link Hedging#after()}, the first answer wins (null by default)
 */
public record CallDefinition(String name, String partner, String template, List<String> forwardHeaders,
        boolean required, Hedging hedging) {
    public CallDefinition {
        forwardHeaders = forwardHeaders == null ? List.of() : List.copyOf(forwardHeaders);
    }

    /** A call that is not hedged. */
    public CallDefinition(String name, String partner, String template, List<String> forwardHeaders,
            boolean required) {
        this(name, partner, template, forwardHeaders, required, null);
    }

    /** A call that is neither required nor hedged. */
    public CallDefinition(String name, String partner, String template, List<String> forwardHeaders) {
        this(name, partner, template, forwardHeaders, false, null);
    }
}
