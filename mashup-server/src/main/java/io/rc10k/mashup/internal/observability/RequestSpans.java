package io.rc10k.mashup.internal.observability;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.rc10k.broker.Outcome;
import io.rc10k.mashup.CallDefinition;
import io.rc10k.mashup.Definitions;
import io.rc10k.mashup.MashupDefinition;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What {@link SpanExport} records of one mashup request: a server span named after the mashup's path and a client
 * span per partner call named after its template, with OpenTelemetry's HTTP attributes and the request's own ids.
 * Names and fixed attributes are made once, from the definitions; a request adds its status, outcomes and times.
 *
 * <pre>{@code
 * RequestSpans spans = new RequestSpans(definitions, ids);
 * spans.record(tracer, new RequestSpans.Ended(route, outcomes, 200, true, start, end), toEpochNanos);
 * }</pre>
 *
 * <p>Threading: {@link #shape} from any thread (the shapes are made in the constructor and never change);
 * {@link #record} on the export thread only, as it sets the ids the tracer's next spans take.</p>
 */
final class RequestSpans {
    private static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
    private static final AttributeKey<String> ROUTE = AttributeKey.stringKey("http.route");
    private static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
    private static final AttributeKey<String> ERROR = AttributeKey.stringKey("error.type");
    private static final AttributeKey<String> ADDRESS = AttributeKey.stringKey("server.address");
    private static final AttributeKey<Long> PORT = AttributeKey.longKey("server.port");
    private static final AttributeKey<String> TEMPLATE = AttributeKey.stringKey("url.template");
    private static final AttributeKey<String> MASHUP = AttributeKey.stringKey("rc10k.mashup");
    private static final AttributeKey<Boolean> COMPLETE = AttributeKey.booleanKey("rc10k.complete");
    private static final AttributeKey<String> PART = AttributeKey.stringKey("rc10k.part");
    private static final AttributeKey<String> PARTNER = AttributeKey.stringKey("rc10k.partner");

    /** What one request recorded; turned into spans on the export thread. */
    record Ended(TracedRequest route, List<Outcome> outcomes, int status, boolean complete,
            long startNanos, long endNanos) {
    }

    /** A mashup's span names and fixed attributes, made once from the definitions. */
    record Shape(String name, Attributes attributes, String[] callNames, Attributes[] callAttributes) {
    }

    private final Map<String, Shape> shapes = new HashMap<>();
    private final PresetSpanIds ids;

    /** @param ids the ids the tracer's spans take, as {@link #record} presets them */
    RequestSpans(Definitions definitions, PresetSpanIds ids) {
        this.ids = ids;
        for (MashupDefinition m : definitions.mashups().values()) {
            List<CallDefinition> calls = m.calls();
            String[] callNames = new String[calls.size()];
            Attributes[] callAttributes = new Attributes[calls.size()];
            for (int i = 0; i < calls.size(); i++) {
                CallDefinition call = calls.get(i);
                URI base = definitions.partners().get(call.partner()).baseUri();
                callNames[i] = call.method() + " " + call.template();
                callAttributes[i] = Attributes.builder().put(METHOD, call.method()).put(ADDRESS, base.getHost())
                        .put(PORT, port(base)).put(TEMPLATE, call.template()).put(PART, call.name())
                        .put(PARTNER, call.partner()).put(MASHUP, m.name()).build();
            }
            shapes.put(m.name(), new Shape("GET " + m.path(), Attributes.builder().put(METHOD, "GET")
                    .put(ROUTE, m.path()).put(MASHUP, m.name()).build(), callNames, callAttributes));
        }
    }

    /** The names and fixed attributes of {@code mashup}'s spans. */
    Shape shape(String mashup) {
        return shapes.get(mashup);
    }

    /**
     * One request's spans, through the SDK's {@code tracer} with the request's own ids; {@code toEpoch} turns its
     * {@code nanoTime} readings into epoch nanoseconds. Export thread only.
     */
    void record(Tracer tracer, Ended ended, long toEpoch) {
        TraceContext trace = ended.route().trace();
        String traceId = trace.traceId();
        String parentId = trace.parentSpanId();
        Context parent = parentId == null ? Context.root() : Context.root().with(Span.wrap(
                SpanContext.createFromRemoteParent(traceId, parentId, TraceFlags.getSampled(), TraceState.getDefault())));
        Shape shape = shapes.get(ended.route().mashup().name());
        long start = ended.startNanos() + toEpoch;
        try {
            ids.set(traceId, trace.spanId());
            Span request = tracer.spanBuilder(shape.name()).setParent(parent).setSpanKind(SpanKind.SERVER)
                    .setStartTimestamp(start, TimeUnit.NANOSECONDS).setAllAttributes(shape.attributes()).startSpan();
            request.setAttribute(COMPLETE, ended.complete());
            if (ended.status() > 0) {
                request.setAttribute(STATUS, (long) ended.status());
            }
            if (ended.status() >= 500) {
                request.setStatus(StatusCode.ERROR);
            }
            Context inRequest = parent.with(request);
            List<Outcome> outcomes = ended.outcomes() == null ? List.of() : ended.outcomes();
            long[] spanIds = ended.route().spanIds();
            for (int i = 0; i < outcomes.size() && i < spanIds.length; i++) {
                Outcome outcome = outcomes.get(i);
                ids.set(traceId, SpanId.fromLong(spanIds[i]));
                // A call starts with its request (routing takes microseconds) and lasts what its exchange took.
                Span call = tracer.spanBuilder(shape.callNames()[i]).setParent(inRequest).setSpanKind(SpanKind.CLIENT)
                        .setStartTimestamp(start, TimeUnit.NANOSECONDS).setAllAttributes(shape.callAttributes()[i])
                        .startSpan();
                if (outcome.status() > 0) {
                    call.setAttribute(STATUS, (long) outcome.status());
                }
                if (outcome.kind() != Outcome.Kind.OK) {
                    // As OpenTelemetry's HTTP conventions say: the status code for an HTTP error, else what went wrong.
                    call.setAttribute(ERROR, outcome.kind() == Outcome.Kind.HTTP_ERROR
                            ? Integer.toString(outcome.status()) : outcome.kind().label());
                    call.setStatus(StatusCode.ERROR);
                }
                call.end(start + outcome.elapsedNanos(), TimeUnit.NANOSECONDS);
            }
            request.end(ended.endNanos() + toEpoch, TimeUnit.NANOSECONDS);
        } finally {
            ids.clear();
        }
    }

    private static long port(URI base) {
        if (base.getPort() > 0) {
            return base.getPort();
        }
        return "https".equals(base.getScheme()) ? 443 : 80;
    }
}
