package io.rc10k.mashup.internal.admission;

import io.rc10k.mashup.Composite;
import io.rc10k.mashup.internal.observability.DashboardServlets;
import io.rc10k.mashup.internal.observability.MashupMetrics;
import io.rc10k.mashup.internal.observability.SmallServlets;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's {@link GracefulHandler} for mashup requests only. A graceful stop refuses new mashup
 * requests and waits for the admitted ones; health probes and metric scrapes pass through
 * untracked, so that during the drain {@code /health/ready} says {@code draining} (503 with a JSON
 * reason), {@code /health/live}, {@code /metrics} and the dashboard keep answering, and a probe never
 * delays the stop.
 *
 * <p>A mashup request refused by the drain — one that arrives on a keep-alive connection opened
 * before the stop, since the connector accepts no new ones — gets 503, {@code Retry-After: 1},
 * {@code Connection: close} and {@code {"error":"server_stopping",…}}, and is counted as
 * {@code mashup_requests_total{mashup="any",outcome="server_stopping"}}. The close tells a client
 * or balancer to send its retry on a new connection, which reaches another instance.</p>
 */
public final class GracefulMashups extends GracefulHandler {
    private static final ByteBuffer STOPPING = ByteBuffer.wrap(Composite.error("server_stopping",
            "the server is stopping; retry after the Retry-After seconds, on a new connection"))
            .asReadOnlyBuffer();
    private final MashupMetrics metrics;

    public GracefulMashups(MashupMetrics metrics, Handler handler) {
        super(handler);
        this.metrics = metrics;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = Request.getPathInContext(request);
        if (SmallServlets.isObservabilityPath(path) || DashboardServlets.isDashboardPath(path)) {
            Handler next = getHandler();
            return next != null && isStarted() && next.handle(request, response, callback);
        }
        return super.handle(request, response, callback);
    }

    /** Refused before routing, like shedding: the tag stays fixed so that no path can add a metric series. */
    @Override
    protected void handleShutdownRejection(Request request, Response response, Callback callback) {
        metrics.count("any", "server_stopping");
        response.setStatus(503);
        response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
        response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, STOPPING.remaining());
        response.write(true, STOPPING.slice(), callback);
    }
}
