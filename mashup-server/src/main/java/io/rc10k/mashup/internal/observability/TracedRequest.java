package io.rc10k.mashup.internal.observability;

import io.rc10k.mashup.MashupDefinition;

/**
 * What {@link SpanExport} records of an answered mashup request ({@link RequestSpans}): a server span for
 * the request and a client span per call. Routing's {@code MashupRouter.Route} is one; observability does
 * not know routing.
 */
public interface TracedRequest {
    /** The mashup the request resolved to. */
    MashupDefinition mashup();

    /** The request's trace context: continued from its {@code traceparent} or started here. */
    TraceContext trace();

    /** Each call's span id, in call order (what the call sent in its {@code traceparent}). */
    long[] spanIds();
}
