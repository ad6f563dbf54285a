package io.rc10k.broker.internal;

import java.net.URI;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpFields;

/**
 * How one attempt of an exchange goes out: over the broker's own loops ({@link Http1Wire} for HTTP/1.1,
 * {@link H2cWire} for h2c) or over Jetty's {@code HttpClient} ({@link JettyWire}, for https). An exchange's
 * {@link AttemptRunner} drives an attempt the same way over any: it makes a {@link Call}, keeps it (so that its
 * own events can abort it), then starts it.
 */
public interface Wire {
    /**
     * An inert call: nothing is sent before {@link Call#start()}.
     *
     * @param headers the caller's extra request fields, or null; read as the request is written
     * @param body    the request's body, sent with its {@code Content-Length}; null for none
     */
    Call newCall(String partner, String method, URI uri, HttpFields headers, byte[] body, long timeoutNanos,
            Events events);

    /** False once the wire is stopping: no retry should start. */
    boolean isRunning();

    /** One request and its response. */
    interface Call {
        void start();

        /** Ends the call with {@code cause}, closing its connection if the request is out; idempotent. */
        void abort(Throwable cause);
    }

    /**
     * What an attempt hears, in this order: {@code onBegin} (a connection carries the request),
     * {@code onSent}, {@code onHeaders}, {@code onContent}…, then {@code onComplete} exactly once (also
     * after a failure at any point). {@code onSent} may come on another thread than the response events,
     * and after them when the response overtakes the write's return.
     */
    interface Events {
        void onBegin();

        void onSent();

        void onHeaders(int status, HttpFields headers);

        void onContent(ByteBuffer content);

        /**
         * @param status  the response's status, or 0 when none came
         * @param headers the response's headers, or null when none came
         * @param failure null when the response came whole
         * @param kept    the connection went back to its pool, open, for another call
         */
        void onComplete(int status, HttpFields headers, Throwable failure, boolean kept);
    }
}
