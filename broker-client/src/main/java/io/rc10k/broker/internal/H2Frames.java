package io.rc10k.broker.internal;

import java.nio.ByteBuffer;
import java.util.Map;
import org.eclipse.jetty.http2.frames.PrefaceFrame;

/**
 * The HTTP/2 frames an {@link H2cConnection} sends (RFC 9113 §4.1, §6), written straight into buffers: a
 * client sends few kinds, all well-formed by construction, so writing them costs less than building frame
 * objects for a generator. What a partner sends is parsed by Jetty's {@code Parser}, never here.
 *
 * <p>Stateless; thread-safe.</p>
 */
final class H2Frames {
    static final int HEADER_LENGTH = 9;
    static final int DATA = 0x0;
    static final int HEADERS = 0x1;
    static final int PRIORITY = 0x2;
    static final int RST_STREAM = 0x3;
    static final int SETTINGS = 0x4;
    static final int PUSH_PROMISE = 0x5;
    static final int PING = 0x6;
    static final int GOAWAY = 0x7;
    static final int WINDOW_UPDATE = 0x8;
    static final int CONTINUATION = 0x9;
    static final int FLAG_END_STREAM = 0x1;
    static final int FLAG_ACK = 0x1;
    static final int FLAG_END_HEADERS = 0x4;
    /** The frame size every peer accepts until it says otherwise (SETTINGS_MAX_FRAME_SIZE). */
    static final int DEFAULT_MAX_FRAME_SIZE = 16_384;
    /** A flow-control window before SETTINGS_INITIAL_WINDOW_SIZE or WINDOW_UPDATE change it. */
    static final int DEFAULT_WINDOW = 65_535;
    static final int MAX_WINDOW = Integer.MAX_VALUE;

    private H2Frames() {
    }

    static void header(ByteBuffer out, int length, int type, int flags, int streamId) {
        out.put((byte) (length >>> 16)).put((byte) (length >>> 8)).put((byte) length);
        out.put((byte) type).put((byte) flags).putInt(streamId & 0x7fff_ffff);
    }

    /**
     * The connection's first bytes: the preface, SETTINGS with {@code settings}, and a WINDOW_UPDATE raising the
     * connection's receive window from the default to {@code connectionWindow}.
     */
    static ByteBuffer preface(Map<Integer, Integer> settings, int connectionWindow) {
        byte[] magic = PrefaceFrame.PREFACE_BYTES;
        ByteBuffer out = ByteBuffer.allocate(magic.length + HEADER_LENGTH + 6 * settings.size() + HEADER_LENGTH + 4);
        out.put(magic);
        header(out, 6 * settings.size(), SETTINGS, 0, 0);
        settings.forEach((id, value) -> out.putShort((short) (int) id).putInt(value));
        windowUpdate(out, 0, connectionWindow - DEFAULT_WINDOW);
        return out.flip();
    }

    static ByteBuffer settingsAck() {
        ByteBuffer out = ByteBuffer.allocate(HEADER_LENGTH);
        header(out, 0, SETTINGS, FLAG_ACK, 0);
        return out.flip();
    }

    static ByteBuffer pingAck(byte[] payload) {
        ByteBuffer out = ByteBuffer.allocate(HEADER_LENGTH + 8);
        header(out, 8, PING, FLAG_ACK, 0);
        out.put(payload, 0, 8);
        return out.flip();
    }

    static void windowUpdate(ByteBuffer out, int streamId, int delta) {
        header(out, 4, WINDOW_UPDATE, 0, streamId);
        out.putInt(delta & 0x7fff_ffff);
    }

    static ByteBuffer windowUpdate(int streamId, int delta) {
        ByteBuffer out = ByteBuffer.allocate(HEADER_LENGTH + 4);
        windowUpdate(out, streamId, delta);
        return out.flip();
    }

    static ByteBuffer reset(int streamId, int error) {
        ByteBuffer out = ByteBuffer.allocate(HEADER_LENGTH + 4);
        header(out, 4, RST_STREAM, 0, streamId);
        out.putInt(error);
        return out.flip();
    }

    static ByteBuffer goAway(int lastStreamId, int error) {
        ByteBuffer out = ByteBuffer.allocate(HEADER_LENGTH + 8);
        header(out, 8, GOAWAY, 0, 0);
        out.putInt(lastStreamId & 0x7fff_ffff).putInt(error);
        return out.flip();
    }

    /**
     * A header block as one HEADERS frame, or HEADERS and CONTINUATION frames when it is longer than
     * {@code maxFrameSize}; {@code block} is read from its position to its limit.
     */
    static ByteBuffer headers(int streamId, ByteBuffer block, boolean endStream, int maxFrameSize) {
        int length = block.remaining();
        int frames = Math.max(1, (length + maxFrameSize - 1) / maxFrameSize);
        ByteBuffer out = ByteBuffer.allocate(length + frames * HEADER_LENGTH);
        int type = HEADERS;
        int flags = endStream ? FLAG_END_STREAM : 0;
        do {
            int chunk = Math.min(maxFrameSize, block.remaining());
            boolean last = chunk == block.remaining();
            header(out, chunk, type, flags | (last ? FLAG_END_HEADERS : 0), streamId);
            int limit = block.limit();
            block.limit(block.position() + chunk);
            out.put(block);
            block.limit(limit);
            type = CONTINUATION;
            flags = 0;
        } while (block.hasRemaining());
        return out.flip();
    }

    /** {@code length} bytes of {@code body} from {@code offset} as DATA frames of at most {@code maxFrameSize}. */
    static ByteBuffer data(int streamId, byte[] body, int offset, int length, boolean endStream, int maxFrameSize) {
        int frames = Math.max(1, (length + maxFrameSize - 1) / maxFrameSize);
        ByteBuffer out = ByteBuffer.allocate(length + frames * HEADER_LENGTH);
        int end = offset + length;
        do {
            int chunk = Math.min(maxFrameSize, end - offset);
            boolean last = offset + chunk == end;
            header(out, chunk, DATA, last && endStream ? FLAG_END_STREAM : 0, streamId);
            out.put(body, offset, chunk);
            offset += chunk;
        } while (offset < end);
        return out.flip();
    }
}
