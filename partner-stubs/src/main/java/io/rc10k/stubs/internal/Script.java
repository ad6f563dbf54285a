package io.rc10k.stubs.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * What the hostile partner does with one request: bytes to send, in steps that may pause between
 * pieces, then how the connection ends. Immutable; one script may be played on many connections.
 *
 * <pre>{@code
 * Script.of(Script.End.HOLD, Script.Step.text("HTTP/1.1 200 OK\r\nContent-Type: appli"));
 * }</pre>
 *
 * @param steps sent in order
 * @param end   what happens after the last step
 */
record Script(List<Step> steps, End end) {
    /** How a connection ends when its script has been sent. */
    enum End {
        /** Read the next request (or close, if the request asked for it). */
        KEEP_ALIVE,
        /** Close: FIN. */
        CLOSE,
        /** Abort: RST (SO_LINGER 0). */
        RESET,
        /** Keep the connection open, reading and discarding, until the client closes it or the stall cap. */
        HOLD
    }

    /** An endless step: sent until the stall cap closes the connection. */
    static final long FOREVER = Long.MAX_VALUE;

    private static final int MAX_PIECE = 64 * 1024;
    private static final byte[] PAD = new byte[MAX_PIECE];

    static {
        Arrays.fill(PAD, (byte) 'a');
    }

    Script {
        steps = List.copyOf(steps);
    }

    static Script of(End end, Step... steps) {
        return new Script(List.of(steps), end);
    }

    /**
     * {@code length} bytes taken from {@code bytes} over and over, written {@code piece} bytes at a time
     * with {@code everyMillis} between pieces (none when 0).
     */
    record Step(byte[] bytes, long length, int piece, long everyMillis) {
        /** The bytes of {@code text} (ISO-8859-1: one byte per char, so control bytes stay as written), at once. */
        static Step text(String text) {
            byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
            return new Step(bytes, bytes.length, MAX_PIECE, 0);
        }

        /** {@code bytes} as they are, at once. */
        static Step bytes(byte[] bytes) {
            return new Step(bytes, bytes.length, MAX_PIECE, 0);
        }

        /** {@code length} bytes of {@code a}, at once, without holding them all in memory. */
        static Step pad(long length) {
            return new Step(PAD, length, MAX_PIECE, 0);
        }

        /** The bytes of {@code text} one at a time, {@code everyMillis} apart. */
        static Step trickle(String text, long everyMillis) {
            byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
            return new Step(bytes, bytes.length, 1, everyMillis);
        }

        /** {@code text} again and again, {@code everyMillis} apart, until the stall cap. */
        static Step forever(String text, long everyMillis) {
            byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
            return new Step(bytes, FOREVER, bytes.length, everyMillis);
        }

        /** The piece that starts at {@code position}: never past the step, a piece, or the end of {@code bytes}. */
        ByteBuffer pieceAt(long position) {
            int offset = (int) (position % bytes.length);
            long size = Math.min(Math.min(piece, length - position), bytes.length - offset);
            return ByteBuffer.wrap(bytes, offset, (int) size);
        }
    }
}
