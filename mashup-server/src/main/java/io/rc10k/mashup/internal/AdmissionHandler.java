package io.rc10k.mashup.internal;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Sheds load: at most {@code maxInFlight} mashup requests at once; beyond that 503 with
 * {@code Retry-After} at once — no queue. {@code /metrics} and {@code /health} always pass.
 * A request counts from arrival until its response is complete (async ones included).
 */
public final class AdmissionHandler extends Handler.Wrapper {
    /** The name of the connector that serves only {@code /health} and {@code /metrics}. */
    public static final String ADMIN_CONNECTOR = "admin";
    private final int maxInFlight;
    private final MashupMetrics metrics;
    private final java.util.function.BooleanSupplier nearConnectionLimit;
    private final AtomicInteger inFlight = new AtomicInteger();
    private static final ByteBuffer SHED = ByteBuffer.wrap(Composite.error("overloaded",
            "the server holds its maximum of mashup requests in flight; retry after the Retry-After seconds"))
            .asReadOnlyBuffer();

    public AdmissionHandler(int maxInFlight, MashupMetrics metrics, Handler handler) {
        this(maxInFlight, metrics, () -> false, handler);
    }

    /**
     * @param nearConnectionLimit true when the connector is close to its connection limit: responses
     *                            then close their connections, so that slots turn over instead of
     *                            idling in clients' keep-alive pools while others wait to be accepted
     */
    public AdmissionHandler(int maxInFlight, MashupMetrics metrics, java.util.function.BooleanSupplier
            nearConnectionLimit, Handler handler) {
        super(handler);
        this.maxInFlight = maxInFlight;
        this.metrics = metrics;
        this.nearConnectionLimit = nearConnectionLimit;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = Request.getPathInContext(request);
        if ("/metrics".equals(path) || "/health".equals(path)) {
            return super.handle(request, response, callback);
        }
        if (ADMIN_CONNECTOR.equals(request.getConnectionMetaData().getConnector().getName())) {
            response.setStatus(404);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
            response.write(true, ByteBuffer.wrap(Composite.error("not_found", "the admin port serves /health and "
                    + "/metrics only")), callback);
            return true;
        }
        if (nearConnectionLimit.getAsBoolean()) {
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
        }
        if (inFlight.incrementAndGet() > maxInFlight) {
            inFlight.decrementAndGet();
            // Shedding comes before routing: the tag stays fixed so that no path can add a metric series.
            metrics.count("any", "shed");
            response.setStatus(503);
            response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
            response.write(true, SHED.slice(), callback);
            return true;
        }
        Request.addCompletionListener(request, failure -> inFlight.decrementAndGet());
        return super.handle(request, response, callback);
    }

    public int inFlight() {
        return inFlight.get();
    }
}
