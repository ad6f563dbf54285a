package io.rc10k.stubs.internal;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MimeTypes;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * One request's answer: waits out its delay on the {@link Scheduler}, then writes the body or acts
 * out the fault. Nothing here blocks. Timer tasks only hand work to the pool, so one timer thread
 * serves every delay, drip pause and stall cap.
 *
 * <p>Completes Jetty's callback exactly once ({@link #done}). When the request fails from outside —
 * an HTTP/2 stream reset by the client, a connection Jetty finds closed — the pending timer is
 * cancelled and the request ends at once. Over HTTP/1.1 a client that closes while the stub is
 * waiting is only noticed when the stub next writes (the end of the delay or stall).</p>
 */
final class Answer {
    /** Set on a request whose failure the stub acts out itself (a fault), so it is not counted abandoned. */
    static final String FAULT = "io.rc10k.stubs.fault";
    /**
     * Set on a request whose wait a failure from outside ended (the client reset the stream, the connection
     * closed): it is counted abandoned even where Jetty then completes the request without a failure.
     */
    static final String ABANDONED = "io.rc10k.stubs.abandoned";

    private final Request request;
    private final Response response;
    private final Callback callback;
    private final Behaviour behaviour;
    private final Body body;
    private final Scheduler scheduler;
    private final Executor executor;
    private final long maxStallMillis;
    private final AtomicBoolean done = new AtomicBoolean();
    private volatile Scheduler.Task timer;

    Answer(Request request, Response response, Callback callback, Behaviour behaviour, Body body,
            long maxStallMillis) {
        this.request = request;
        this.response = response;
        this.callback = callback;
        this.behaviour = behaviour;
        this.body = behaviour.fault() == Fault.MALFORMED_JSON ? body.malformed() : body;
        this.scheduler = request.getComponents().getScheduler();
        this.executor = request.getComponents().getExecutor();
        this.maxStallMillis = maxStallMillis;
    }

    /** Answers after {@code delayMillis}. */
    void start(long delayMillis) {
        // Every wait here has its own cap (delay, stall, drip), so the connector's idle timeout must not
        // cut a slow answer short; it still closes idle keep-alive connections between requests.
        request.addIdleTimeoutListener(timeout -> false);
        request.addFailureListener(this::failedFromOutside);
        if (delayMillis == 0) {
            respond();
        } else {
            later(delayMillis, this::respond);
        }
    }

    /** Runs {@code work} on the pool after {@code millis}; the timer thread itself does nothing else. */
    private void later(long millis, Runnable work) {
        timer = scheduler.schedule(() -> executor.execute(work), millis, TimeUnit.MILLISECONDS);
    }

    private void failedFromOutside(Throwable failure) {
        Scheduler.Task pending = timer;
        if (pending != null) {
            pending.cancel();
        }
        if (!done.get()) {
            request.setAttribute(ABANDONED, Boolean.TRUE);
        }
        failed(failure);
    }

    private void succeeded() {
        if (done.compareAndSet(false, true)) {
            callback.succeeded();
        }
    }

    private void failed(Throwable failure) {
        if (done.compareAndSet(false, true)) {
            callback.failed(failure);
        }
    }

    private Callback once() {
        return Callback.from(this::succeeded, this::failed);
    }

    private void respond() {
        if (done.get()) {
            return;
        }
        Fault fault = behaviour.fault();
        if (fault == Fault.RESET) {
            abort(true, "fault=reset");
            return;
        }
        if (fault == Fault.STALL) {
            stallThenAbort();
            return;
        }
        int status = behaviour.status();
        response.setStatus(status);
        if (behaviour.cacheControl() != null) {
            response.getHeaders().put(HttpHeader.CACHE_CONTROL, behaviour.cacheControl());
        }
        if (behaviour.close()) {
            // Jetty ends an HTTP/1.1 connection after an answer that says so.
            response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
        }
        if (behaviour.cookie() != null) {
            response.getHeaders().add(HttpHeader.SET_COOKIE, behaviour.cookie() + "; Path=/");
        }
        boolean noBody = status == 204 || status == 205 || status == 304;
        if (!noBody) {
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, MimeTypes.Type.APPLICATION_JSON.asString());
            if (!behaviour.chunked()) {
                response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.size());
            }
        }
        if (fault == Fault.STALL_AFTER_HEADERS) {
            response.write(false, BufferUtil.EMPTY_BUFFER, Callback.from(this::stallThenAbort, this::failed));
        } else if (noBody) {
            response.write(true, BufferUtil.EMPTY_BUFFER, once());
        } else if (fault == Fault.CLOSE_MID_BODY) {
            long half = Math.max(1, body.size() / 2);
            new BodyWriter(response, body, half, BodyWriter.CHUNK_BYTES, 0, this::later, behaviour.chunked(),
                    Callback.from(() -> abort(false, "fault=close-mid-body"), this::failed)).iterate();
        } else if (fault == Fault.DRIP) {
            new BodyWriter(response, body, body.size(), behaviour.dripBytes(), behaviour.dripMillis(), this::later,
                    behaviour.chunked(), once()).iterate();
        } else {
            new BodyWriter(response, body, body.size(), BodyWriter.CHUNK_BYTES, 0, this::later, behaviour.chunked(),
                    once()).iterate();
        }
    }

    private void stallThenAbort() {
        later(maxStallMillis, () -> abort(false, "stall ended after " + maxStallMillis + " ms (the stub's maxStall)"));
    }

    /**
     * Ends the exchange without a complete response: Jetty closes an HTTP/1.1 connection (with an RST
     * when {@code reset}) and resets an HTTP/2 stream, writing no error response either way.
     */
    private void abort(boolean reset, String why) {
        request.setAttribute(FAULT, why);
        if (reset && request.getConnectionMetaData().getHttpVersion() != HttpVersion.HTTP_2) {
            EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
            if (endPoint.getTransport() instanceof SocketChannel channel) {
                try {
                    // Linger 0: the close that follows sends RST instead of FIN.
                    channel.setOption(StandardSocketOptions.SO_LINGER, 0);
                } catch (IOException | RuntimeException ignored) {
                    // Already closed by the client: nothing left to reset.
                }
            }
        }
        failed(new Request.Handler.AbortException(why));
    }
}
