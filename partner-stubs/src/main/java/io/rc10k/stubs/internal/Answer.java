package io.rc10k.stubs.internal;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MimeTypes;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * One request's answer: waits out its delay on the {@link Scheduler}, then writes the body or acts
 * out the fault. Nothing here blocks; a request holds a thread only while bytes are being written.
 */
final class Answer {
    private final Request request;
    private final Response response;
    private final Callback callback;
    private final Behaviour behaviour;
    private final Body body;
    private final Scheduler scheduler;
    private final long maxStallMillis;

    Answer(Request request, Response response, Callback callback, Behaviour behaviour, Body body,
            long maxStallMillis) {
        this.request = request;
        this.response = response;
        this.callback = callback;
        this.behaviour = behaviour;
        this.body = behaviour.fault() == Fault.MALFORMED_JSON ? body.malformed() : body;
        this.scheduler = request.getComponents().getScheduler();
        this.maxStallMillis = maxStallMillis;
    }

    /** Answers after {@code delayMillis}; the timer hands the work to the pool so it never runs on the timer thread. */
    void start(long delayMillis) {
        // Every wait here has its own cap (delay, stall, drip), so the connector's idle timeout must not
        // cut a slow answer short; it still closes idle keep-alive connections between requests.
        request.addIdleTimeoutListener(timeout -> false);
        if (delayMillis == 0) {
            respond();
        } else {
            scheduler.schedule(() -> request.getComponents().getExecutor().execute(this::respond), delayMillis,
                    TimeUnit.MILLISECONDS);
        }
    }

    private void respond() {
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
        boolean noBody = status == 204 || status == 304;
        if (!noBody) {
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, MimeTypes.Type.APPLICATION_JSON.asString());
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.size());
        }
        if (fault == Fault.STALL_AFTER_HEADERS) {
            response.write(false, BufferUtil.EMPTY_BUFFER, Callback.from(this::stallThenAbort, callback::failed));
        } else if (noBody) {
            response.write(true, BufferUtil.EMPTY_BUFFER, callback);
        } else if (fault == Fault.CLOSE_MID_BODY) {
            long half = Math.max(1, body.size() / 2);
            new BodyWriter(response, body, half, BodyWriter.CHUNK_BYTES, 0, scheduler,
                    Callback.from(() -> abort(false, "fault=close-mid-body"), callback::failed)).iterate();
        } else if (fault == Fault.DRIP) {
            new BodyWriter(response, body, body.size(), behaviour.dripBytes(), behaviour.dripMillis(), scheduler,
                    callback).iterate();
        } else {
            new BodyWriter(response, body, body.size(), BodyWriter.CHUNK_BYTES, 0, scheduler, callback).iterate();
        }
    }

    private void stallThenAbort() {
        scheduler.schedule(() -> abort(false, "stall ended after " + maxStallMillis + " ms (the stub's maxStall)"),
                maxStallMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Ends the exchange without a complete response. HTTP/1.1: close the connection, with an RST when
     * {@code reset}. HTTP/2: reset only this stream (the connection carries other streams), which
     * needs the response committed first, or Jetty would answer the failure with a 500.
     */
    private void abort(boolean reset, String why) {
        EofException failure = new EofException(why);
        if (request.getConnectionMetaData().getHttpVersion() == HttpVersion.HTTP_2) {
            if (response.isCommitted()) {
                callback.failed(failure);
            } else {
                response.write(false, BufferUtil.EMPTY_BUFFER, Callback.from(() -> callback.failed(failure),
                        callback::failed));
            }
            return;
        }
        EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
        if (reset && endPoint.getTransport() instanceof SocketChannel channel) {
            try {
                // Linger 0: close() sends RST instead of FIN.
                channel.setOption(StandardSocketOptions.SO_LINGER, 0);
            } catch (IOException | RuntimeException ignored) {
                // Already closed by the client: nothing left to reset.
            }
        }
        endPoint.close();
        callback.failed(failure);
    }
}
