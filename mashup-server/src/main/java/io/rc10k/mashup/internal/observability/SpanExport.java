package io.rc10k.mashup.internal.observability;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdkBuilder;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.opentelemetry.sdk.trace.samplers.SamplingDecision;
import io.rc10k.broker.Outcome;
import io.rc10k.mashup.Definitions;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.util.component.ContainerLifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The optional span export, through the OpenTelemetry SDK configured from the environment
 * ({@code OTEL_*} variables, {@code otel.*} system properties: exporter, endpoint, headers, sampler,
 * service name, batching). Per sampled mashup request, one server span and one client span per
 * partner call. The spans carry the ids the request already has: the trace id of its
 * {@code traceparent}, the request's span id of its {@code traceresponse} (a child of the caller's
 * span), and each call's span id, the one its partner received.
 *
 * <pre>{@code
 * SpanExport spans = new SpanExport(URI.create("http://127.0.0.1:4318"), definitions);  // null: the environment's
 * server.addBean(spans);                  // configures the SDK at start; a stop sends what is left
 * new MashupRouter(definitions, spans);   // asks the sampler once per request
 * spans.ended(route, outcomes, 200, true, startNanos, System.nanoTime());
 * }</pre>
 *
 * <p>Only a server for which {@link SpanExportSettings#on} holds makes one; otherwise neither this class
 * nor the OpenTelemetry SDK is loaded, and a request's only cost is the servlets' null check.</p>
 *
 * <p>Threading: {@link #sampled} is called by the thread that routes a request and asks the configured
 * sampler. {@link #ended} is called by any thread that ends a request and never blocks: it queues the
 * request (a full queue drops it and counts it, {@link #dropped}). One thread, {@code mashup-otlp-export},
 * turns queued requests into the SDK's spans; the SDK's batch span processor exports them from its own
 * thread.</p>
 */
public final class SpanExport extends ContainerLifeCycle implements TraceContext.Sampling {
    /** The resource's {@code service.name} unless {@code OTEL_SERVICE_NAME} or {@code OTEL_RESOURCE_ATTRIBUTES} names one. */
    public static final String SERVICE_NAME = "rc10k-mashup-server";
    /** The instrumentation scope of the spans. */
    static final String SCOPE = "io.rc10k.mashup";
    /** Requests that may wait to become spans; more are dropped. */
    static final int QUEUED_REQUESTS = 2048;
    /** At most one line a minute about dropped requests. */
    static final long DROPS_REPORT_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** The longest a stop waits for the last spans to be sent. */
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    /**
     * The SDK settings whose defaults this server changes; a variable or system property of the same
     * name wins. Only traces: no metrics or logs go out (they are at /metrics and in the log). OTLP over
     * HTTP, the protocol's default everywhere but in the Java SDK (gRPC): the server carries no gRPC sender.
     */
    static final Map<String, String> DEFAULTS = Map.of(
            "otel.metrics.exporter", "none",
            "otel.logs.exporter", "none",
            "otel.exporter.otlp.protocol", "http/protobuf",
            "otel.bsp.schedule.delay", "1000");

    private static final AttributeKey<String> SERVICE = AttributeKey.stringKey("service.name");

    private static final Logger LOG = LoggerFactory.getLogger(SpanExport.class);
    private static final RequestSpans.Ended STOP = new RequestSpans.Ended(null, null, 0, false, 0, 0);

    private final URI otlpEndpoint;
    private final BlockingQueue<RequestSpans.Ended> queue = new ArrayBlockingQueue<>(QUEUED_REQUESTS);
    private final AtomicLong dropped = new AtomicLong();
    private final PresetSpanIds ids = new PresetSpanIds();
    private final RequestSpans requests;
    private final List<ReportingSpanExporter> exporters = new CopyOnWriteArrayList<>();
    /** Where each exporter sends, for the start's log line. */
    private final List<String> destinations = new CopyOnWriteArrayList<>();
    /** Set at start, before any request is routed; read by routing threads. */
    private volatile Sampler sampler;
    private OpenTelemetrySdk sdk;
    private Tracer tracer;
    private Thread worker;
    /** Export thread only: drops already logged, and when. */
    private long reportedDrops;
    private long reportedDropsAt;

    /**
     * @param otlpEndpoint {@code --otlp-endpoint}, or null. A URL without a path sends to its
     *                     {@code /v1/traces} (as {@code OTEL_EXPORTER_OTLP_ENDPOINT} does); with a path, to
     *                     that URL. It wins over the environment's exporter and endpoint; null leaves them
     *                     to the environment
     */
    public SpanExport(URI otlpEndpoint, Definitions definitions) {
        this.otlpEndpoint = otlpEndpoint;
        this.requests = new RequestSpans(definitions, ids);
    }

    /** Where the spans go: {@code endpoint}'s {@code /v1/traces} if it has no path, else {@code endpoint}. */
    public static URI tracesUrl(URI endpoint) {
        String path = endpoint.getRawPath();
        return path == null || path.isEmpty() || path.equals("/") ? endpoint.resolve("/v1/traces") : endpoint;
    }

    /** Requests whose spans were dropped because {@value #QUEUED_REQUESTS} were already waiting. */
    public long dropped() {
        return dropped.get();
    }

    /** Spans the collector accepted. */
    public long exported() {
        return exporters.stream().mapToLong(ReportingSpanExporter::exported).sum();
    }

    /** The configured sampler's decision for a request's server span, before its calls carry it on. */
    @Override
    public boolean sampled(String traceId, String parentSpanId, String parentFlags, String mashup) {
        Context parent = parentSpanId == null ? Context.root() : Context.root().with(Span.wrap(
                SpanContext.createFromRemoteParent(traceId, parentSpanId, TraceFlags.fromHex(parentFlags, 0),
                        TraceState.getDefault())));
        RequestSpans.Shape shape = requests.shape(mashup);
        return sampler.shouldSample(parent, traceId, shape.name(), SpanKind.SERVER, shape.attributes(), List.of())
                .getDecision() == SamplingDecision.RECORD_AND_SAMPLE;
    }

    /**
     * A mashup request was answered: queues its spans if its trace is sampled. Never blocks.
     *
     * @param outcomes its calls' outcomes in call order (fewer, or null, when calls never ended)
     * @param status   the status answered (5xx: the span's status is an error), or 0 if none was
     */
    public void ended(TracedRequest route, List<Outcome> outcomes, int status, boolean complete,
            long startNanos, long endNanos) {
        if (route.trace().sampled()
                && !queue.offer(new RequestSpans.Ended(route, outcomes, status, complete, startNanos, endNanos))) {
            dropped.incrementAndGet();
        }
    }

    @Override
    protected void doStart() throws Exception {
        AutoConfiguredOpenTelemetrySdkBuilder builder = AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> DEFAULTS)
                .addResourceCustomizer((resource, config) -> named(resource))
                .addSamplerCustomizer((configured, config) -> {
                    sampler = configured;
                    return new PresetSampler(configured, ids);
                })
                .addTracerProviderCustomizer((tracerProvider, config) -> tracerProvider.setIdGenerator(ids))
                .addSpanExporterCustomizer(this::reporting)
                .disableShutdownHook();
        if (otlpEndpoint != null) {
            builder.addPropertiesCustomizer(config -> Map.of("otel.sdk.disabled", "false",
                    "otel.traces.exporter", "otlp", "otel.exporter.otlp.traces.protocol", "http/protobuf",
                    "otel.exporter.otlp.traces.endpoint", tracesUrl(otlpEndpoint).toString()));
        }
        try {
            sdk = builder.build().getOpenTelemetrySdk();
        } catch (RuntimeException e) {
            // ConfigurationException: a bad OTEL_* setting; its message names it.
            throw new IllegalStateException("span export (OTEL_* settings): " + e.getMessage(), e);
        }
        tracer = sdk.getTracerProvider().get(SCOPE);
        reportedDropsAt = System.nanoTime() - DROPS_REPORT_NANOS;
        worker = new Thread(this::recordUntilStopped, "mashup-otlp-export");
        worker.setDaemon(true);
        worker.start();
        super.doStart();
        LOG.info("exporting spans to {}: a server span per sampled mashup request, a client span per partner call; "
                + "sampler {}", destinations.isEmpty() ? "nowhere (no exporter)" : String.join(", ", destinations),
                sampler.getDescription());
    }

    /** Sends what is queued (waiting at most {@link #STOP_TIMEOUT} for it), then shuts the SDK down. */
    @Override
    protected void doStop() throws Exception {
        super.doStop();
        if (worker == null) {
            return; // the SDK could not be configured: nothing started
        }
        long end = System.nanoTime() + STOP_TIMEOUT.toNanos();
        if (!queue.offer(STOP, STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            worker.interrupt();
        }
        worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())));
        worker = null;
        // The batch processor exports what it holds, then closes the exporter.
        sdk.shutdown().join(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    private static Resource named(Resource resource) {
        String name = resource.getAttribute(SERVICE);
        return name == null || name.startsWith("unknown_service")
                ? resource.merge(Resource.create(Attributes.of(SERVICE, SERVICE_NAME))) : resource;
    }

    /** Wraps each configured exporter to tell its failures and recoveries, and notes where it sends. */
    private SpanExporter reporting(SpanExporter exporter, ConfigProperties config) {
        String destination;
        if (exporter.getClass().getName().startsWith("io.opentelemetry.exporter.otlp.")) {
            String protocol = config.getString("otel.exporter.otlp.traces.protocol",
                    config.getString("otel.exporter.otlp.protocol", "http/protobuf"));
            destination = config.getString("otel.exporter.otlp.traces.endpoint");
            if (destination == null) {
                String base = config.getString("otel.exporter.otlp.endpoint",
                        protocol.equals("grpc") ? "http://localhost:4317" : "http://localhost:4318");
                destination = protocol.equals("grpc") ? base : (base.endsWith("/") ? base : base + "/") + "v1/traces";
            }
            destinations.add(destination + " (" + switch (protocol) {
                case "grpc" -> "OTLP/gRPC";
                case "http/json" -> "OTLP/HTTP, JSON";
                default -> "OTLP/HTTP";
            } + ")");
        } else {
            destination = exporter.toString();
            destinations.add(destination);
        }
        ReportingSpanExporter reporting = new ReportingSpanExporter(exporter, destination);
        exporters.add(reporting);
        return reporting;
    }

    private void recordUntilStopped() {
        List<RequestSpans.Ended> batch = new ArrayList<>();
        boolean stop = false;
        while (!stop) {
            try {
                batch.add(queue.take());
            } catch (InterruptedException e) {
                batch.add(STOP);
            }
            queue.drainTo(batch);
            reportDrops();
            // Requests time themselves with nanoTime; one reading of the wall clock per batch places them.
            Instant now = Instant.now();
            long toEpoch = now.getEpochSecond() * 1_000_000_000L + now.getNano() - System.nanoTime();
            for (RequestSpans.Ended ended : batch) {
                if (ended == STOP) {
                    stop = true;
                } else {
                    requests.record(tracer, ended, toEpoch);
                }
            }
            batch.clear();
        }
    }

    /** Export thread only. */
    private void reportDrops() {
        long drops = dropped.get();
        if (drops > reportedDrops && System.nanoTime() - reportedDropsAt > DROPS_REPORT_NANOS) {
            LOG.warn("the spans of {} mashup requests were dropped: {} were already waiting for export",
                    drops - reportedDrops, QUEUED_REQUESTS);
            reportedDrops = drops;
            reportedDropsAt = System.nanoTime();
        }
    }

    @Override
    public String toString() {
        return "SpanExport to " + (otlpEndpoint == null ? "the environment's exporter" : tracesUrl(otlpEndpoint));
    }
}
