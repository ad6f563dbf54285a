package io.rc10k.broker.internal;

import java.net.URI;
import org.eclipse.jetty.http.HttpFields;

/**
 * One request and its response over an {@link H2cWire}: inert until {@link #start()}, then waiting for a
 * stream of its partner's {@link H2cDestination}, then on one. Completes exactly once, whichever of the
 * response, a failure, its deadline or an abort comes first.
 *
 * <p>Threading: {@link #start()} and {@link #abort} from any thread. The stream's sending side (its id, what
 * of the body went out, its send window) is its connection's, under the connection's lock; the receiving side
 * (status, headers, bytes received) is read and written on the connection's loop only.</p>
 */
final class H2cCall extends LoopCall {
    final H2cDestination destination;
    final String method;
    final URI uri;
    /** The caller's fields, or null. */
    final HttpFields headers;
    /** The request's body, or null for none. */
    final byte[] body;
    /** The connection it was given to, once one took it (set before the abort flag is read). */
    volatile H2cConnection connection;
    /** onBegin was told: once, whichever connection carries the call in the end. */
    volatile boolean begun;
    /** Times a connection handed it back unprocessed (H2cStreams#handBack). */
    int handBacks;

    // The connection's lock:
    /** The stream's id, 0 until the stream is opened. */
    int streamId;
    /** Bytes of the body sent so far. */
    int bodySent;
    /** What the partner lets this stream send. */
    int sendWindow;

    // The connection's loop:
    /** The final response's status, 0 until it came. */
    int status;
    HttpFields responseHeaders;
    /** The response's Content-Length, or -1. */
    long declaredLength = -1;
    long received;
    /** What the partner may still send on the stream before the client opens its window again. */
    int receiveWindow = H2cReceiver.STREAM_WINDOW;
    /** Received bytes not yet given back to the stream's window. */
    int unacknowledged;
    int interims;

    H2cCall(H2cDestination destination, String method, URI uri, HttpFields headers, byte[] body, long timeoutNanos,
            Wire.Events events) {
        super(timeoutNanos, events);
        this.destination = destination;
        this.method = method;
        this.uri = uri;
        this.headers = headers;
        this.body = body;
    }

    @Override
    public void start() {
        destination.dispatch(this);
    }

    @Override
    void abortWhereItIs(Throwable cause) {
        H2cConnection on = connection;
        if (on != null) {
            on.abort(this, cause);
        } else if (destination.unqueue(this)) {
            complete(0, null, cause, false);
        }
    }

    boolean isHead() {
        return method.equals("HEAD");
    }

    @Override
    public String toString() {
        return "H2cCall{" + method + " " + uri + (isDone() ? " done" : "") + "}";
    }
}
