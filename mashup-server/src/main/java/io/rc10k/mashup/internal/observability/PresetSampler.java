package io.rc10k.mashup.internal.observability;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.opentelemetry.sdk.trace.samplers.SamplingResult;
import java.util.List;

/**
 * The configured sampler ({@code OTEL_TRACES_SAMPLER}), except for the spans {@link SpanExport} records:
 * their request was sampled when it was routed (the flags its partners received say so), and the
 * decision is not taken twice.
 */
final class PresetSampler implements Sampler {
    private final Sampler configured;
    private final PresetSpanIds ids;

    PresetSampler(Sampler configured, PresetSpanIds ids) {
        this.configured = configured;
        this.ids = ids;
    }

    @Override
    public SamplingResult shouldSample(Context parentContext, String traceId, String name, SpanKind spanKind,
            Attributes attributes, List<LinkData> parentLinks) {
        return ids.isSet() ? SamplingResult.recordAndSample()
                : configured.shouldSample(parentContext, traceId, name, spanKind, attributes, parentLinks);
    }

    @Override
    public String getDescription() {
        return configured.getDescription();
    }
}
