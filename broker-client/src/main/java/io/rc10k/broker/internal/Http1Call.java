package io.rc10k.broker.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;

/**
 * One request and its response over an {@link Http1Wire}: inert until {@link #start()}, then waiting
 * for a connection of its partner's {@link Http1Destination}, then on one. Completes exactly once,
 * whichever of the response, a failure, its deadline or an abort comes first.
 *
 * <p>Threading: {@link #start()} and {@link #abort} from any thread; the response events and the
 * completion on the loop of the connection that carries it (or on the aborting thread when no
 * connection does yet).</p>
 */
final class Http1Call extends LoopCall {
    final Http1Destination destination;
    final boolean head;
    /** The request's body, written after its head in one buffer; null for none. */
    private final byte[] body;
    private final String method;
    private final URI uri;
    private final HttpFields headers;
    /** The connection carrying it, once one does (set before the abort flag is read). */
    volatile Http1Connection connection;
    /**
     * How far the request went out, for a connection's {@code end}: {@link #WRITING} while the sending
     * thread writes, then {@link #WRITTEN}, or {@link #LOOP_WRITES} when the socket took only part and the
     * loop writes the rest; {@link #ANSWERED_FIRST} when the answer ended while the sender was still
     * writing, and the sender decides the connection's fate (Http1Connection).
     */
    volatile int writeState;
    static final int WRITING = 0;
    static final int WRITTEN = 1;
    static final int LOOP_WRITES = 2;
    static final int ANSWERED_FIRST = 3;
    static final VarHandle WRITE_STATE;

    static {
        try {
            WRITE_STATE = MethodHandles.lookup().findVarHandle(Http1Call.class, "writeState", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    Http1Call(Http1Destination destination, String method, URI uri, HttpFields headers,
            long timeoutNanos, Wire.Events events) {
        this(destination, method, uri, headers, null, timeoutNanos, events);
    }

    Http1Call(Http1Destination destination, String method, URI uri, HttpFields headers, byte[] body,
            long timeoutNanos, Wire.Events events) {
        super(timeoutNanos, events);
        this.destination = destination;
        this.body = body;
        this.method = method;
        this.head = method.equals("HEAD");
        this.uri = uri;
        this.headers = headers;
    }

    @Override
    public void start() {
        Throwable early = aborted();
        if (early != null) {
            complete(0, null, early, false);
            return;
        }
        destination.dispatch(this);
    }

    @Override
    void abortWhereItIs(Throwable cause) {
        Http1Connection on = connection;
        if (on != null) {
            on.abort(this, cause);
        } else if (destination.unqueue(this)) {
            complete(0, null, cause, false);
        }
    }

    /**
     * The request as one buffer: request line, Host, the caller's fields sanitized as Jetty's generator does,
     * then, with a body, its {@code Content-Length} and the body itself. A method that carries a body by
     * nature (POST, PUT, PATCH) without one says {@code Content-Length: 0}, as Jetty's client does.
     */
    ByteBuffer requestHead() {
        String path = uri.getRawPath();
        String query = uri.getRawQuery();
        String authority = uri.getRawAuthority();
        Head head = new Head(method.length() + path.length() + (query == null ? 0 : query.length() + 1)
                + authority.length() + (headers == null ? 24 : 256));
        head.latin1(method).latin1(" ").latin1(path);
        if (query != null) {
            head.latin1("?").latin1(query);
        }
        head.latin1(" HTTP/1.1\r\nHost: ").latin1(authority).latin1("\r\n");
        if (headers != null) {
            for (HttpField field : headers) {
                head.clean(field.getName(), true).latin1(": ");
                head.clean(field.getValue() == null ? "" : field.getValue(), false).latin1("\r\n");
            }
        }
        if (body != null || method.equals("POST") || method.equals("PUT") || method.equals("PATCH")) {
            head.latin1("Content-Length: ").latin1(Integer.toString(body == null ? 0 : body.length)).latin1("\r\n");
        }
        head.latin1("\r\n");
        if (body != null) {
            head.bytes(body);
        }
        return head.buffer();
    }

    /** A request head written straight into bytes: ISO-8859-1, anything beyond it as '?'. */
    private static final class Head {
        private byte[] bytes;
        private int length;

        Head(int capacity) {
            bytes = new byte[capacity];
        }

        Head latin1(String text) {
            room(text.length());
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                bytes[length++] = (byte) (c > 0xff ? '?' : c);
            }
            return this;
        }

        /** Control characters (and a colon in a name) become '?' in names and ' ' in values: no header injection. */
        Head clean(String text, boolean name) {
            room(text.length());
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                boolean bad = (c < 0x20 && c != '\t') || c == 0x7f || c > 0xff || (name && (c == ':' || c <= ' '));
                bytes[length++] = (byte) (bad ? (name ? '?' : ' ') : c);
            }
            return this;
        }

        Head bytes(byte[] raw) {
            room(raw.length);
            System.arraycopy(raw, 0, bytes, length, raw.length);
            length += raw.length;
            return this;
        }

        private void room(int more) {
            if (length + more > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
            }
        }

        ByteBuffer buffer() {
            return ByteBuffer.wrap(bytes, 0, length);
        }
    }

    @Override
    public String toString() {
        return "Http1Call{" + method + " " + uri + (isDone() ? " done" : "") + "}";
    }
}
