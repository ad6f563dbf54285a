package io.rc10k.mashup.internal.admission;

import io.rc10k.mashup.Composite;
import io.rc10k.mashup.internal.observability.DashboardServlets;
import io.rc10k.mashup.internal.observability.MashupMetrics;
import io.rc10k.mashup.internal.observability.SmallServlets;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Sheds load: at most {@code maxInFlight} mashup requests at once; beyond that 503 with
 * {@code Retry-After} at once — no queue. {@code /metrics} and the {@code /health} views always pass
 * (on the admin connector only, when so configured); the dashboard passes on the admin connector and
 * is not found on the main one. A request counts from arrival until its response is complete (async
 * ones included).
 */
public final class AdmissionHandler extends Handler.Wrapper {
    /** The name of the connector that serves only the {@code /health} views and {@code /metrics}. */
    public static final String ADMIN_CONNECTOR = "admin";
    private final int maxInFlight;
    private final MashupMetrics metrics;
    private final BooleanSupplier nearConnectionLimit;
    private final boolean observabilityOnAdminOnly;
    private final AtomicInteger inFlight = new AtomicInteger();
    private static final ByteBuffer SHED = ByteBuffer.wrap(Composite.error("overloaded",
            "the server holds its maximum of mashup requests in flight; retry after the Retry-After seconds"))
            .asReadOnlyBuffer();

    public AdmissionHandler(int maxInFlight, MashupMetrics metrics, Handler handler) {
        this(maxInFlight, metrics, () -> false, false, handler);
    }

    /**
     * @param nearConnectionLimit true when the connector is close to its connection limit: responses
     *                            then close their connections, so that slots turn over instead of
     *                            idling in clients' keep-alive pools while others wait to be accepted
     * @param observabilityOnAdminOnly the main connector answers 404 for {@code /metrics} and the
     *                            {@code /health} views, which only the admin connector serves
     */
    public AdmissionHandler(int maxInFlight, MashupMetrics metrics, BooleanSupplier
            nearConnectionLimit, boolean observabilityOnAdminOnly, Handler handler) {
        super(handler);
        this.maxInFlight = maxInFlight;
        this.metrics = metrics;
        this.nearConnectionLimit = nearConnectionLimit;
        this.observabilityOnAdminOnly = observabilityOnAdminOnly;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = Request.getPathInContext(request);
        boolean admin = ADMIN_CONNECTOR.equals(request.getConnectionMetaData().getConnector().getName());
        if (SmallServlets.isObservabilityPath(path)) {
            if (observabilityOnAdminOnly && !admin) {
                return notFound(response, callback, "/metrics and /health are served on the admin port only");
            }
            return super.handle(request, response, callback);
        }
        if (DashboardServlets.isDashboardPath(path)) {
            return admin ? super.handle(request, response, callback)
                    : notFound(response, callback, "the dashboard is served on the admin port only");
        }
        if (admin) {
            return notFound(response, callback, "the admin port serves " + String.join(", ", SmallServlets.PATHS)
                    + ", " + String.join(", ", DashboardServlets.PATHS) + " only");
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

    private static boolean notFound(Response response, Callback callback, String detail) {
        response.setStatus(404);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(Composite.error("not_found", detail)), callback);
        return true;
    }

    public int inFlight() {
        return inFlight.get();
    }
}
