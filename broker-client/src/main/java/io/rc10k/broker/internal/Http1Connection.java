package io.rc10k.broker.internal;

import java.io.EOFException;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpFields;

/**
 * One kept-alive HTTP/1.1 connection of an {@link Http1Wire}: one call at a time, registered for reading
 * on its {@link Http1Loop} from connect to close — an exchange changes no interest set. This class is its
 * life (connect, idle, deadlines, close) and its sending half: the thread that gives it a call writes the
 * request. The loop reads the response into the loop's buffer and its {@link Http1Receiver} parses it, then
 * the connection ends the call there and goes back to its destination or closes.
 *
 * <p>Threading: {@link #send} from any thread, only while the connection is the caller's (taken from
 * the idle stack, or new); everything else on the loop. {@code call} and {@code closed} are the two
 * fields both sides read: a sender sets {@code call} then reads {@code closed}, the loop sets
 * {@code closed} then reads {@code call}, so a call is never left on a connection nobody reads.</p>
 */
final class Http1Connection implements LoopConnection {
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
    private final Http1Receiver receiver;
    private SelectionKey key;
    private volatile Http1Call call;
    private volatile boolean closed;
    private final AtomicBoolean idle = new AtomicBoolean();
    private boolean connected;
    private long connectDeadlineNanos;
    private volatile long idleSinceNanos;
    /** Loop only: the rest of a request the socket did not take at once. */
    private ByteBuffer unwritten;

    Http1Connection(Http1Loop loop, Http1Destination destination, SocketChannel channel, Http1Call first,
            InetSocketAddress address) {
        this.address = address;
        this.loop = loop;
        this.destination = destination;
        this.channel = channel;
        this.receiver = new Http1Receiver(this, destination.partner.name());
        this.call = first;
        first.connection = this;
        receiver.expect(first);
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
        receiver.expect(next);
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
    @Override
    public void ready(SelectionKey ready) {
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
                receiver.eof();
                return;
            }
            receiver.parse(buffer);
            if (closed || read < buffer.capacity()) {
                return;
            }
        }
    }

    /** On the loop, from the receiver: the call on it, or null. */
    Http1Call current() {
        return call;
    }

    /**
     * On the loop: {@code current}'s response came whole, and the receiver is ready for the next. The
     * connection goes back to its destination only when the framing left it {@code reusable} and the whole
     * request went out (a partner may answer before reading it all); else it closes. Then the call ends.
     */
    void answered(Http1Call current, int status, HttpFields headers, boolean reusable) {
        boolean keep = reusable;
        call = null;
        current.connection = null;
        if (!keep) {
            close();
        } else if (Http1Call.WRITE_STATE.compareAndSet(current, Http1Call.WRITING, Http1Call.ANSWERED_FIRST)) {
            keep = false; // the sender, still in write(), releases it once it knows the request went out whole
        } else if (current.writeState == Http1Call.WRITTEN) {
            destination.release(this);
        } else {
            close(); // the loop still had request bytes to write: the partner answered without reading them
        }
        current.complete(status, headers, null, keep);
    }

    /** On the loop: ends {@code which} with {@code failure} and closes the connection. */
    void fail(Http1Call which, Throwable failure) {
        receiver.failed();
        CALL.compareAndSet(this, which, null);
        int answered = receiver.statusSoFar();
        HttpFields answeredHeaders = receiver.headersSoFar();
        close();
        which.complete(answered, answeredHeaders, failure, false);
    }

    /** On the loop: closes once, gives the place back, and ends a call still on it as reset. */
    @Override
    public void close() {
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

    /** On the loop, every tick: the connect, call and idle deadlines (the partner's idle timeout). */
    @Override
    public void check(long now) {
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
        } else if (now - idleSinceNanos >= destination.idleTimeoutNanos && destination.takeForClose(this)) {
            close();
        }
    }
}
