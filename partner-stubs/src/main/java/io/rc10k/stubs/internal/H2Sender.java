package io.rc10k.stubs.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackEncoder;
import org.eclipse.jetty.http2.hpack.HpackException;

/**
 * The sending half of an {@link H2Connection}, as the client's settings govern it: header blocks by the
 * connection's HPACK encoder, cut to the client's frame size, and bodies in DATA frames as the flow-control windows
 * the client grants allow, the rest kept until its WINDOW_UPDATEs come. {@link H2Acts} sends through it, and through
 * {@link #out()} for the frames that break those rules.
 *
 * <p>Threads: only the connection's thread uses it.</p>
 */
final class H2Sender {
    private static final int DEFAULT_WINDOW = 65_535;
    private static final int DEFAULT_MAX_FRAME_SIZE = 16_384;
    private static final int HEADER_TABLE_SIZE = 0x1;
    private static final int INITIAL_WINDOW_SIZE = 0x4;
    private static final int MAX_FRAME_SIZE = 0x5;

    private final H2Out out;
    private final HpackEncoder encoder = new HpackEncoder();
    private final Map<Integer, Long> streamWindows = new HashMap<>();
    private final List<Pending> pending = new ArrayList<>();
    private long connectionWindow = DEFAULT_WINDOW;
    private int initialWindow = DEFAULT_WINDOW;
    private int maxFrameSize = DEFAULT_MAX_FRAME_SIZE;

    H2Sender(H2Out out) {
        this.out = out;
    }

    /** Takes one setting of the client's SETTINGS frame, if it is one that governs what this side sends. */
    void setting(int id, long value) {
        switch (id) {
            case HEADER_TABLE_SIZE -> encoder.setTableCapacity((int) Math.min(value, encoder.getTableCapacity()));
            case INITIAL_WINDOW_SIZE -> {
                long delta = value - initialWindow;
                initialWindow = (int) value;
                streamWindows.replaceAll((stream, window) -> window + delta);
            }
            case MAX_FRAME_SIZE -> maxFrameSize = (int) value;
            default -> {
            }
        }
    }

    /** The client opened {@code stream}: its window starts at the initial window size. */
    void opened(int stream) {
        streamWindows.put(stream, (long) initialWindow);
    }

    /** The client's WINDOW_UPDATE (stream 0: the connection's); sends what it lets out. */
    void windowUpdate(int stream, long increment) throws IOException {
        if (stream == 0) {
            connectionWindow += increment;
        } else {
            streamWindows.computeIfPresent(stream, (id, window) -> window + increment);
        }
        flush();
    }

    /** The client reset {@code stream}: nothing more is sent on it. */
    void reset(int stream) {
        streamWindows.remove(stream);
        pending.removeIf(p -> p.stream == stream);
    }

    /** A valid header block for {@code metaData}, by the connection's encoder (whose table the client mirrors). */
    byte[] encode(MetaData metaData) throws HpackException {
        ByteBuffer buffer = ByteBuffer.allocate(16 * 1024);
        encoder.encode(buffer, metaData);
        buffer.flip();
        byte[] block = new byte[buffer.remaining()];
        buffer.get(block);
        return block;
    }

    /** {@code block} as HEADERS and as many CONTINUATIONs as the client's frame size needs. */
    void headers(int stream, byte[] block, boolean endStream) throws IOException {
        int first = Math.min(block.length, maxFrameSize);
        int flags = (endStream ? H2Out.END_STREAM : 0) | (first == block.length ? H2Out.END_HEADERS : 0);
        out.frame(H2Out.HEADERS, flags, stream, ByteBuffer.wrap(block, 0, first));
        for (int at = first; at < block.length; at += maxFrameSize) {
            int n = Math.min(maxFrameSize, block.length - at);
            out.frame(H2Out.CONTINUATION, at + n == block.length ? H2Out.END_HEADERS : 0, stream,
                    ByteBuffer.wrap(block, at, n));
        }
    }

    /**
     * Sends {@code body} on {@code stream} in DATA frames as the flow-control windows allow, the rest as the
     * client's WINDOW_UPDATEs come; then {@code trailers} (a header block, or null) ends the stream, or the last
     * DATA frame does when {@code endStream}.
     */
    void data(int stream, Body body, boolean endStream, byte[] trailers) throws IOException {
        pending.add(new Pending(stream, body, endStream, trailers));
        flush();
    }

    /** Counts {@code bytes} sent on {@code stream} outside {@link #data} against the windows. */
    void consumeWindow(int stream, int bytes) {
        connectionWindow -= bytes;
        streamWindows.computeIfPresent(stream, (id, window) -> window - bytes);
    }

    /** What the client lets this side send on {@code stream} now. */
    long sendWindow(int stream) {
        return Math.min(connectionWindow, streamWindows.getOrDefault(stream, 0L));
    }

    /** The largest frame the client accepts. */
    int maxFrameSize() {
        return maxFrameSize;
    }

    /** The frame writer, for frames sent as they are, whatever the settings and windows say. */
    H2Out out() {
        return out;
    }

    /** Sends what the windows now allow of the bodies still on their way. */
    void flush() throws IOException {
        for (int i = 0; i < pending.size(); ) {
            if (pending.get(i).send()) {
                pending.remove(i);
            } else {
                i++;
            }
        }
    }

    /** A body on its way out, as fast as the windows allow. */
    private final class Pending {
        final int stream;
        final Body body;
        final boolean endStream;
        final byte[] trailers;
        long position;
        boolean empty;

        Pending(int stream, Body body, boolean endStream, byte[] trailers) {
            this.stream = stream;
            this.body = body;
            this.endStream = endStream;
            this.trailers = trailers;
            this.empty = body.size() == 0;
        }

        /** Sends what the windows allow; true once all of it, trailers included, is out. */
        boolean send() throws IOException {
            long size = body.size();
            while (position < size || empty) {
                int n = (int) Math.min(Math.min(size - position, maxFrameSize), sendWindow(stream));
                if (n <= 0 && !empty) {
                    return false;
                }
                ByteBuffer chunk = body.slice(position, n);
                position += chunk.remaining();
                consumeWindow(stream, chunk.remaining());
                empty = false;
                boolean last = position == size && endStream && trailers == null;
                out.frame(H2Out.DATA, last ? H2Out.END_STREAM : 0, stream, chunk);
            }
            if (trailers != null) {
                headers(stream, trailers, true);
            }
            if (endStream) {
                streamWindows.remove(stream);
            }
            return true;
        }
    }
}
