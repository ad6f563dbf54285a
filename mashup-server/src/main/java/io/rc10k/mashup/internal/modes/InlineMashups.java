package io.rc10k.mashup.internal.modes;

import io.rc10k.mashup.internal.admission.AdmissionHandler;
import io.rc10k.mashup.internal.observability.DashboardServlets;
import io.rc10k.mashup.internal.observability.SmallServlets;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.ConnectionMetaData;
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
 * <p>A request that completes at once — a refusal, a shed, a cache hit, {@code circuit_open} — lets
 * Jetty parse the connection's next request on the same thread, so a client that pipelines such
 * requests would keep a selector or broker loop serving it. At most {@link #AT_ONCE_RUN_MAX} of them in
 * a row on one connection are served where they were read; the next is handed to the pool, which ends
 * Jetty's run on that thread (the connection goes on where that request completes).</p>
 *
 * <pre>{@code
 * server.setHandler(new InlineMashups(new GracefulMashups(metrics, admission)));
 * }</pre>
 */
public final class InlineMashups extends Handler.Wrapper {
    /** Requests in a row on one connection that complete at once, served where they were read. */
    public static final int AT_ONCE_RUN_MAX = 8;
    private static final String RUN_ATTRIBUTE = InlineMashups.class.getName() + ".run";

    private final LongAdder runsEnded = new LongAdder();

    public InlineMashups(Handler handler) {
        super(handler);
    }

    /** Mashup GETs handed to the pool because the requests before them on their connection completed at once. */
    public long runsEnded() {
        return runsEnded.sum();
    }

    @Override
    public InvocationType getInvocationType() {
        return InvocationType.NON_BLOCKING;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (!isMashupGet(request)) {
            handOver(request, response, callback);
            return true;
        }
        AtOnceRun run = AtOnceRun.of(request.getConnectionMetaData());
        if (run.length >= AT_ONCE_RUN_MAX) {
            run.length = 0;
            runsEnded.increment();
            handOver(request, response, callback);
            return true;
        }
        Completion completion = new Completion(callback, run);
        completion.handler = Thread.currentThread();
        try {
            return super.handle(request, response, completion);
        } finally {
            completion.handler = null;
        }
    }

    private void handOver(Request request, Response response, Callback callback) {
        Executor pool = request.getComponents().getExecutor();
        pool.execute(() -> handleOnPool(request, response, callback));
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

    /**
     * Requests that completed at once, in a row, on one HTTP/1.1 connection. Its requests are served one
     * after another, and the length is written before the answer's completion lets Jetty read the next
     * request, so a plain field is enough.
     */
    private static final class AtOnceRun {
        int length;

        static AtOnceRun of(ConnectionMetaData connection) {
            Object run = connection.getAttribute(RUN_ATTRIBUTE);
            if (run instanceof AtOnceRun known) {
                return known;
            }
            AtOnceRun created = new AtOnceRun();
            connection.setAttribute(RUN_ATTRIBUTE, created);
            return created;
        }
    }

    /** Counts its request into the run if the answer completes on the thread that is still handling it. */
    private static final class Completion extends Callback.Nested {
        private final AtOnceRun run;
        /**
         * The thread inside {@link #handle} while it runs, then null. Only that thread can read itself
         * here, so another thread completing the answer reads "not at once" whichever write it sees.
         */
        Thread handler;

        Completion(Callback callback, AtOnceRun run) {
            super(callback);
            this.run = run;
        }

        @Override
        public void succeeded() {
            count();
            super.succeeded();
        }

        @Override
        public void failed(Throwable x) {
            count();
            super.failed(x);
        }

        private void count() {
            run.length = handler == Thread.currentThread() ? run.length + 1 : 0;
        }
    }
}
