package io.rc10k.stubs.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http2.ErrorCode;
import org.eclipse.jetty.http2.Flags;
import org.eclipse.jetty.http2.frames.FrameType;

/**
 * Writes HTTP/2 frames by hand: a 9-byte header (length, type, flags, stream id) and the payload as given,
 * whether or not it is legal. Also builds HPACK blocks by hand, for the headers no encoder would write.
 * Writes are serialized on this object; each frame is flushed at once.
 */
final class H2Out {
    // Frame types, flags and an error code by Jetty's names, so that nothing here restates the RFC's numbers.
    static final int DATA = FrameType.DATA.getType();
    static final int HEADERS = FrameType.HEADERS.getType();
    static final int RST_STREAM = FrameType.RST_STREAM.getType();
    static final int SETTINGS = FrameType.SETTINGS.getType();
    static final int PUSH_PROMISE = FrameType.PUSH_PROMISE.getType();
    static final int PING = FrameType.PING.getType();
    static final int GOAWAY = FrameType.GO_AWAY.getType();
    static final int WINDOW_UPDATE = FrameType.WINDOW_UPDATE.getType();
    static final int CONTINUATION = FrameType.CONTINUATION.getType();
    static final int END_STREAM = Flags.END_STREAM;
    static final int ACK = Flags.ACK;
    static final int END_HEADERS = Flags.END_HEADERS;
    static final int PADDED = Flags.PADDING;
    static final int PRIORITY = Flags.PRIORITY;
    static final int INTERNAL_ERROR = ErrorCode.INTERNAL_ERROR.code;

    private final OutputStream out;

    H2Out(OutputStream out) {
        this.out = out;
    }

    /** One whole frame. */
    synchronized void frame(int type, int flags, int stream, byte[] payload) throws IOException {
        frame(type, flags, stream, ByteBuffer.wrap(payload));
    }

    /** One whole frame whose payload is the remaining bytes of {@code payload}. */
    synchronized void frame(int type, int flags, int stream, ByteBuffer payload) throws IOException {
        writeHeader(payload.remaining(), type, flags, stream);
        if (payload.hasArray()) {
            out.write(payload.array(), payload.arrayOffset() + payload.position(), payload.remaining());
        } else {
            byte[] copy = new byte[payload.remaining()];
            payload.duplicate().get(copy);
            out.write(copy);
        }
        out.flush();
    }

    /** A frame header announcing {@code length} bytes followed by only {@code partial} of them (or all). */
    synchronized void truncatedFrame(int length, int type, int flags, int stream, byte[] partial) throws IOException {
        writeHeader(length, type, flags, stream);
        out.write(partial);
        out.flush();
    }

    private void writeHeader(int length, int type, int flags, int stream) throws IOException {
        out.write(new byte[] {(byte) (length >>> 16), (byte) (length >>> 8), (byte) length, (byte) type, (byte) flags,
                (byte) (stream >>> 24 & 0x7F), (byte) (stream >>> 16), (byte) (stream >>> 8), (byte) stream});
    }

    /** The payload of RST_STREAM or WINDOW_UPDATE: one 32-bit value. */
    static byte[] int32(long value) {
        return new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
    }

    /** GOAWAY's payload: the last stream id, the error code, no debug data. */
    static byte[] goAway(int lastStreamId, int errorCode) {
        ByteBuffer payload = ByteBuffer.allocate(8).putInt(lastStreamId & 0x7FFF_FFFF).putInt(errorCode);
        return payload.array();
    }

    /**
     * HPACK by hand: a field "literal without indexing, new name" ({@code 0000 0000}, RFC 7541 §6.2.2) whose
     * name and value are sent raw (no Huffman) and as given, uppercase included. It leaves the dynamic table as
     * it was, so it can sit among blocks of a stateful encoder.
     */
    static void literal(ByteArrayOutputStream block, String name, String value) {
        block.write(0);
        string(block, name.getBytes(StandardCharsets.ISO_8859_1));
        string(block, value.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** HPACK by hand: a field whose name is entry {@code index} (below 15) of the static table, value literal, not indexed. */
    static void literalIndexedName(ByteArrayOutputStream block, int index, String value) {
        block.write(index);
        string(block, value.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** The start of a {@link #literal} field whose value, of {@code valueLength} bytes, the caller sends after it. */
    static void literalStart(ByteArrayOutputStream block, String name, int valueLength) {
        block.write(0);
        string(block, name.getBytes(StandardCharsets.ISO_8859_1));
        integer(block, 0, 7, valueLength);
    }

    private static void string(ByteArrayOutputStream block, byte[] bytes) {
        integer(block, 0, 7, bytes.length);
        block.write(bytes, 0, bytes.length);
    }

    /** An HPACK integer (RFC 7541 §5.1) with an {@code prefixBits}-bit prefix after the bits in {@code first}. */
    private static void integer(ByteArrayOutputStream block, int first, int prefixBits, int value) {
        int max = (1 << prefixBits) - 1;
        if (value < max) {
            block.write(first | value);
            return;
        }
        block.write(first | max);
        int rest = value - max;
        while (rest >= 0x80) {
            block.write(rest & 0x7F | 0x80);
            rest >>>= 7;
        }
        block.write(rest);
    }
}
