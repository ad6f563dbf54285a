package io.rc10k.mashup.internal.observability;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configured exporter, telling an operator when exports start failing (one WARN, with why) and when
 * they work again (one INFO, with the spans lost meanwhile), as for a partner's circuit; and counting
 * the spans accepted. The exporter's own log ({@code io.opentelemetry}) is off in the bundled configuration.
 *
 * <p>Threading: exports are started by the SDK's batch processor, one at a time; their results complete
 * on the exporter's threads, under this object's lock.</p>
 */
final class ReportingSpanExporter implements SpanExporter {
    private static final Logger LOG = LoggerFactory.getLogger(SpanExport.class);

    private final SpanExporter exporter;
    private final String destination;
    private final AtomicLong exported = new AtomicLong();
    /** Under this: exports fail (told once, with the first failure), and the spans lost since. */
    private boolean failing;
    private long lostWhileFailing;

    /** @param destination where the spans go, for the log: a URL, or the exporter's name */
    ReportingSpanExporter(SpanExporter exporter, String destination) {
        this.exporter = exporter;
        this.destination = destination;
    }

    long exported() {
        return exported.get();
    }

    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
        int count = spans.size();
        CompletableResultCode result;
        try {
            result = exporter.export(spans);
        } catch (RuntimeException e) {
            result = CompletableResultCode.ofExceptionalFailure(e);
        }
        CompletableResultCode done = result;
        done.whenComplete(() -> ended(done, count));
        return done;
    }

    private synchronized void ended(CompletableResultCode result, int spans) {
        if (result.isSuccess()) {
            exported.addAndGet(spans);
            if (failing) {
                failing = false;
                LOG.info("exporting spans to {} again; {} spans were lost while it failed", destination,
                        lostWhileFailing);
            }
            return;
        }
        lostWhileFailing = failing ? lostWhileFailing + spans : spans;
        if (!failing) {
            failing = true;
            LOG.warn("could not export {} spans to {}: {}; spans are lost until an export succeeds", spans,
                    destination, why(result));
        }
    }

    private static String why(CompletableResultCode result) {
        Throwable cause = result.getFailureThrowable();
        if (cause == null) {
            return "the endpoint answered with an error (the exporter's log says more with "
                    + "--log-level io.opentelemetry=warn)";
        }
        // The exporter wraps an I/O failure several times over; the first I/O exception says what happened.
        for (Throwable next = cause; next != null; next = next.getCause() == next ? null : next.getCause()) {
            if (next instanceof IOException && !(next instanceof UncheckedIOException)) {
                return next.toString();
            }
        }
        return "the endpoint answered with an error (" + cause.getClass().getSimpleName() + "; the exporter's log "
                + "says more with --log-level io.opentelemetry=warn)";
    }

    @Override
    public CompletableResultCode flush() {
        return exporter.flush();
    }

    @Override
    public CompletableResultCode shutdown() {
        return exporter.shutdown();
    }

    @Override
    public String toString() {
        return "ReportingSpanExporter{" + exporter + "}";
    }
}
