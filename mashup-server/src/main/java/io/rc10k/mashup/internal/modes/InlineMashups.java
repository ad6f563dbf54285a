package io.rc10k.mashup.internal.modes;

import io.rc10k.mashup.internal.admission.AdmissionHandler;
import io.rc10k.mashup.internal.observability.DashboardServlets;
import io.rc10k.mashup.internal.observability.SmallServlets;
import java.util.concurrent.Executor;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Async mode's inbound side: a mashup GET is served on the thread that read it — the connector's
 * selector, or the broker loop that resumed the connection ({@link ResumingPool}) — and every other
 * request is handed to the pool, as Jetty does for a servlet.
 *
 * <p>A mashup GET never blocks in async mode: it routes, starts its calls (whose requests are written
 * without waiting) and suspends; its answer, and any refusal, is written with Servlet non-blocking
 * output ({@link AsyncMashupServlet}). So this handler tells Jetty it does not block, and Jetty runs it
 * where the request was read, with no hand-off to another thread. What could block there is handed
 * on: a request with a body (the servlet layer would read it), any method but GET and HEAD (answered
 * with the servlet's error page), {@code /metrics}, {@code /health} and the dashboard (blocking
 * servlets), and everything on the admin connector.</p>
 *
 * <pre>{@code
 * server.setHandler(new InlineMashups(new GracefulMashups(admission)));
 * }</pre>
 */
public final class InlineMashups extends Handler.Wrapper {
    public InlineMashups(Handler handler) {
        super(handler);
    }

    @Override
    public InvocationType getInvocationType() {
        return InvocationType.NON_BLOCKING;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (isMashupGet(request)) {
            return super.handle(request, response, callback);
        }
        Executor pool = request.getComponents().getExecutor();
        pool.execute(() -> handleOnPool(request, response, callback));
        return true;
    }

    private void handleOnPool(Request request, Response response, Callback callback) {
        try {
            if (!super.handle(request, response, callback)) {
                Response.writeError(request, response, callback, 404);
            }
        } catch (Throwable x) {
            Response.writeError(request, response, callback, x);
        }
    }

    private boolean isMashupGet(Request request) {
        String method = request.getMethod();
        if (!HttpMethod.GET.is(method) && !HttpMethod.HEAD.is(method)) {
            return false;
        }
        HttpFields headers = request.getHeaders();
        if (headers.contains(HttpHeader.TRANSFER_ENCODING) || headers.getLongField(HttpHeader.CONTENT_LENGTH) > 0) {
            return false;
        }
        if (AdmissionHandler.ADMIN_CONNECTOR.equals(request.getConnectionMetaData().getConnector().getName())) {
            return false;
        }
        String path = Request.getPathInContext(request);
        return !SmallServlets.isObservabilityPath(path) && !DashboardServlets.isDashboardPath(path);
    }
}
