package io.rc10k.broker.internal;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.ErrorCode;
import org.eclipse.jetty.http2.frames.DataFrame;
import org.eclipse.jetty.http2.frames.GoAwayFrame;
import org.eclipse.jetty.http2.frames.HeadersFrame;
import org.eclipse.jetty.http2.frames.PingFrame;
import org.eclipse.jetty.http2.frames.PriorityFrame;
import org.eclipse.jetty.http2.frames.PushPromiseFrame;
import org.eclipse.jetty.http2.frames.ResetFrame;
import org.eclipse.jetty.http2.frames.SettingsFrame;
import org.eclipse.jetty.http2.frames.WindowUpdateFrame;
import org.eclipse.jetty.http2.parser.Parser;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.WindowRateControl;

/**
 * The receiving half of an {@link H2cConnection}: reads what the partner sends, has Jetty's {@link Parser} frame
 * it (framing, HPACK, the frame-level checks), and judges each frame — a response's status and fields, bodies
 * against their Content-Length and the windows this side gave, the partner's settings, window updates, pings,
 * resets and GOAWAY — into its call's events or a stream's or the connection's failure.
 *
 * <p>Threading: the connection's loop only; what it changes of the sending half, under the connection's lock.</p>
 */
final class H2cReceiver implements Parser.Listener {
    /** What each stream may receive before the client acknowledges it: bodies come in without waiting. */
    static final int STREAM_WINDOW = 8 * 1024 * 1024;
    static final int CONNECTION_WINDOW = 16 * 1024 * 1024;
    /** A response's header block, decoded: as an HTTP/1.1 head may be (Http1Receiver). */
    static final int MAX_HEADER_LIST_BYTES = 64 * 1024;
    /** Interim (1xx) responses a stream may get before its final one, as over HTTP/1.1. */
    static final int MAX_INTERIM_RESPONSES = 8;
    /** Control frames a partner may send per second (pings, settings, resets, empty data) before it is cut off. */
    static final int MAX_FRAME_EVENTS_PER_SECOND = 1_000;

    private final H2cConnection connection;
    private final String partner;
    private final Parser parser;
    /** The partner's frame heads, checked as they arrive (Jetty's parser waits for a payload byte). */
    private final H2FrameHeads heads;
    private int receiveWindow = CONNECTION_WINDOW;
    private int unacknowledged;
    /** What the parser is reading, while it reads. */
    private ByteBuffer reading;
    /** A call whose stream ended in a frame still waiting for its padding, or null; and the bytes to come. */
    private H2cCall ending;
    private int endingAfter;

    H2cReceiver(H2cConnection connection, ByteBufferPool buffers) {
        this.connection = connection;
        this.partner = connection.partner;
        this.heads = new H2FrameHeads(H2Frames.DEFAULT_MAX_FRAME_SIZE, () -> connection.streams.lastId());
        this.parser = new Parser(buffers, MAX_HEADER_LIST_BYTES,
                new WindowRateControl(MAX_FRAME_EVENTS_PER_SECOND, Duration.ofSeconds(1)));
        parser.init(this);
    }

    /** On the loop: reads and parses what the socket holds, until it holds no more or the connection closed. */
    void read(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (true) {
            buffer.clear();
            int read = channel.read(buffer);
            buffer.flip();
            if (read < 0) {
                connection.closeWith(new EOFException(partner + " closed the connection"));
                return;
            }
            if (ending != null) {
                padded(buffer.remaining());
            }
            reading = buffer;
            int broken = heads.follow(buffer);
            if (broken < 0) {
                parser.parse(buffer);
            } else {
                // The frames before the broken head first: a response they complete is the call's.
                buffer.limit(broken - H2Frames.HEADER_LENGTH > buffer.position() ? broken - H2Frames.HEADER_LENGTH
                        : buffer.position());
                parser.parse(buffer);
                connection.failConnection(ErrorCode.PROTOCOL_ERROR, heads.wrong());
                return;
            }
            if (connection.closed || read < buffer.capacity()) {
                return;
            }
        }
    }

    /** {@code arrived} more bytes came: the stream of {@link #ending} ends if they complete its frame. */
    private void padded(int arrived) {
        if (arrived < endingAfter) {
            endingAfter -= arrived;
            return;
        }
        H2cCall call = ending;
        ending = null;
        if (connection.streams.get(call.streamId) == call) {
            ended(call);
        }
    }

    @Override
    public void onHeaders(HeadersFrame frame) {
        H2cCall call = streamFor(frame.getStreamId());
        if (call == null) {
            return;
        }
        MetaData meta = frame.getMetaData();
        Throwable refused = MetaData.Failed.getFailure(meta);
        if (refused != null) {
            // Jetty's parser hands on a block its HPACK decoder refused for the stream as failed fields.
            malformed(call, "a header block that breaks HTTP/2 (" + refused.getMessage() + ")");
            return;
        }
        if (call.status != 0) {
            // Trailers: they end the stream, and are not passed on.
            if (meta.isResponse() || meta.isRequest()) {
                malformed(call, "pseudo-headers in trailers");
            } else if (frame.isEndStream()) {
                endedInFrame(call);
            } else {
                malformed(call, "a second header block that does not end the stream");
            }
            return;
        }
        if (!(meta instanceof MetaData.Response response)) {
            malformed(call, "a header block without :status");
            return;
        }
        int status = response.getStatus();
        if (status < 100 || status > 999) {
            malformed(call, "a :status of " + status + ", not three digits");
            return;
        }
        if (status < 200) {
            if (status == 101 || frame.isEndStream()) {
                malformed(call, "an interim status " + status + (frame.isEndStream() ? " that ends the stream" : ""));
            } else if (++call.interims > MAX_INTERIM_RESPONSES) {
                malformed(call, "more than " + MAX_INTERIM_RESPONSES + " interim (1xx) responses");
            }
            return;
        }
        HttpFields fields = response.getHttpFields();
        String wrong = H2Fields.wrongInResponse(fields);
        if (wrong != null) {
            malformed(call, wrong);
            return;
        }
        call.status = status;
        call.responseHeaders = fields;
        call.declaredLength = call.isHead() || status == 204 || status == 304 ? -1 : H2Fields.declaredLength(fields);
        call.events.onHeaders(status, fields);
        if (frame.isEndStream() && !call.isDone()) {
            endedInFrame(call);
        }
    }

    @Override
    public void onData(DataFrame frame) {
        int length = frame.flowControlLength();
        receiveWindow -= length;
        if (receiveWindow < 0) {
            connection.failConnection(ErrorCode.FLOW_CONTROL_ERROR, "more data than the connection's window");
            return;
        }
        unacknowledged += length;
        H2cCall call = streamFor(frame.getStreamId());
        if (call != null) {
            data(call, frame, length);
        }
        if (!connection.closed && unacknowledged >= CONNECTION_WINDOW / 2) {
            connection.sender.send(H2Frames.windowUpdate(0, unacknowledged));
            receiveWindow += unacknowledged;
            unacknowledged = 0;
        }
    }

    private void data(H2cCall call, DataFrame frame, int length) {
        if (call.status == 0) {
            malformed(call, "DATA before the response's headers");
            return;
        }
        call.receiveWindow -= length;
        if (call.receiveWindow < 0) {
            malformed(call, "more data than the stream's window");
            return;
        }
        call.unacknowledged += length;
        ByteBuffer content = frame.getByteBuffer();
        call.received += content.remaining();
        if (call.declaredLength >= 0 && call.received > call.declaredLength) {
            malformed(call, "a body longer than its Content-Length " + call.declaredLength);
            return;
        }
        if (content.hasRemaining()) {
            call.events.onContent(content);
        }
        if (call.isDone()) {
            return; // refused by its listener (too large), which reset the stream
        }
        if (frame.isEndStream()) {
            endedInFrame(call);
        } else if (call.unacknowledged >= STREAM_WINDOW / 2) {
            connection.sender.send(H2Frames.windowUpdate(call.streamId, call.unacknowledged));
            call.receiveWindow += call.unacknowledged;
            call.unacknowledged = 0;
        }
    }

    /** The call on stream {@code id}, or null: a frame for a stream this side already ended is ignored. */
    private H2cCall streamFor(int id) {
        H2cCall call = connection.streams.get(id);
        if (call == null && (id == 0 || (id & 1) == 0 || id > connection.streams.lastId())) {
            connection.failConnection(ErrorCode.PROTOCOL_ERROR, "a frame on stream " + id
                    + ", which the client never opened");
        }
        return call;
    }

    /**
     * The frame being parsed ends the stream: the call ends once the frame is whole. Jetty's parser hands on a
     * frame's data or header block before its padding, and a frame cut short in its padding is a cut answer
     * (RFC 9113 §6.1: the padding is part of the frame) — whose bytes may not be what the partner meant.
     */
    private void endedInFrame(H2cCall call) {
        if (heads.wholeAt(reading.position())) {
            ended(call);
        } else {
            ending = call;
            endingAfter = heads.stillToCome();
        }
    }

    /** The partner ended the stream: the call ends with its response, if its body is as long as it said. */
    private void ended(H2cCall call) {
        if (call.declaredLength >= 0 && call.received != call.declaredLength) {
            malformed(call, "a body of " + call.received + " bytes where Content-Length says " + call.declaredLength);
        } else {
            connection.streams.answered(call);
        }
    }

    /** The stream broke the protocol: reset it and end its call as malformed. */
    private void malformed(H2cCall call, String what) {
        connection.streams.reset(call, ErrorCode.PROTOCOL_ERROR, new Failures.MalformedResponseException(partner + " sent "
                + what + " (stream " + call.streamId + ")"));
    }

    @Override
    public void onReset(ResetFrame frame) {
        H2cCall call = streamFor(frame.getStreamId());
        if (call != null && frame.getError() == ErrorCode.REFUSED_STREAM_ERROR.code) {
            connection.streams.handBack(call, partner + " refused stream " + call.streamId);
        } else if (call != null) {
            ErrorCode error = ErrorCode.from(frame.getError());
            connection.streams.reset(call, null, new IOException(partner + " reset the stream ("
                    + (error == null ? "error " + frame.getError() : error) + ")"));
        }
    }

    @Override
    public void onSettings(SettingsFrame frame) {
        if (frame.isReply()) {
            return;
        }
        List<H2cCall> sent = List.of();
        synchronized (connection) {
            if (connection.sender.apply(frame.getSettings(), connection.streams.open())) {
                sent = connection.sender.flush();
            }
        }
        connection.sender.told(sent);
        connection.destination.released(connection);
    }

    @Override
    public void onWindowUpdate(WindowUpdateFrame frame) {
        int delta = frame.getWindowDelta();
        // A stream this side ended may still be opened up; one never opened breaks the protocol.
        H2cCall call = frame.getStreamId() == 0 ? null : streamFor(frame.getStreamId());
        if (connection.closed || (call == null && frame.getStreamId() != 0)) {
            return;
        }
        List<H2cCall> sent = List.of();
        boolean overflowed;
        synchronized (connection) {
            overflowed = !connection.sender.open(call, delta);
            if (overflowed && call == null) {
                connection.failLater(ErrorCode.FLOW_CONTROL_ERROR, "a connection window over 2^31-1");
            } else if (!overflowed) {
                sent = connection.sender.flush();
            }
        }
        connection.sender.told(sent);
        if (overflowed && call != null) {
            malformed(call, "a WINDOW_UPDATE taking the stream's window over 2^31-1");
        }
    }

    @Override
    public void onPing(PingFrame frame) {
        if (!frame.isReply()) {
            connection.sender.send(H2Frames.pingAck(frame.getPayload()));
        }
    }

    @Override
    public void onGoAway(GoAwayFrame frame) {
        connection.streams.goingAway(frame.getLastStreamId());
    }

    @Override
    public void onPriority(PriorityFrame frame) {
        // ignored: the client sets no priorities
    }

    @Override
    public void onPushPromise(PushPromiseFrame frame) {
        // Its head is refused first (H2FrameHeads); this stays should that ever change.
        connection.failConnection(ErrorCode.PROTOCOL_ERROR, "a PUSH_PROMISE, push being disabled");
    }

    @Override
    public void onStreamFailure(int streamId, int error, String reason) {
        if (reason != null && reason.startsWith("invalid_window_update")) {
            // Jetty's parser stops mid-frame after this one and would read the next bytes as its rest: the
            // connection's framing cannot be trusted any more.
            connection.failConnection(ErrorCode.PROTOCOL_ERROR, "a WINDOW_UPDATE of 0 on stream " + streamId);
            return;
        }
        H2cCall call = streamFor(streamId);
        if (call != null) {
            malformed(call, "a broken frame: " + reason);
        }
    }

    @Override
    public void onConnectionFailure(int error, String reason) {
        ErrorCode code = ErrorCode.from(error);
        connection.failConnection(code == null ? ErrorCode.PROTOCOL_ERROR : code, reason);
    }
}
