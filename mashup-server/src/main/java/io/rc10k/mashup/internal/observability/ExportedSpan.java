package io.rc10k.mashup.internal.observability;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.common.InstrumentationLibraryInfo;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.data.StatusData;
import java.util.List;

/**
 * One finished span as the OTLP exporter takes it: built by {@link SpanExport} from what a mashup
 * request recorded, with the ids its partners saw (the SDK's tracer would have chosen ids of its
 * own). Immutable; no events, no links.
 */
final class ExportedSpan implements SpanData {
    static final InstrumentationScopeInfo SCOPE = InstrumentationScopeInfo.create("io.rc10k.mashup");
    @SuppressWarnings("deprecation") // the interface still asks for it; exporters read the scope
    private static final InstrumentationLibraryInfo LIBRARY = InstrumentationLibraryInfo.create(SCOPE.getName(), null);

    private final String name;
    private final SpanKind kind;
    private final SpanContext context;
    private final SpanContext parent;
    private final StatusData status;
    private final long startEpochNanos;
    private final long endEpochNanos;
    private final Attributes attributes;
    private final Resource resource;

    ExportedSpan(String name, SpanKind kind, SpanContext context, SpanContext parent, StatusData status,
            long startEpochNanos, long endEpochNanos, Attributes attributes, Resource resource) {
        this.name = name;
        this.kind = kind;
        this.context = context;
        this.parent = parent;
        this.status = status;
        this.startEpochNanos = startEpochNanos;
        this.endEpochNanos = endEpochNanos;
        this.attributes = attributes;
        this.resource = resource;
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public SpanKind getKind() {
        return kind;
    }

    @Override
    public SpanContext getSpanContext() {
        return context;
    }

    @Override
    public SpanContext getParentSpanContext() {
        return parent;
    }

    @Override
    public StatusData getStatus() {
        return status;
    }

    @Override
    public long getStartEpochNanos() {
        return startEpochNanos;
    }

    @Override
    public Attributes getAttributes() {
        return attributes;
    }

    @Override
    public List<EventData> getEvents() {
        return List.of();
    }

    @Override
    public List<LinkData> getLinks() {
        return List.of();
    }

    @Override
    public long getEndEpochNanos() {
        return endEpochNanos;
    }

    @Override
    public boolean hasEnded() {
        return true;
    }

    @Override
    public int getTotalRecordedEvents() {
        return 0;
    }

    @Override
    public int getTotalRecordedLinks() {
        return 0;
    }

    @Override
    public int getTotalAttributeCount() {
        return attributes.size();
    }

    @Override
    @Deprecated
    public InstrumentationLibraryInfo getInstrumentationLibraryInfo() {
        return LIBRARY;
    }

    @Override
    public InstrumentationScopeInfo getInstrumentationScopeInfo() {
        return SCOPE;
    }

    @Override
    public Resource getResource() {
        return resource;
    }

    @Override
    public String toString() {
        return kind + " " + name + " " + context.getTraceId() + "/" + context.getSpanId() + " parent "
                + parent.getSpanId() + " " + status.getStatusCode() + " " + attributes;
    }
}
