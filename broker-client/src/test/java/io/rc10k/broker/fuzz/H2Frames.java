package io.rc10k.broker.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * HTTP/2 frames as bytes, by hand (RFC 9113, section 4): the 9-byte frame header, a few payloads, raw HPACK
 * field representations (RFC 7541) and a blocking frame reader. Nothing here checks anything: the
 * fuzzer writes wrong lengths, flags and stream ids on purpose, and {@link H2Reference} judges them.
 */
final class H2Frames {
    static final byte[] CLIENT_PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
    static final int HEADER_BYTES = 9;

    static final int DATA = 0;
    static final int HEADERS = 1;
    static final int PRIORITY = 2;
    static final int RST_STREAM = 3;
    static final int SETTINGS = 4;
    static final int PUSH_PROMISE = 5;
    static final int PING = 6;
    static final int GOAWAY = 7;
    static final int WINDOW_UPDATE = 8;
    static final int CONTINUATION = 9;

    static final int END_STREAM = 0x1;
    static final int ACK = 0x1;
    static final int END_HEADERS = 0x4;
    static final int PADDED = 0x8;
    static final int PRIORITY_FLAG = 0x20;

    static final int SETTINGS_HEADER_TABLE_SIZE = 1;
    static final int SETTINGS_ENABLE_PUSH = 2;
    static final int SETTINGS_MAX_CONCURRENT_STREAMS = 3;
    static final int SETTINGS_INITIAL_WINDOW_SIZE = 4;
    static final int SETTINGS_MAX_FRAME_SIZE = 5;
    static final int SETTINGS_MAX_HEADER_LIST_SIZE = 6;

    static final int DEFAULT_MAX_FRAME_SIZE = 16_384;
    static final long DEFAULT_WINDOW = 65_535;
    static final long MAX_WINDOW = 0x7FFF_FFFFL;

    private static final String[] NAMES = {"DATA", "HEADERS", "PRIORITY", "RST_STREAM", "SETTINGS", "PUSH_PROMISE",
        "PING", "GOAWAY", "WINDOW_UPDATE", "CONTINUATION"};

    private H2Frames() {
    }

    /** A frame as read: its declared length is its payload's. */
    record Frame(int type, int flags, int streamId, byte[] payload) {
        @Override
        public String toString() {
            return name(type) + "(flags 0x" + Integer.toHexString(flags) + ", stream " + streamId + ", " + payload.length
                    + " B)";
        }
    }

    static String name(int type) {
        return type >= 0 && type < NAMES.length ? NAMES[type] : "UNKNOWN_0x" + Integer.toHexString(type);
    }

    static void header(ByteArrayOutputStream out, int length, int type, int flags, int streamId) {
        out.write(length >>> 16);
        out.write(length >>> 8);
        out.write(length);
        out.write(type);
        out.write(flags);
        int32(out, streamId);
    }

    static void int32(ByteArrayOutputStream out, long value) {
        out.write((int) (value >>> 24));
        out.write((int) (value >>> 16));
        out.write((int) (value >>> 8));
        out.write((int) value);
    }

    static byte[] int32(long value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(4);
        int32(out, value);
        return out.toByteArray();
    }

    /** A SETTINGS payload from (identifier, value) pairs. */
    static byte[] settings(long... pairs) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            out.write((int) (pairs[i] >>> 8));
            out.write((int) pairs[i]);
            int32(out, pairs[i + 1]);
        }
        return out.toByteArray();
    }

    /** A GOAWAY payload: the last stream id, the error code, debug data. */
    static byte[] goAway(long lastStreamId, long error, byte[] debug) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int32(out, lastStreamId);
        int32(out, error);
        out.writeBytes(debug);
        return out.toByteArray();
    }

    /** An HPACK integer (RFC 7541, 5.1) with a {@code prefixBits}-bit prefix, the first byte's other bits {@code high}. */
    static void hpackInt(ByteArrayOutputStream out, int prefixBits, int high, long value) {
        int max = (1 << prefixBits) - 1;
        if (value < max) {
            out.write(high | (int) value);
            return;
        }
        out.write(high | max);
        value -= max;
        while (value >= 128) {
            out.write((int) (value % 128 + 128));
            value /= 128;
        }
        out.write((int) value);
    }

    /** A literal field without indexing, new name, no Huffman coding (RFC 7541, 6.2.2): any bytes go. */
    static void literal(ByteArrayOutputStream out, String name, String value) {
        out.write(0);
        string(out, name);
        string(out, value);
    }

    /** A literal field without indexing whose name is static table entry {@code index}. */
    static void literalIndexedName(ByteArrayOutputStream out, int index, String value) {
        hpackInt(out, 4, 0, index);
        string(out, value);
    }

    /** An indexed field (RFC 7541, 6.1): the static table from 1 to 61, the dynamic one after. */
    static void indexed(ByteArrayOutputStream out, int index) {
        hpackInt(out, 7, 0x80, index);
    }

    private static void string(ByteArrayOutputStream out, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        hpackInt(out, 7, 0, bytes.length);
        out.writeBytes(bytes);
    }

    /** The next frame, or null at the end of the stream; a frame over {@code maxLength} ends with an IOException. */
    static Frame read(DataInputStream in, int maxLength) throws IOException {
        int first = in.read();
        if (first < 0) {
            return null;
        }
        int length = (first << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
        int type = in.readUnsignedByte();
        int flags = in.readUnsignedByte();
        int streamId = in.readInt() & 0x7FFF_FFFF;
        if (length > maxLength) {
            throw new IOException("a frame of " + length + " bytes");
        }
        byte[] payload = new byte[length];
        in.readFully(payload);
        return new Frame(type, flags, streamId, payload);
    }

    static void readPreface(InputStream in) throws IOException {
        byte[] preface = new DataInputStream(in).readNBytes(CLIENT_PREFACE.length);
        if (preface.length < CLIENT_PREFACE.length) {
            throw new EOFException("the client closed before its preface");
        }
        if (!Arrays.equals(preface, CLIENT_PREFACE)) {
            throw new IOException("not the HTTP/2 client preface: " + Escapes.escape(preface));
        }
    }
}
