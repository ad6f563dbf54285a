package io.rc10k.broker.internal;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http2.ErrorCode;
import org.eclipse.jetty.http2.frames.SettingsFrame;
import org.eclipse.jetty.io.ByteBufferPool;

/**
 * One h2c connection of an {@link H2cWire} (HTTP/2 with prior knowledge, RFC 9113): many calls at once, each
 * on a stream, registered for reading on an {@link Http1Loop} from connect to close. This class is the
 * connection's life — connecting, the streams it holds and how each one ends (answered, reset, handed back),
 * deadlines, idling, closing; {@link H2cSender} writes what goes out, {@link H2cReceiver} judges what comes in.
 *
 * <p>Threading: {@link #reserve}, {@link #send} and {@link #abort} from any thread; the sending state (this
 * class's and the sender's) under this object's lock, never held while a call's events run; the rest on the
 * loop. A call's events: onBegin and onSent on the sending thread (or the loop), the response's and the
 * completion on the loop.</p>
 */
final class H2cConnection implements LoopConnection {
    final H2cDestination destination;
    final Http1Loop loop;
    final String partner;
    final H2cStreams streams;
    final H2cSender sender;
    private final H2cReceiver receiver;
    /** False once no new stream may start here: after a GOAWAY, ids spent, closing. */
    volatile boolean accepting = true;
    volatile boolean closed;

    // Under the lock (this):
    /** Calls given to the connection before it connected. */
    private final List<H2cCall> beforeConnect = new ArrayList<>();
    boolean connected;
    /** Why the connection must close, found under the lock and acted on once it is let go (written under it). */
    private volatile Runnable broken;

    // The loop's (the channel written under the lock too, once connected):
    SocketChannel channel;
    SelectionKey key;
    private long connectDeadlineNanos;

    H2cConnection(Http1Loop loop, H2cDestination destination, ByteBufferPool buffers) {
        this.loop = loop;
        this.destination = destination;
        this.partner = destination.partner.name();
        this.streams = new H2cStreams(this, destination.partner.maxStreamsPerConnection());
        Map<Integer, Integer> settings = new LinkedHashMap<>();
        settings.put(SettingsFrame.ENABLE_PUSH, 0);
        settings.put(SettingsFrame.INITIAL_WINDOW_SIZE, H2cReceiver.STREAM_WINDOW);
        settings.put(SettingsFrame.MAX_HEADER_LIST_SIZE, H2cReceiver.MAX_HEADER_LIST_BYTES);
        this.sender = new H2cSender(this, H2Frames.preface(settings, H2cReceiver.CONNECTION_WINDOW));
        this.receiver = new H2cReceiver(this, buffers);
    }

    /**
     * Any thread, with a stream reserved: false (the call untouched, the stream given back) when the connection
     * closed first; the caller finds the call another. Before the connection is up, the call waits for it.
     */
    boolean send(H2cCall call) {
        call.connection = this;
        boolean open;
        Throwable aborted = null;
        synchronized (this) {
            open = !closed;
            if (!open) {
                call.connection = null;
            } else if (!connected) {
                // An abort that looked for the call before it was here has set its flag: read it after the add.
                beforeConnect.add(call);
                aborted = call.aborted();
                if (aborted == null || !beforeConnect.remove(call)) {
                    return true;
                }
            }
        }
        if (!open) {
            streams.release(); // reserved as it closed: a closed connection counts no stream
            return false;
        }
        if (aborted != null) {
            streams.fail(call, aborted);
        } else {
            sender.start(call);
        }
        return true;
    }

    /** Any thread: ends {@code call} with {@code cause}, resetting its stream, if the connection still has it. */
    void abort(H2cCall call, Throwable cause) {
        loop.run(() -> {
            boolean waiting;
            synchronized (this) {
                waiting = beforeConnect.remove(call);
            }
            if (waiting) {
                streams.fail(call, cause);
                return;
            }
            int id = streamOf(call);
            if (id != 0 && streams.get(id) == call) {
                streams.reset(call, ErrorCode.CANCEL_STREAM_ERROR, cause);
                return;
            }
            H2cConnection now = call.connection;
            if (now != null && now != this) {
                now.abort(call, cause); // handed back and given to another connection meanwhile
            } else if (now == null && call.destination.unqueue(call)) {
                call.complete(0, null, cause, false); // handed back to the destination's queue meanwhile
            }
            // Otherwise not started yet (start reads the flag) or ended already.
        });
    }

    private synchronized int streamOf(H2cCall call) {
        return call.streamId;
    }

    /** On the loop: opens the socket and starts connecting. */
    void open(InetSocketAddress address) {
        connectDeadlineNanos = System.nanoTime() + destination.partner.connectTimeout().toNanos();
        loop.adopt(this);
        try {
            channel = SocketChannel.open();
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            key = channel.register(loop.selector, SelectionKey.OP_CONNECT, this);
            if (channel.connect(address)) {
                connected();
            }
        } catch (IOException | RuntimeException e) {
            closeWith(e);
        }
    }

    private void connected() {
        key.interestOps(SelectionKey.OP_READ);
        List<H2cCall> waiting;
        List<H2cCall> sent;
        synchronized (this) {
            connected = true;
            waiting = new ArrayList<>(beforeConnect);
            beforeConnect.clear();
            sent = sender.flush(); // the preface and settings first
        }
        sender.told(sent);
        try (WriteBatch batch = WriteBatch.open()) {
            for (H2cCall call : waiting) {
                sender.start(call);
            }
        }
    }

    @Override
    public void ready(SelectionKey ready) {
        try {
            if (ready.isConnectable()) {
                if (channel.finishConnect()) {
                    connected();
                }
            } else {
                if (ready.isWritable()) {
                    List<H2cCall> sent;
                    synchronized (this) {
                        sent = sender.writable();
                    }
                    sender.told(sent);
                }
                if (ready.isReadable()) {
                    receiver.read(channel, loop.buffer);
                }
            }
        } catch (IOException | RuntimeException | AssertionError | StackOverflowError e) {
            // An Error too: thrown here, it would end the loop and with it every connection the loop holds.
            closeWith(e);
        }
    }

    /** Any thread: the socket's interest in {@code ops}, set on the loop. */
    void interest(int ops) {
        if (loop.isCurrentThread()) {
            key.interestOps(ops);
        } else {
            loop.execute(() -> {
                if (!closed) {
                    key.interestOps(ops);
                }
            });
        }
    }

    /** Any thread: the writing end of {@link WriteBatch}. */
    void flushQueued() {
        sender.flushQueued();
    }

    /** On the loop: the partner broke the connection's protocol; GOAWAY, close, its calls malformed. */
    void failConnection(ErrorCode error, String reason) {
        if (closed) {
            return;
        }
        synchronized (this) {
            sender.queue(H2Frames.goAway(0, error.code)); // the last stream the partner opened: none
            sender.flush();
        }
        closeWith(new Failures.MalformedResponseException(partner + " broke HTTP/2: " + reason));
    }

    /** Under the lock: fails the connection once the lock is let go. */
    void failLater(ErrorCode error, String reason) {
        broken = () -> failConnection(error, reason);
    }

    /** Under the lock: closes the connection once the lock is let go (closing ends calls, whose events run). */
    void closeLater(Throwable cause) {
        broken = () -> closeWith(cause);
    }

    /** With the lock let go: acts on what broke the connection under it, if anything. */
    void actOnBroken() {
        if (broken == null) {
            return;
        }
        Runnable failure;
        synchronized (this) {
            failure = broken;
            broken = null;
        }
        if (failure != null) {
            loop.run(failure);
        }
    }

    /** On the loop: a connection that takes no new streams closes once its last one has ended. */
    void closeIfDone() {
        if (!accepting && streams.count() == 0 && streams.isEmpty()) {
            close();
        }
    }

    @Override
    public void check(long now) {
        boolean up;
        boolean stalled;
        List<H2cCall> late = new ArrayList<>();
        synchronized (this) {
            up = connected;
            // A partner that takes no byte for a whole call timeout while requests wait to go out: every call on
            // the connection would end at its deadline, and the queue grow, while it stayed open.
            stalled = sender.stalledSince(now - destination.partner.callTimeout().toNanos());
            if (!up) {
                for (H2cCall call : beforeConnect) {
                    if (now - call.deadlineNanos >= 0) {
                        late.add(call);
                    }
                }
                beforeConnect.removeAll(late);
            }
        }
        if (!up) {
            for (H2cCall call : late) {
                streams.fail(call, new TimeoutException(partner + " did not answer within the call's timeout (still connecting)"));
            }
            if (now - connectDeadlineNanos >= 0) {
                closeWith(new SocketTimeoutException("connect to " + partner + " timed out"));
            }
            return;
        }
        if (stalled) {
            closeWith(new SocketTimeoutException(partner + " read nothing of what was sent to it for a call timeout"));
            return;
        }
        for (H2cCall call : streams.open()) {
            if (now - call.deadlineNanos >= 0) {
                streams.reset(call, ErrorCode.CANCEL_STREAM_ERROR, new TimeoutException(partner
                        + " did not answer within the call's timeout"));
            }
        }
        if (streams.idleSince(now - destination.idleTimeoutNanos)) {
            accepting = false;
            if (streams.count() == 0) {
                synchronized (this) {
                    sender.queue(H2Frames.goAway(0, ErrorCode.NO_ERROR.code));
                    sender.flush();
                }
                close();
            } else {
                accepting = true; // a call took a stream meanwhile
            }
        }
    }

    @Override
    public void close() {
        closeWith(new EOFException("connection to " + partner + " closed"));
    }

    /** On the loop: closes once, gives the place back, and ends every call still on it with {@code cause}. */
    void closeWith(Throwable cause) {
        List<H2cCall> ended;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            accepting = false;
            ended = new ArrayList<>(beforeConnect);
            beforeConnect.clear();
            sender.clear();
        }
        ended.addAll(streams.drain());
        streams.giveBack(ended.size()); // the streams of the calls it ends: a closed connection counts none
        loop.forget(this);
        if (key != null) {
            key.cancel();
        }
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // closed anyway
            }
        }
        destination.closed(this);
        for (H2cCall call : ended) {
            call.complete(call.status, call.responseHeaders, cause, false);
        }
    }

    boolean isClosed() {
        return closed;
    }
}
