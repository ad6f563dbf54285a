package io.rc10k.broker.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.ErrorCode;
import org.eclipse.jetty.http2.frames.SettingsFrame;
import org.eclipse.jetty.http2.hpack.HpackEncoder;
import org.eclipse.jetty.http2.hpack.HpackException;

/**
 * The sending half of an {@link H2cConnection}: a call's stream opened and its request HPACK-encoded and
 * queued, bodies sent as the partner's flow-control windows allow, the partner's settings that shape what goes
 * out, and the queue written to the socket.
 *
 * <p>Threading: the thread that starts a call writes its frames — stream id, encoding and write in one
 * critical section under the connection's lock, since ids must reach the partner in the order they were taken
 * and the encoder's table is the partner's decoder's. Every field here is guarded by that lock; a call's
 * onSent is told once it is let go ({@link #told}). What the socket does not take at once the loop writes
 * later, and frames queued meanwhile go after it.</p>
 */
final class H2cSender {
    private final H2cConnection connection;
    private final String partner;
    // The connection's lock:
    private final HpackEncoder encoder = new HpackEncoder();
    private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
    /** Calls whose frames are queued but not all written: told onSent once they are. */
    private final List<H2cCall> unsent = new ArrayList<>();
    /** Calls whose body waits for the partner's flow-control window. */
    private final List<H2cCall> blocked = new ArrayList<>();
    /** The loop writes what is queued when the socket takes more. */
    private boolean writeLater;
    /** Since when the socket has taken nothing more (valid while {@link #writeLater}). */
    private long stalledSinceNanos;
    private int nextStreamId = 1;
    private int sendWindow = H2Frames.DEFAULT_WINDOW;
    private int peerInitialWindow = H2Frames.DEFAULT_WINDOW;
    private int peerMaxFrameSize = H2Frames.DEFAULT_MAX_FRAME_SIZE;

    H2cSender(H2cConnection connection, ByteBuffer preface) {
        this.connection = connection;
        this.partner = connection.partner;
        out.add(preface);
    }

    /**
     * Opens the call's stream and writes its request; any thread, the connection up. A connection that closed or
     * stopped taking streams since the call was given to it hands the call back to its destination.
     */
    void start(H2cCall call) {
        if (!call.begun) {
            call.begun = true;
            call.events.onBegin();
        }
        Throwable refused = null;
        boolean elsewhere = false;
        List<H2cCall> sent = List.of();
        synchronized (connection) {
            if (connection.closed || !connection.accepting) {
                elsewhere = true;
            } else if (call.aborted() != null) {
                refused = call.aborted();
            } else {
                refused = encodeAndQueue(call);
                if (refused == null && !WriteBatch.defer(connection)) {
                    sent = flush();
                }
            }
        }
        if (elsewhere) {
            call.connection = null;
            connection.streams.release();
            call.destination.dispatch(call);
            return;
        }
        if (refused != null) {
            connection.streams.fail(call, refused);
        }
        told(sent);
    }

    /**
     * Under the lock: opens the call's stream and queues its frames; or, when the request cannot be encoded,
     * why (a request that breaks the partner's limits fails alone, before the encoder's table is touched).
     */
    private Throwable encodeAndQueue(H2cCall call) {
        if (nextStreamId < 0) {
            connection.accepting = false;
            return new IOException("the connection to " + partner + " has used all its stream ids");
        }
        HttpFields fields = H2Fields.sendable(call.headers);
        long listSize = H2Fields.listSize(call, fields);
        if (listSize > encoder.getMaxHeaderListSize() && encoder.getMaxHeaderListSize() > 0) {
            return new IllegalArgumentException("request headers to " + partner + " of " + listSize
                    + " bytes, over the partner's limit of " + encoder.getMaxHeaderListSize());
        }
        ByteBuffer block;
        try {
            block = encode(call, fields);
        } catch (HpackException | RuntimeException e) {
            // The encoder may have changed its table halfway: the partner's copy no longer matches it.
            connection.accepting = false;
            connection.failLater(ErrorCode.COMPRESSION_ERROR, "a request could not be encoded: " + e);
            return new IllegalArgumentException("request to " + partner + " cannot be encoded: " + e.getMessage(), e);
        }
        int id = nextStreamId;
        nextStreamId += 2;
        call.streamId = id;
        call.bodySent = 0;
        call.sendWindow = peerInitialWindow;
        connection.streams.opened(call);
        out.add(H2Frames.headers(id, block, call.body == null, peerMaxFrameSize));
        if (call.body == null) {
            unsent.add(call);
        } else {
            sendBody(call);
        }
        return null;
    }

    /** Under the lock: the request's header block, HPACK-encoded (the encoder's state is the connection's). */
    private ByteBuffer encode(H2cCall call, HttpFields fields) throws HpackException {
        String path = call.uri.getRawPath();
        String query = call.uri.getRawQuery();
        String pathQuery = (path == null || path.isEmpty() ? "/" : path) + (query == null ? "" : "?" + query);
        HttpURI uri = HttpURI.from("http", call.uri.getHost(), call.uri.getPort(), pathQuery);
        boolean bodyByNature = call.method.equals("POST") || call.method.equals("PUT") || call.method.equals("PATCH");
        long length = call.body != null ? call.body.length : bodyByNature ? 0 : -1;
        // An upper bound of the encoded size (a Latin-1 character's Huffman code is at most 4 bytes; a string's
        // length prefix at most a few), so the encoder never runs out of room halfway.
        int bound = 64 + 4 * (call.method.length() + pathQuery.length() + call.uri.getRawAuthority().length());
        for (HttpField field : fields) {
            bound += 16 + 4 * (field.getName().length() + (field.getValue() == null ? 0 : field.getValue().length()));
        }
        ByteBuffer block = ByteBuffer.allocate(bound);
        encoder.encode(block, new MetaData.Request(call.method, uri, HttpVersion.HTTP_2, fields, length));
        return block.flip();
    }

    /** Under the lock: as much of the body as the windows allow; the rest when the partner opens them. */
    private void sendBody(H2cCall call) {
        int left = call.body.length - call.bodySent;
        int now = Math.min(left, Math.min(sendWindow, call.sendWindow));
        if (now > 0 || left == 0) {
            out.add(H2Frames.data(call.streamId, call.body, call.bodySent, now, now == left, peerMaxFrameSize));
            call.bodySent += now;
            sendWindow -= now;
            call.sendWindow -= now;
        }
        if (call.bodySent < call.body.length) {
            if (!blocked.contains(call)) {
                blocked.add(call);
            }
        } else {
            blocked.remove(call);
            unsent.add(call);
        }
    }

    /** Under the lock: bodies that waited for the windows, as far as they now allow. */
    void resumeBlocked() {
        for (H2cCall call : new ArrayList<>(blocked)) {
            if (sendWindow <= 0) {
                return;
            }
            sendBody(call);
        }
    }

    /** Under the lock: the call's stream ended; true when part of its body had not gone out yet. */
    boolean forget(H2cCall call) {
        unsent.remove(call);
        return blocked.remove(call);
    }

    /**
     * Under the lock: the partner's settings that shape what is sent (its max concurrent streams are the
     * connection's); what breaks the protocol fails the connection once the lock is let go, and gives false.
     */
    boolean apply(Map<Integer, Integer> settings, Collection<H2cCall> open) {
        for (Map.Entry<Integer, Integer> setting : settings.entrySet()) {
            int value = setting.getValue();
            switch (setting.getKey()) {
                // A value of 2^31 or more (read as negative) is as good as unbounded.
                case SettingsFrame.HEADER_TABLE_SIZE -> {
                    int capacity = value < 0 ? Integer.MAX_VALUE : value;
                    encoder.setMaxTableCapacity(capacity);
                    encoder.setTableCapacity(Math.min(capacity, encoder.getTableCapacity()));
                }
                case SettingsFrame.MAX_CONCURRENT_STREAMS -> connection.streams.max(value);
                case SettingsFrame.INITIAL_WINDOW_SIZE -> {
                    if (value < 0) {
                        connection.failLater(ErrorCode.FLOW_CONTROL_ERROR, "an initial window over 2^31-1");
                        return false;
                    }
                    int delta = value - peerInitialWindow;
                    peerInitialWindow = value;
                    for (H2cCall call : open) {
                        call.sendWindow = (int) Math.min(H2Frames.MAX_WINDOW, (long) call.sendWindow + delta);
                    }
                }
                case SettingsFrame.MAX_FRAME_SIZE -> {
                    if (value < H2Frames.DEFAULT_MAX_FRAME_SIZE || value > 0xff_ffff) {
                        connection.failLater(ErrorCode.PROTOCOL_ERROR, "a max frame size of " + value);
                        return false;
                    }
                    peerMaxFrameSize = value;
                }
                case SettingsFrame.MAX_HEADER_LIST_SIZE -> encoder.setMaxHeaderListSize(value < 0 ? 0 : value);
                default -> {
                    // ENABLE_PUSH means nothing from a server; unknown settings are ignored (RFC 9113 §6.5.2).
                }
            }
        }
        out.add(H2Frames.settingsAck());
        resumeBlocked();
        return true;
    }

    /**
     * Under the lock: the partner opened the connection's window ({@code call} null) or a stream's by
     * {@code delta}; false, and nothing changed, when that takes it over 2^31-1.
     */
    boolean open(H2cCall call, int delta) {
        long after = (long) (call == null ? sendWindow : call.sendWindow) + delta;
        if (after > H2Frames.MAX_WINDOW) {
            return false;
        }
        if (call == null) {
            sendWindow = (int) after;
        } else {
            call.sendWindow = (int) after;
        }
        resumeBlocked();
        return true;
    }

    /** Under the lock: queues {@code frame} after what is queued. */
    void queue(ByteBuffer frame) {
        out.add(frame);
    }

    /**
     * Under the lock: writes what is queued, unless the loop is to write it (the socket was full) or the
     * connection is not up; returns the calls now wholly written, to be told onSent once the lock is let go.
     */
    List<H2cCall> flush() {
        if (!connection.connected || writeLater || connection.closed) {
            return List.of();
        }
        try {
            connection.channel.write(out.toArray(new ByteBuffer[0]));
        } catch (IOException e) {
            connection.closeLater(e); // never inside the lock: closing ends calls, whose events run
            return List.of();
        }
        while (!out.isEmpty() && !out.peekFirst().hasRemaining()) {
            out.pollFirst();
        }
        if (!out.isEmpty()) {
            writeLater = true;
            stalledSinceNanos = System.nanoTime();
            connection.interest(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
            return List.of();
        }
        if (unsent.isEmpty()) {
            return List.of();
        }
        List<H2cCall> sent = new ArrayList<>(unsent);
        unsent.clear();
        return sent;
    }

    /** On the loop, under the lock: the socket takes more; writes what waited. */
    List<H2cCall> writable() {
        writeLater = false;
        connection.interest(SelectionKey.OP_READ);
        return flush();
    }

    /** Under the lock: true when the partner has taken no byte of what waits to go out since {@code since}. */
    boolean stalledSince(long since) {
        return writeLater && stalledSinceNanos - since <= 0;
    }

    /** Under the lock: the connection closed; nothing more goes out. */
    void clear() {
        blocked.clear();
        unsent.clear();
        out.clear();
    }

    /** With the lock let go: tells the calls written whole, then acts on what broke the connection, if anything. */
    void told(List<H2cCall> sent) {
        for (H2cCall call : sent) {
            call.events.onSent();
        }
        connection.actOnBroken();
    }

    /** Any thread: writes what is queued (the end of a {@link WriteBatch}). */
    void flushQueued() {
        List<H2cCall> sent;
        synchronized (connection) {
            sent = flush();
        }
        told(sent);
    }

    /** Any thread: queues {@code frame} and writes it if it may. */
    void send(ByteBuffer frame) {
        List<H2cCall> sent;
        synchronized (connection) {
            if (connection.closed) {
                return;
            }
            out.add(frame);
            sent = flush();
        }
        told(sent);
    }
}
