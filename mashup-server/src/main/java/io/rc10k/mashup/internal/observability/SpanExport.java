package io.rc10k.mashup.internal.observability;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.data.StatusData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.rc10k.broker.Outcome;
import io.rc10k.mashup.CallDefinition;
import io.rc10k.mashup.Definitions;
import io.rc10k.mashup.MashupDefinition;
import io.rc10k.mashup.internal.routing.MashupRouter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.util.component.ContainerLifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The optional span export: per sampled mashup request, one server span and one client span per
 * partner call, sent with OTLP/HTTP. The spans carry the ids the request already has: the trace id
 * of its {@code traceparent}, the request's span id of its {@code traceresponse} (a child of the
 * caller's span), and each call's span id, the one its partner received.
 *
 * <pre>{@code
 * SpanExport spans = new SpanExport(URI.create("http://127.0.0.1:4318"), definitions);
 * server.addBean(spans);   // exports from start; a stop sends what is left
 * spans.ended(route, outcomes, 200, true, startNanos, System.nanoTime());
 * }</pre>
 *
 * <p>Only a server configured with an endpoint makes one; without it neither this class nor the
 * OpenTelemetry SDK is loaded, and a request's only cost is the servlets' null check.</p>
 *
 * <p>Threading: {@link #ended} is called by any thread that ends a request and never blocks: it
 * queues the request (a full queue drops it and counts it, {@link #dropped}). One thread,
 * {@code mashup-otlp-export}, turns queued requests into spans and exports them, one export at a
 * time: at most {@value #BATCH_SPANS} spans (whole requests), at most a second after the first
 * waited.</p>
 */
public final class SpanExport extends ContainerLifeCycle {
    /** The resource's {@code service.name}. */
    public static final String SERVICE_NAME = "rc10k-mashup-server";
    /** Requests that may wait for export; more are dropped. */
    static final int QUEUED_REQUESTS = 2048;
    /** Spans in one export at most, unless one request alone has more. */
    static final int BATCH_SPANS = 512;
    /** How long the first queued request waits for others to share its export. */
    static final long BATCH_DELAY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** At most one line a minute about dropped requests. */
    static final long DROPS_REPORT_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** One export's bound, and the longest a stop waits for the last one. */
    static final Duration EXPORT_TIMEOUT = Duration.ofSeconds(10);

    static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
    static final AttributeKey<String> ROUTE = AttributeKey.stringKey("http.route");
    static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
    static final AttributeKey<String> ERROR = AttributeKey.stringKey("error.type");
    static final AttributeKey<String> ADDRESS = AttributeKey.stringKey("server.address");
    static final AttributeKey<Long> PORT = AttributeKey.longKey("server.port");
    static final AttributeKey<String> TEMPLATE = AttributeKey.stringKey("url.template");
    static final AttributeKey<String> MASHUP = AttributeKey.stringKey("rc10k.mashup");
    static final AttributeKey<Boolean> COMPLETE = AttributeKey.booleanKey("rc10k.complete");
    static final AttributeKey<String> PART = AttributeKey.stringKey("rc10k.part");
    static final AttributeKey<String> PARTNER = AttributeKey.stringKey("rc10k.partner");

    private static final Logger LOG = LoggerFactory.getLogger(SpanExport.class);
    private static final Ended STOP = new Ended(null, null, 0, false, 0, 0);

    /** What one request recorded; turned into spans on the export thread. */
    private record Ended(MashupRouter.Route route, List<Outcome> outcomes, int status, boolean complete,
            long startNanos, long endNanos) {
    }

    /** A mashup's span names and fixed attributes, made once from the definitions. */
    private record Shape(String name, Attributes attributes, String[] callNames, Attributes[] callAttributes) {
    }

    private final URI tracesUrl;
    private final Map<String, Shape> shapes = new HashMap<>();
    private final Resource resource = Resource.getDefault().merge(Resource.create(
            Attributes.of(AttributeKey.stringKey("service.name"), SERVICE_NAME)));
    private final BlockingQueue<Ended> queue = new ArrayBlockingQueue<>(QUEUED_REQUESTS);
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong exported = new AtomicLong();
    private SpanExporter exporter;
    private Thread worker;
    /** Export thread only: drops already logged, and when. */
    private long reportedDrops;
    private long reportedDropsAt;
    /** Export thread only: exports fail (logged once, with the first failure), and the spans lost since. */
    private boolean failing;
    private long lostWhileFailing;

    /**
     * @param endpoint the collector: a URL without a path sends to its {@code /v1/traces} (as
     *                 {@code OTEL_EXPORTER_OTLP_ENDPOINT} does); with a path, to that URL
     */
    public SpanExport(URI endpoint, Definitions definitions) {
        this.tracesUrl = tracesUrl(endpoint);
        for (MashupDefinition m : definitions.mashups().values()) {
            List<CallDefinition> calls = m.calls();
            String[] callNames = new String[calls.size()];
            Attributes[] callAttributes = new Attributes[calls.size()];
            for (int i = 0; i < calls.size(); i++) {
                CallDefinition call = calls.get(i);
                URI base = definitions.partners().get(call.partner()).baseUri();
                callNames[i] = "GET " + call.template();
                callAttributes[i] = Attributes.builder().put(METHOD, "GET").put(ADDRESS, base.getHost())
                        .put(PORT, port(base)).put(TEMPLATE, call.template()).put(PART, call.name())
                        .put(PARTNER, call.partner()).put(MASHUP, m.name()).build();
            }
            shapes.put(m.name(), new Shape("GET " + m.path(), Attributes.builder().put(METHOD, "GET")
                    .put(ROUTE, m.path()).put(MASHUP, m.name()).build(), callNames, callAttributes));
        }
    }

    /** Where the spans go: {@code endpoint}'s {@code /v1/traces} if it has no path, else {@code endpoint}. */
    public static URI tracesUrl(URI endpoint) {
        String path = endpoint.getRawPath();
        return path == null || path.isEmpty() || path.equals("/") ? endpoint.resolve("/v1/traces") : endpoint;
    }

    public URI tracesUrl() {
        return tracesUrl;
    }

    /** Requests whose spans were dropped because {@value #QUEUED_REQUESTS} were already waiting. */
    public long dropped() {
        return dropped.get();
    }

    /** Spans the collector accepted. */
    public long exported() {
        return exported.get();
    }

    /**
     * A mashup request was answered: queues its spans if its trace is sampled. Never blocks.
     *
     * @param outcomes its calls' outcomes in call order (fewer, or null, when calls never ended)
     * @param status   the status answered (5xx: the span's status is an error), or 0 if none was
     */
    public void ended(MashupRouter.Route route, List<Outcome> outcomes, int status, boolean complete,
            long startNanos, long endNanos) {
        if (route.trace().sampled()
                && !queue.offer(new Ended(route, outcomes, status, complete, startNanos, endNanos))) {
            dropped.incrementAndGet();
        }
    }

    @Override
    protected void doStart() throws Exception {
        exporter = OtlpHttpSpanExporter.builder().setEndpoint(tracesUrl.toString()).setTimeout(EXPORT_TIMEOUT)
                .setMeterProvider(MeterProvider::noop).build();
        reportedDropsAt = System.nanoTime() - DROPS_REPORT_NANOS;
        worker = new Thread(this::exportUntilStopped, "mashup-otlp-export");
        worker.setDaemon(true);
        worker.start();
        super.doStart();
        LOG.info("exporting spans to {} (OTLP/HTTP): a server span per sampled mashup request, a client span per "
                + "partner call", tracesUrl);
    }

    /** Sends what is queued (waiting at most {@link #EXPORT_TIMEOUT} for it), then closes the exporter. */
    @Override
    protected void doStop() throws Exception {
        super.doStop();
        if (!queue.offer(STOP, EXPORT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            worker.interrupt();
        }
        worker.join(EXPORT_TIMEOUT.toMillis() + 1_000);
        exporter.shutdown().join(5, TimeUnit.SECONDS);
    }

    private void exportUntilStopped() {
        List<Ended> batch = new ArrayList<>();
        int spans = 0;
        long due = 0;
        while (true) {
            Ended next;
            try {
                next = batch.isEmpty() ? queue.take() : queue.poll(due - System.nanoTime(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                next = STOP;
            }
            if (next == STOP) {
                List<Ended> rest = new ArrayList<>();
                queue.drainTo(rest);
                for (Ended ended : rest) {
                    batch.add(ended);
                    spans += spans(ended);
                    if (spans >= BATCH_SPANS) {
                        export(batch);
                        batch.clear();
                        spans = 0;
                    }
                }
                export(batch);
                return;
            }
            if (next != null) {
                if (batch.isEmpty()) {
                    due = System.nanoTime() + BATCH_DELAY_NANOS;
                }
                batch.add(next);
                spans += spans(next);
                if (spans < BATCH_SPANS) {
                    continue;
                }
            }
            export(batch);
            batch.clear();
            spans = 0;
        }
    }

    private static int spans(Ended ended) {
        return 1 + (ended.outcomes() == null ? 0 : ended.outcomes().size());
    }

    /** Export thread only. */
    private void export(List<Ended> batch) {
        long drops = dropped.get();
        if (drops > reportedDrops && System.nanoTime() - reportedDropsAt > DROPS_REPORT_NANOS) {
            LOG.warn("the spans of {} mashup requests were dropped: {} were already waiting for export",
                    drops - reportedDrops, QUEUED_REQUESTS);
            reportedDrops = drops;
            reportedDropsAt = System.nanoTime();
        }
        if (batch.isEmpty()) {
            return;
        }
        // Requests time themselves with nanoTime; one reading of the wall clock per export places them.
        Instant now = Instant.now();
        long toEpoch = now.getEpochSecond() * 1_000_000_000L + now.getNano() - System.nanoTime();
        List<SpanData> spans = new ArrayList<>();
        for (Ended ended : batch) {
            addSpans(spans, ended, toEpoch);
        }
        CompletableResultCode result;
        try {
            result = exporter.export(spans).join(EXPORT_TIMEOUT.toMillis() + 1_000, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            result = CompletableResultCode.ofExceptionalFailure(e);
        }
        if (result.isSuccess()) {
            exported.addAndGet(spans.size());
            if (failing) {
                failing = false;
                LOG.info("exporting spans to {} again; {} spans were lost while it failed", tracesUrl,
                        lostWhileFailing);
            }
            return;
        }
        // One line when exports start failing and one when they work again, as for a partner's circuit.
        lostWhileFailing = failing ? lostWhileFailing + spans.size() : spans.size();
        if (!failing) {
            failing = true;
            LOG.warn("could not export {} spans to {}: {}; spans are lost until an export succeeds", spans.size(),
                    tracesUrl, why(result));
        }
    }

    private static String why(CompletableResultCode result) {
        if (!result.isDone()) {
            return "no answer within " + (EXPORT_TIMEOUT.toMillis() + 1_000) + " ms";
        }
        Throwable cause = result.getFailureThrowable();
        if (cause == null) {
            return "the export failed";
        }
        // The exporter wraps an I/O failure several times over; the first I/O exception says what happened.
        for (Throwable next = cause; next != null; next = next.getCause() == next ? null : next.getCause()) {
            if (next instanceof IOException && !(next instanceof UncheckedIOException)) {
                return next.toString();
            }
        }
        // Else the endpoint answered with an error status, which only the exporter's own log names.
        return "the endpoint answered with an error (" + cause.getClass().getSimpleName() + "; the exporter's log "
                + "says more with --log-level io.opentelemetry=warn)";
    }

    private void addSpans(List<SpanData> spans, Ended ended, long toEpoch) {
        TraceContext trace = ended.route().trace();
        String traceId = trace.traceId();
        SpanContext request = SpanContext.create(traceId, trace.spanId(), TraceFlags.getSampled(),
                TraceState.getDefault());
        String parentId = trace.parentSpanId();
        SpanContext parent = parentId == null ? SpanContext.getInvalid() : SpanContext.createFromRemoteParent(traceId,
                parentId, TraceFlags.getSampled(), TraceState.getDefault());
        Shape shape = shapes.get(ended.route().mashup().name());
        long start = ended.startNanos() + toEpoch;
        AttributesBuilder attributes = shape.attributes().toBuilder().put(COMPLETE, ended.complete());
        if (ended.status() > 0) {
            attributes.put(STATUS, ended.status());
        }
        spans.add(new ExportedSpan(shape.name(), SpanKind.SERVER, request, parent,
                ended.status() >= 500 ? StatusData.error() : StatusData.unset(), start,
                ended.endNanos() + toEpoch, attributes.build(), resource));
        List<Outcome> outcomes = ended.outcomes() == null ? List.of() : ended.outcomes();
        long[] spanIds = ended.route().spanIds();
        for (int i = 0; i < outcomes.size() && i < spanIds.length; i++) {
            Outcome outcome = outcomes.get(i);
            AttributesBuilder call = shape.callAttributes()[i].toBuilder();
            if (outcome.status() > 0) {
                call.put(STATUS, outcome.status());
            }
            if (outcome.kind() != Outcome.Kind.OK) {
                // As OpenTelemetry's HTTP conventions say: the status code for an HTTP error, else what went wrong.
                call.put(ERROR, outcome.kind() == Outcome.Kind.HTTP_ERROR ? Integer.toString(outcome.status())
                        : outcome.kind().label());
            }
            // A call starts with its request (routing takes microseconds) and lasts what its exchange took.
            spans.add(new ExportedSpan(shape.callNames()[i], SpanKind.CLIENT, SpanContext.create(traceId,
                    SpanId.fromLong(spanIds[i]), TraceFlags.getSampled(), TraceState.getDefault()), request,
                    outcome.kind() == Outcome.Kind.OK ? StatusData.unset() : StatusData.error(), start,
                    start + outcome.elapsedNanos(), call.build(), resource));
        }
    }

    private static long port(URI base) {
        if (base.getPort() > 0) {
            return base.getPort();
        }
        return "https".equals(base.getScheme()) ? 443 : 80;
    }

    @Override
    public String toString() {
        return "SpanExport to " + tracesUrl;
    }
}
