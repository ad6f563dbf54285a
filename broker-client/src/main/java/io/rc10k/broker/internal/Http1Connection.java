package io.rc10k.broker.internal;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.util.BufferUtil;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One kept-alive HTTP/1.1 connection of an {@link Http1Wire}: one call at a time, registered for reading
 * on its {@link Http1Loop} from connect to close — an exchange changes no interest set. The thread that
 * gives it a call writes the request; the loop reads and parses the response with Jetty's
 * {@link HttpParser} into the loop's buffer, and ends the call there.
 *
 * <p>Threading: {@link #send} from any thread, only while the connection is the caller's (taken from
 * the idle stack, or new); everything else on the loop. {@code call} and {@code closed} are the two
 * fields both sides read: a sender sets {@code call} then reads {@code closed}, the loop sets
 * {@code closed} then reads {@code call}, so a call is never left on a connection nobody reads.</p>
 */
final class Http1Connection implements HttpParser.ResponseHandler {
    private static final int MAX_RESPONSE_HEAD_BYTES = 64 * 1024;
    /** Interim (1xx) responses accepted before the real one: more is a partner stalling with them. */
    private static final int MAX_INTERIM_RESPONSES = 8;
    private static final VarHandle CALL;

    static {
        try {
            CALL = MethodHandles.lookup().findVarHandle(Http1Connection.class, "call", Http1Call.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Http1Loop loop;
    final Http1Destination destination;
    private final SocketChannel channel;
    private final InetSocketAddress address;
    private final HttpParser parser = new HttpParser(this, MAX_RESPONSE_HEAD_BYTES);
    private SelectionKey key;
    private volatile Http1Call call;
    private volatile boolean closed;
    private final AtomicBoolean idle = new AtomicBoolean();
    private boolean connected;
    private long connectDeadlineNanos;
    private volatile long idleSinceNanos;
    /** Loop only: the response being parsed. */
    private int status;
    private HttpFields.Mutable headers;
    private boolean closeAfter;
    private boolean messageDone;
    /** Loop only: interim responses seen before the current call's real one. */
    private int interims;
    /** Loop only: set while {@link #eof()} lets the parser finish, when an early end is a reset, not a fault. */
    private boolean atEof;
    /** Loop only: what is wrong with the status line Jetty's parser let through, or null. */
    private String badStatusLine;
    private ByteBuffer unwritten;

    Http1Connection(Http1Loop loop, Http1Destination destination, SocketChannel channel, Http1Call first,
            InetSocketAddress address) {
        this.address = address;
        this.loop = loop;
        this.destination = destination;
        this.channel = channel;
        this.call = first;
        first.connection = this;
        parser.setHeadResponse(first.head);
    }

    /** On the loop: registers and starts connecting; the first call goes out once connected. */
    void open(long connectTimeoutNanos) throws IOException {
        connectDeadlineNanos = System.nanoTime() + connectTimeoutNanos;
        key = channel.register(loop.selector, SelectionKey.OP_CONNECT, this);
        if (channel.connect(address)) {
            connected();
        }
    }

    private void connected() {
        connected = true;
        key.interestOps(SelectionKey.OP_READ);
        Http1Call first = call;
        Throwable aborted = first.aborted();
        if (aborted != null) {
            fail(first, aborted);
            return;
        }
        write(first);
    }

    /**
     * Any thread, on a connection it holds: false (and nothing sent) when the connection closed before the
     * call was on it; the caller then finds it another.
     */
    boolean send(Http1Call next) {
        next.connection = this;
        parser.setHeadResponse(next.head);
        call = next;
        if (closed && CALL.compareAndSet(this, next, null)) {
            next.connection = null;
            return false;
        }
        if (call != next) {
            return true; // closed after the call was on it: close() has ended the call, as a reset
        }
        Throwable aborted = next.aborted();
        if (aborted != null) {
            // Aborted before anything was written: the connection is as clean as it was, keep it.
            if (CALL.compareAndSet(this, next, null)) {
                next.connection = null;
                next.complete(0, null, aborted, false);
                destination.release(this);
            }
            return true;
        }
        write(next);
        return true;
    }

    private void write(Http1Call next) {
        next.events.onBegin();
        ByteBuffer out = next.requestHead();
        try {
            channel.write(out);
        } catch (IOException e) {
            if (!Http1Call.WRITE_STATE.compareAndSet(next, Http1Call.WRITING, Http1Call.LOOP_WRITES)) {
                loop.run(this::close); // answered already, and the loop left the connection to this thread
                return;
            }
            abort(next, e);
            return;
        }
        if (out.hasRemaining()) {
            if (!Http1Call.WRITE_STATE.compareAndSet(next, Http1Call.WRITING, Http1Call.LOOP_WRITES)) {
                // Answered before the partner could have read it all: what is left must never reach the
                // next call's partner as the start of its request.
                loop.run(this::close);
                return;
            }
            // The socket buffer is full (a very long head): the loop writes the rest when it may.
            loop.execute(() -> {
                unwritten = out;
                if (!closed) {
                    key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                }
            });
            return;
        }
        if (!Http1Call.WRITE_STATE.compareAndSet(next, Http1Call.WRITING, Http1Call.WRITTEN)) {
            // The answer ended on the loop while this thread was still in write(), and the loop left the
            // connection to it: the request is out whole, so the connection is as clean as any.
            destination.release(this);
            return;
        }
        next.events.onSent();
    }

    /** Any thread: ends {@code which} with {@code cause} and closes the connection, if it still carries it. */
    void abort(Http1Call which, Throwable cause) {
        loop.run(() -> {
            if (call == which) {
                fail(which, cause);
            }
        });
    }

    /** On the loop: the selector says the channel is ready. */
    void ready(SelectionKey ready) {
        try {
            if (ready.isConnectable()) {
                channel.finishConnect();
                connected();
                return;
            }
            if (ready.isWritable() && unwritten != null) {
                channel.write(unwritten);
                if (!unwritten.hasRemaining()) {
                    unwritten = null;
                    key.interestOps(SelectionKey.OP_READ);
                    Http1Call current = call;
                    if (current != null) {
                        current.writeState = Http1Call.WRITTEN;
                        current.events.onSent();
                    }
                }
            }
            if (ready.isReadable()) {
                read();
            }
        } catch (IOException | RuntimeException | AssertionError | StackOverflowError e) {
            // An Error too: thrown here, it would end the loop and with it every connection the loop holds.
            // (Jetty's parser asserts on some heads it refuses; with assertions on, that is an AssertionError.)
            Http1Call current = call;
            if (current != null) {
                fail(current, e);
            } else {
                close();
            }
        }
    }

    private void read() throws IOException {
        ByteBuffer buffer = loop.buffer;
        while (true) {
            buffer.clear();
            int read = channel.read(buffer);
            buffer.flip();
            if (read < 0) {
                eof();
                return;
            }
            parse(buffer);
            if (closed || read < buffer.capacity()) {
                return;
            }
        }
    }

    private void parse(ByteBuffer buffer) {
        while (buffer.hasRemaining() && !closed) {
            Http1Call current = call;
            if (current == null) {
                // Bytes nobody asked for: the connection can no longer be trusted to frame a response.
                close();
                return;
            }
            int before = buffer.remaining();
            try {
                parser.parseNext(buffer);
            } catch (AssertionError refused) {
                malformed(current, "the parser refused it (" + refused.getMessage() + ")");
                return;
            }
            if (messageDone) {
                messageDone = false;
                if (status >= 100 && status < 200) {
                    // An interim response (100, 103): the real one follows on the same connection.
                    if (++interims > MAX_INTERIM_RESPONSES) {
                        malformed(current, "more than " + MAX_INTERIM_RESPONSES + " interim (1xx) responses");
                        return;
                    }
                    parser.reset();
                    parser.setHeadResponse(current.head);
                    continue;
                }
                end(current, buffer.hasRemaining());
            } else if (buffer.remaining() == before) {
                return; // nothing consumed: the parser waits for more bytes
            }
        }
    }

    private void eof() {
        Http1Call current = call;
        if (current != null && !closed) {
            atEof = true;
            parser.atEOF();
            try {
                parser.parseNext(BufferUtil.EMPTY_BUFFER);
            } catch (AssertionError refused) {
                badMessage(null); // as without assertions: at the end of the stream, a reset
                return;
            }
            if (messageDone) {
                end(current, true);
                return;
            }
            fail(current, new EOFException(destination.partner.name() + " closed the connection before the "
                    + "response ended"));
            return;
        }
        close();
    }

    /**
     * The response came whole: frees or closes the connection, then ends the call. A connection is kept
     * only when nothing about it is in doubt: the partner did not ask to close it, no byte follows the
     * answer, the whole request went out (a partner may answer before reading it), and the answer's
     * framing was unambiguous.
     */
    private void end(Http1Call current, boolean extraBytes) {
        int answered = status;
        HttpFields answeredHeaders = headers;
        status = 0;
        headers = null;
        interims = 0;
        Throwable aborted = current.aborted();
        if (aborted != null) {
            fail(current, aborted);
            return;
        }
        boolean keep = !closeAfter && !extraBytes && framedClearly(answered, answeredHeaders);
        call = null;
        current.connection = null;
        parser.reset();
        if (!keep) {
            close();
        } else if (Http1Call.WRITE_STATE.compareAndSet(current, Http1Call.WRITING, Http1Call.ANSWERED_FIRST)) {
            keep = false; // the sender, still in write(), releases it once it knows the request went out whole
        } else if (current.writeState == Http1Call.WRITTEN) {
            destination.release(this);
        } else {
            close(); // the loop still had request bytes to write: the partner answered without reading them
        }
        current.complete(answered, answeredHeaders, null, keep);
    }

    /**
     * A body-less answer (204, 304) that still declares a body's framing: whatever bytes the partner meant
     * as that body would arrive later and be read as the next call's answer, so the connection is not kept.
     */
    private static boolean framedClearly(int status, HttpFields fields) {
        if (status != 204 && status != 304) {
            return true;
        }
        if (fields.contains(HttpHeader.TRANSFER_ENCODING)) {
            return false;
        }
        return status != 204 || fields.getLongField(HttpHeader.CONTENT_LENGTH) <= 0;
    }

    /** On the loop: the partner's bytes broke HTTP; the call ends MALFORMED at once and the connection closes. */
    private void malformed(Http1Call which, String fault) {
        fail(which, new Failures.MalformedResponseException(destination.partner.name() + " sent a malformed "
                + "response: " + fault));
    }

    /** On the loop: ends {@code which} with {@code failure} and closes the connection. */
    private void fail(Http1Call which, Throwable failure) {
        interims = 0;
        CALL.compareAndSet(this, which, null);
        int answered = headers == null ? 0 : status;
        HttpFields answeredHeaders = headers;
        close();
        which.complete(answered, answeredHeaders, failure, false);
    }

    /** On the loop: closes once, gives the place back, and ends a call still on it as reset. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        loop.forget(this);
        if (key != null) {
            key.cancel();
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // closed anyway
        }
        destination.closed(this);
        Http1Call stranded = (Http1Call) CALL.getAndSet(this, null);
        if (stranded != null) {
            stranded.complete(0, null, new EOFException("connection to " + destination.partner.name() + " closed"),
                    false);
        }
    }

    boolean isClosed() {
        return closed;
    }

    /** On the idle stack since {@code nanos}. */
    void enterIdle(long nanos) {
        idleSinceNanos = nanos;
        idle.set(true);
    }

    /** Off the idle stack: true for the one taker that got it. */
    boolean leaveIdle() {
        return idle.get() && idle.compareAndSet(true, false);
    }

    /** On the loop, every tick: the connect, call and idle deadlines. */
    void check(long now, long idleTimeoutNanos) {
        Http1Call current = call;
        if (!connected) {
            if (current != null && now - current.deadlineNanos >= 0) {
                fail(current, new TimeoutException(destination.partner.name() + " did not answer within the call's "
                        + "timeout (still connecting)"));
            } else if (now - connectDeadlineNanos >= 0) {
                if (current == null) {
                    close();
                } else {
                    fail(current, new SocketTimeoutException("connect to " + destination.partner.name()
                            + " timed out"));
                }
            }
            return;
        }
        if (current != null) {
            if (now - current.deadlineNanos >= 0) {
                fail(current, new TimeoutException(destination.partner.name() + " did not answer within the call's "
                        + "timeout"));
            }
        } else if (now - idleSinceNanos >= idleTimeoutNanos && destination.takeForClose(this)) {
            close();
        }
    }

    @Override
    public void startResponse(HttpVersion version, int code, String reason) {
        status = code;
        headers = HttpFields.build();
        closeAfter = version != HttpVersion.HTTP_1_1;
        // Jetty's parser takes any known version and any three digits; an HTTP/1.1 answer has neither.
        if (version != HttpVersion.HTTP_1_1 && version != HttpVersion.HTTP_1_0) {
            badStatusLine = "version " + version + " in an HTTP/1.1 answer";
        } else if (code < 100 || code > 599) {
            badStatusLine = "status " + code + " (accepted: 100 to 599)";
        } else {
            badStatusLine = null;
        }
    }

    @Override
    public void parsedHeader(HttpField field) {
        headers.add(field);
        if (field.getHeader() == HttpHeader.CONNECTION) {
            if (field.contains(HttpHeaderValue.CLOSE.asString())) {
                closeAfter = true;
            } else if (field.contains(HttpHeaderValue.KEEP_ALIVE.asString())) {
                closeAfter = false;
            }
        }
    }

    @Override
    public boolean headerComplete() {
        Http1Call current = call;
        if (current == null) {
            return true;
        }
        if (badStatusLine != null) {
            malformed(current, badStatusLine);
            return true;
        }
        if (status == 101) {
            // Switching protocols was never asked for: what follows is not HTTP/1.1 any more.
            malformed(current, "101 Switching Protocols without an Upgrade request");
            return true;
        }
        if (status >= 100 && status < 200) {
            return false; // interim: the real response follows
        }
        current.events.onHeaders(status, headers);
        return closed;
    }

    @Override
    public boolean content(ByteBuffer content) {
        Http1Call current = call;
        if (current == null) {
            return true;
        }
        current.events.onContent(content);
        return closed;
    }

    @Override
    public boolean contentComplete() {
        return false;
    }

    @Override
    public boolean messageComplete() {
        messageDone = true;
        return true;
    }

    @Override
    public void earlyEOF() {
        if (atEof) {
            return; // eof() reports it: the partner closed before the response ended
        }
        // The socket is open, but the parser gave up on the body's framing (a bad chunk, say): it reports
        // that as an early end after the headers, and waiting for more bytes would only wait for the deadline.
        Http1Call current = call;
        if (current != null) {
            malformed(current, "the body's framing is broken (bad chunk or length)");
        } else {
            close();
        }
    }

    @Override
    public void badMessage(HttpException failure) {
        Http1Call current = call;
        if (current == null || closed) {
            close();
        } else if (atEof) {
            // The partner closed inside the head: what it sent was not wrong, only cut short.
            fail(current, new EOFException(destination.partner.name() + " closed the connection before the "
                    + "response head ended"));
        } else {
            fail(current, new Failures.MalformedResponseException(destination.partner.name() + " sent a malformed "
                    + "response: " + failure.getReason(), (Throwable) failure));
        }
    }
}
