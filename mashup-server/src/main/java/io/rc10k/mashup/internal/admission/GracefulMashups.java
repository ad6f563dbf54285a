package io.rc10k.mashup.internal.admission;

import io.rc10k.mashup.internal.observability.DashboardServlets;
import io.rc10k.mashup.internal.observability.SmallServlets;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's {@link GracefulHandler} for mashup requests only. A graceful stop refuses new mashup
 * requests with 503 and waits for the admitted ones; health probes and metric scrapes pass through
 * untracked, so that during the drain {@code /health/ready} says {@code draining} (503 with a JSON
 * reason), {@code /health/live}, {@code /metrics} and the dashboard keep answering, and a probe never
 * delays the stop.
 */
public final class GracefulMashups extends GracefulHandler {
    public GracefulMashups(Handler handler) {
        super(handler);
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
}
