package io.rc10k.mashup.internal.observability;

import io.opentelemetry.sdk.trace.IdGenerator;

/**
 * The tracer's ids: those a request already has while {@link SpanExport} records its spans, random ones
 * otherwise. Its partners received these ids before the spans existed (a call's {@code traceparent}, the
 * answer's {@code traceresponse}), so the spans must carry them.
 *
 * <pre>{@code
 * ids.set(traceId, spanId);
 * Span span = tracer.spanBuilder(name).startSpan();   // has traceId/spanId, and is sampled (PresetSampler)
 * ids.clear();
 * }</pre>
 *
 * <p>Threading: the preset is the calling thread's own; the tracer asks for ids on the thread that
 * starts a span.</p>
 */
final class PresetSpanIds implements IdGenerator {
    private final ThreadLocal<String[]> preset = new ThreadLocal<>();

    /** The next span this thread starts has these ids (a trace id only used for a root span). */
    void set(String traceId, String spanId) {
        preset.set(new String[] {traceId, spanId});
    }

    void clear() {
        preset.remove();
    }

    /** Whether this thread is recording a request's spans. */
    boolean isSet() {
        return preset.get() != null;
    }

    @Override
    public String generateSpanId() {
        String[] ids = preset.get();
        return ids == null ? IdGenerator.random().generateSpanId() : ids[1];
    }

    @Override
    public String generateTraceId() {
        String[] ids = preset.get();
        return ids == null ? IdGenerator.random().generateTraceId() : ids[0];
    }
}
