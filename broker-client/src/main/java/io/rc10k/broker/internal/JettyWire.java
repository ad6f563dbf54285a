package io.rc10k.broker.internal;

import java.net.URI;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.Connection;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;

/**
 * Calls over Jetty's {@link HttpClient}: what h2c and https partners use. Each request carries the partner's
 * name as its tag, so each partner is a destination (and a connection pool, see {@link PartnerPools}) of
 * its own. Events come on Jetty's threads, as its listeners deliver them: over a client whose transport is
 * {@code NON_BLOCKING} (the h2c one) on the thread that parsed the response, as on an HTTP/1.1 loop, so
 * nothing they run may block.
 */
public final class JettyWire implements Wire {
    private final HttpClient http;
    private final HttpVersion version;

    public JettyWire(HttpClient http, HttpVersion version) {
        this.http = http;
        this.version = version;
    }

    @Override
    public Call newCall(String partner, String method, URI uri, HttpFields headers, byte[] body,
            long timeoutNanos, Events events) {
        long timeoutMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
        // The call's own timeout bounds it; the client's idle timeout (the partner's keep-alive) is for idle
        // connections and must not end a stream or exchange that waits longer for its answer.
        Request request = http.newRequest(uri)
                .method(method)
                .tag(partner)
                .version(version)
                .timeout(timeoutMillis, TimeUnit.MILLISECONDS)
                .idleTimeout(timeoutMillis, TimeUnit.MILLISECONDS);
        if (headers != null) {
            request.headers(fields -> fields.add(headers));
        }
        if (body != null) {
            // The caller's Content-Type, if any, stays; Jetty adds the content's own only when there is none.
            request.body(new BytesRequestContent(headers == null ? null : headers.get(HttpHeader.CONTENT_TYPE), body));
        }
        return new JettyCall(request, events, version == HttpVersion.HTTP_1_1);
    }

    @Override
    public boolean isRunning() {
        return http.isRunning();
    }

    /**
     * Jetty's request and response listeners, told as {@link Events}.
     *
     * <p>On HTTP/1.1 the connection that carried a failed call leaves the pool before the call ends, so that a
     * retry or the next call cannot find it still there: its removal would make Jetty open a connection nobody
     * asked for. Jetty closes it itself, but not always first: when the answer fails on the thread that reads it
     * before the thread that wrote the request has finished with it, the writer may end the exchange while the
     * reader is still closing. So the connection is closed as soon as the answer is told failed, on the reading
     * thread, before the exchange can end on either; and again, to be sure, as the call ends.</p>
     *
     * <p>A failure while an interim answer (100, 102, 103) is being read reaches these listeners twice: first
     * from the interim answer's protocol handler, before Jetty has closed the connection, then from the exchange's
     * own end. The first is told, once.</p>
     */
    private static final class JettyCall implements Call, Request.Listener, Response.Listener {
        private static final AtomicIntegerFieldUpdater<JettyCall> COMPLETED =
                AtomicIntegerFieldUpdater.newUpdater(JettyCall.class, "completed");

        private final Request request;
        private final Events events;
        /** HTTP/1.1: the connection is this call's alone, and a failure closes it. */
        private final boolean dedicated;
        private volatile Connection connection;
        /** 1 once {@link Events#onComplete} was told. */
        private volatile int completed;

        JettyCall(Request request, Events events, boolean dedicated) {
            this.request = request;
            this.events = events;
            this.dedicated = dedicated;
        }

        @Override
        public void start() {
            request.listener(this).send(this);
        }

        @Override
        public void abort(Throwable cause) {
            request.abort(cause);
        }

        @Override
        public void onBegin(Request request) {
            connection = request.getConnection();
            events.onBegin();
        }

        @Override
        public void onSuccess(Request request) {
            events.onSent();
        }

        @Override
        public void onHeaders(Response response) {
            events.onHeaders(response.getStatus(), response.getHeaders());
        }

        @Override
        public void onContent(Response response, ByteBuffer content) {
            events.onContent(content);
        }

        @Override
        public void onFailure(Response response, Throwable failure) {
            closeDedicated();
        }

        @Override
        public void onComplete(Result result) {
            if (!COMPLETED.compareAndSet(this, 0, 1)) {
                return;
            }
            Response response = result.getResponse();
            Connection used = connection;
            if (result.isFailed()) {
                closeDedicated();
            }
            // With Jetty's default (non-strict) event ordering, the connection was already released to
            // the pool or closed before this callback: open now means pooled and reusable.
            events.onComplete(response == null ? 0 : response.getStatus(), response == null ? null
                    : response.getHeaders(), result.getFailure(), result.isSucceeded() && used != null
                    && !used.isClosed());
        }

        /** HTTP/1.1: closes the connection that carried this call, if it has one: it leaves the pool now. */
        private void closeDedicated() {
            Connection used = connection;
            if (dedicated && used != null) {
                used.close();
            }
        }
    }
}
