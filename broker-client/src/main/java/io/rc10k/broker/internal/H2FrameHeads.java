package io.rc10k.broker.internal;

import java.nio.ByteBuffer;
import java.util.function.IntSupplier;

/**
 * The frame heads of what a partner sends, followed across reads, so that a frame whose head alone breaks
 * HTTP/2 — a first frame other than SETTINGS, a control frame of the wrong length, a frame longer than the
 * client accepts, a PUSH_PROMISE — is refused as its head arrives. Jetty's parser checks a frame's length only
 * once a byte of its payload has come, and lets frames of unknown types by unseen, so a partner that sends such
 * a head and then nothing would hold the call until its deadline. Following the heads also tells where each
 * frame ends: Jetty's parser hands on a frame's data or header block before its padding has come, and a frame
 * that ends a stream is only whole with its padding.
 *
 * <p>Not thread-safe: its connection's loop only.</p>
 */
final class H2FrameHeads {
    private final int maxFrameSize;
    /** The highest stream id the client has opened. */
    private final IntSupplier lastStreamId;
    private final byte[] head = new byte[H2Frames.HEADER_LENGTH];
    private int headHave;
    /** No head has come yet: the first must be the partner's preface, a SETTINGS frame (RFC 9113 §3.4). */
    private boolean first = true;
    /** Payload bytes of the current frame still to come. */
    private int payloadLeft;
    /**
     * Where, in the bytes last followed, the frame not yet whole at their end began: their limit when they end
     * with a frame, {@link Integer#MIN_VALUE} when it began in bytes followed before.
     */
    private int openFrom;
    /** What the last head refused showed. */
    private String wrong;

    H2FrameHeads(int maxFrameSize, IntSupplier lastStreamId) {
        this.maxFrameSize = maxFrameSize;
        this.lastStreamId = lastStreamId;
    }

    /**
     * Follows {@code bytes} from its position to its limit (neither is moved): -1, or the index just past the
     * first head that breaks the protocol ({@link #wrong()} says how) — the frames before it are the partner's
     * to have parsed.
     */
    int follow(ByteBuffer bytes) {
        int at = bytes.position();
        int limit = bytes.limit();
        int frameFrom = headHave > 0 || payloadLeft > 0 ? Integer.MIN_VALUE : at;
        while (at < limit) {
            if (headHave == 0 && payloadLeft == 0) {
                frameFrom = at;
            }
            if (payloadLeft > 0) {
                int skip = Math.min(payloadLeft, limit - at);
                at += skip;
                payloadLeft -= skip;
                continue;
            }
            head[headHave++] = bytes.get(at++);
            if (headHave == head.length) {
                headHave = 0;
                int length = ((head[0] & 0xff) << 16) | ((head[1] & 0xff) << 8) | (head[2] & 0xff);
                int stream = ((head[5] & 0x7f) << 24) | ((head[6] & 0xff) << 16) | ((head[7] & 0xff) << 8)
                        | (head[8] & 0xff);
                wrong = check(length, head[3] & 0xff, head[4] & 0xff, stream);
                if (wrong != null) {
                    openFrom = frameFrom;
                    return at;
                }
                payloadLeft = length;
            }
        }
        openFrom = headHave > 0 || payloadLeft > 0 ? frameFrom : limit;
        return -1;
    }

    /**
     * Whether the frame a parser is in at index {@code at} of the bytes last followed (past its head) ends
     * within them.
     */
    boolean wholeAt(int at) {
        return at <= openFrom;
    }

    /** Bytes of the last frame followed that are still to come, once its head is whole. */
    int stillToCome() {
        return payloadLeft;
    }

    /** What the head {@link #follow} refused showed. */
    String wrong() {
        return wrong;
    }

    private String check(int length, int type, int flags, int stream) {
        if (first) {
            first = false;
            if (type != H2Frames.SETTINGS || (flags & H2Frames.FLAG_ACK) != 0) {
                return "a frame other than SETTINGS as its preface";
            }
        }
        boolean connectionFrame = type == H2Frames.SETTINGS || type == H2Frames.PING || type == H2Frames.GOAWAY;
        if (connectionFrame != (stream == 0) && type <= H2Frames.CONTINUATION && type != H2Frames.WINDOW_UPDATE) {
            return "a frame of type " + type + " on stream " + stream;
        }
        boolean onAStream = type == H2Frames.DATA || type == H2Frames.HEADERS || type == H2Frames.RST_STREAM
                || type == H2Frames.CONTINUATION || (type == H2Frames.WINDOW_UPDATE && stream != 0);
        if (onAStream && ((stream & 1) == 0 || stream > lastStreamId.getAsInt())) {
            return "a frame of type " + type + " on stream " + stream + ", which the client never opened";
        }
        if (length > maxFrameSize) {
            return "a frame of " + length + " bytes, over the client's SETTINGS_MAX_FRAME_SIZE";
        }
        return switch (type) {
            case H2Frames.SETTINGS -> (flags & H2Frames.FLAG_ACK) != 0 ? (length != 0 ? "a SETTINGS ack with a payload"
                    : null) : length % 6 != 0 ? "a SETTINGS frame of " + length + " bytes" : null;
            case H2Frames.PING -> length != 8 ? "a PING frame of " + length + " bytes" : null;
            case H2Frames.RST_STREAM, H2Frames.WINDOW_UPDATE -> length != 4 ? "a frame of type " + type + " of "
                    + length + " bytes" : null;
            case H2Frames.PRIORITY -> length != 5 ? "a PRIORITY frame of " + length + " bytes" : null;
            case H2Frames.GOAWAY -> length < 8 ? "a GOAWAY frame of " + length + " bytes" : null;
            // The client disables push in its first SETTINGS (RFC 9113 §8.4).
            case H2Frames.PUSH_PROMISE -> "a PUSH_PROMISE, push being disabled";
            default -> null;
        };
    }
}
