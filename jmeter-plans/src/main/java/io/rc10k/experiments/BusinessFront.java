package io.rc10k.experiments;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The reactor experiment's front of the mashup server ({@link ReactorServer}): it puts each request's
 * business where the Reactor-model study puts it — on the thread that read the request (single reactor,
 * single thread), or on a pool of worker threads (the multi-threaded models) — and adds the study's own
 * business, which the mashup server has none of:
 *
 * <pre>
 * GET /business/sleep?micros=200&amp;epoch=3   holds the request's thread 200 µs without using a CPU (the study's)
 * GET /business/cpu?micros=200&amp;epoch=3     spins 200 µs of CPU time on the request's thread
 * GET /mashup/c1?delay=1&amp;epoch=3           the mashup, as the server serves it (its partner waited for, no thread)
 * GET /reactor/epoch?n=4                     requests of earlier epochs are answered 410 at once, without work
 * </pre>
 *
 * The epoch lets the experiment end a point at once: what its clients left queued behind the business
 * (tens of seconds of sleeps, with 10,000 clients on one thread) is not done at the next point's expense.
 *
 * <p>It tells Jetty it does not block, as the server's own {@code InlineMashups} does, so Jetty calls it on the
 * selector that read the request; with a pool it hands the request over at once.</p>
 */
final class BusinessFront extends Handler.Wrapper {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Executor pool;
    private final AtomicLong epoch = new AtomicLong();

    /** @param pool where business runs, or null: on the thread that read the request */
    BusinessFront(Handler mashupServer, Executor pool) {
        super(mashupServer);
        this.pool = pool;
    }

    @Override
    public InvocationType getInvocationType() {
        return InvocationType.NON_BLOCKING;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = Request.getPathInContext(request);
        String query = request.getHttpURI().getQuery();
        if (path.equals("/reactor/epoch")) {
            long n = param(query, "n");
            epoch.accumulateAndGet(n, Math::max);
            answer(response, callback, 200, "epoch " + n + "\n");
            return true;
        }
        if (!path.startsWith("/business/") && !path.startsWith("/mashup/")) {
            return super.handle(request, response, callback);
        }
        long own = param(query, "epoch");
        if (pool == null) {
            return serve(path, query, own, request, response, callback);
        }
        pool.execute(() -> {
            try {
                if (!serve(path, query, own, request, response, callback)) {
                    Response.writeError(request, response, callback, 404);
                }
            } catch (Throwable e) {
                callback.failed(e);
            }
        });
        return true;
    }

    private boolean serve(String path, String query, long own, Request request, Response response, Callback callback)
            throws Exception {
        if (own < epoch.get()) {
            answer(response, callback, 410, "gone\n");
            return true;
        }
        long nanos = param(query, "micros") * 1_000;
        switch (path) {
            case "/business/sleep" -> {
                sleep(nanos);
                answer(response, callback, 200, "slept\n");
                return true;
            }
            case "/business/cpu" -> {
                answer(response, callback, 200, "spun " + (spin(nanos) & 0xff) + "\n");
                return true;
            }
            default -> {
                return super.handle(request, response, callback);
            }
        }
    }

    /** Sleeps {@code nanos} as {@code usleep} does: {@code Thread.sleep} on JDK 17 rounds up to whole milliseconds. */
    static void sleep(long nanos) {
        long end = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    /**
     * Keeps a CPU busy until this thread has used {@code nanos} of CPU time (not of wall time: a thread that is
     * descheduled among more spinning threads than cores would otherwise be done without the work); the result
     * keeps the JIT from removing the work.
     */
    static long spin(long nanos) {
        long x = nanos;
        if (nanos == 0) {
            return x;
        }
        long end = THREADS.getCurrentThreadCpuTime() + nanos;
        do {
            for (int i = 0; i < 1_024; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        } while (THREADS.getCurrentThreadCpuTime() < end);
        return x;
    }

    private static void answer(Response response, Callback callback, int status, String text) {
        byte[] body = text.getBytes(StandardCharsets.US_ASCII);
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    /** A non-negative integer query parameter, 0 when absent or not a number. */
    static long param(String query, String name) {
        if (query == null) {
            return 0;
        }
        for (String pair : query.split("&")) {
            if (pair.startsWith(name + "=")) {
                try {
                    return Math.max(0, Long.parseLong(pair.substring(name.length() + 1)));
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }
}
