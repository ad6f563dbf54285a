package io.rc10k.broker.internal;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
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
import org.eclipse.jetty.http2.hpack.HpackEncoder;
import org.eclipse.jetty.http2.hpack.HpackException;
import org.eclipse.jetty.http2.parser.Parser;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.WindowRateControl;

/**
 * One h2c connection of an {@link H2cWire} (HTTP/2 with prior knowledge, RFC 9113): many calls at once, each
 * on a stream, registered for reading on an {@link Http1Loop} from connect to close. Jetty's {@link Parser}
 * reads the partner's frames (framing, HPACK, the frame-level checks) and tells this class, on the loop; this
 * class is the connection's state: streams, settings, flow control both ways, resets, GOAWAY, deadlines.
 *
 * <p>Sending: the thread that starts a call opens its stream and writes its frames — id, HPACK encoding and
 * write in one critical section, since stream ids must reach the partner in the order they were taken and the
 * encoder's table is the partner's decoder's. What the socket does not take at once the loop writes later,
 * and frames queued meanwhile go after it. Receiving, resets, deadlines and closing: on the loop.</p>
 *
 * <p>Threading: {@link #reserve}, {@link #send} and {@link #abort} from any thread; the sending state under
 * this object's lock, never held while a call's events run; the rest on the loop. A call's events: onBegin and
 * onSent on the sending thread (or the loop), the response's and the completion on the loop.</p>
 */
final class H2cConnection implements LoopConnection, Parser.Listener {
    /** What each stream may receive before the client acknowledges it: bodies come in without waiting. */
    static final int STREAM_WINDOW = 8 * 1024 * 1024;
    static final int CONNECTION_WINDOW = 16 * 1024 * 1024;
    /** A response's header block, decoded: as an HTTP/1.1 head may be (Http1Receiver). */
    static final int MAX_HEADER_LIST_BYTES = 64 * 1024;
    /** Interim (1xx) responses a stream may get before its final one, as over HTTP/1.1. */
    static final int MAX_INTERIM_RESPONSES = 8;
    /** Control frames a partner may send per second (pings, settings, resets, empty data) before it is cut off. */
    static final int MAX_FRAME_EVENTS_PER_SECOND = 1_000;
    /** How many times a call the partner never processed (GOAWAY, REFUSED_STREAM) goes out again. */
    static final int MAX_HAND_BACKS = 2;

    final H2cDestination destination;
    final Http1Loop loop;
    private final Parser parser;
    /** The partner's frame heads, checked as they arrive (Jetty's parser waits for a payload byte). */
    private final H2FrameHeads heads = new H2FrameHeads(H2Frames.DEFAULT_MAX_FRAME_SIZE, () -> this.lastStreamId);
    private final String partner;
    /** Open streams by id: put by the sending thread under the lock, read and removed on the loop. */
    private final Map<Integer, H2cCall> streams = new ConcurrentHashMap<>();
    /** Streams reserved by calls (opened, or about to be): what {@link #reserve} counts against. */
    private final AtomicInteger reserved = new AtomicInteger();
    private volatile int maxStreams;
    /** False once no new stream may start here: after a GOAWAY, ids spent, closing. */
    private volatile boolean accepting = true;
    private volatile boolean closed;
    /** The highest stream id opened: frames for ids above it (or even ones) break the protocol. */
    private volatile int lastStreamId;
    private volatile long idleSinceNanos = System.nanoTime();

    // Under the lock (this):
    private final HpackEncoder encoder = new HpackEncoder();
    private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
    /** Calls whose frames are queued but not all written: told onSent once they are. */
    private final List<H2cCall> unsent = new ArrayList<>();
    /** Calls given to the connection before it connected. */
    private final List<H2cCall> beforeConnect = new ArrayList<>();
    /** Calls whose body waits for the partner's flow-control window. */
    private final List<H2cCall> blocked = new ArrayList<>();
    private boolean connected;
    /** The loop writes what is queued when the socket takes more. */
    private boolean writeLater;
    /** Since when the socket has taken nothing more (valid while {@link #writeLater}). */
    private long stalledSinceNanos;
    /** Why the connection must close, found under the lock and acted on once it is let go (written under it). */
    private volatile Runnable broken;
    private int nextStreamId = 1;
    private int sendWindow = H2Frames.DEFAULT_WINDOW;
    private int peerInitialWindow = H2Frames.DEFAULT_WINDOW;
    private int peerMaxFrameSize = H2Frames.DEFAULT_MAX_FRAME_SIZE;

    // The loop's:
    private SocketChannel channel;
    private SelectionKey key;
    private long connectDeadlineNanos;
    private int receiveWindow = CONNECTION_WINDOW;
    private int unacknowledged;
    /** The partner's preface, a SETTINGS frame, came: any other frame first breaks the protocol. */
    private boolean settingsSeen;

    H2cConnection(Http1Loop loop, H2cDestination destination, ByteBufferPool buffers) {
        this.loop = loop;
        this.destination = destination;
        this.partner = destination.partner.name();
        this.maxStreams = destination.partner.maxStreamsPerConnection();
        this.parser = new Parser(buffers, MAX_HEADER_LIST_BYTES,
                new WindowRateControl(MAX_FRAME_EVENTS_PER_SECOND, Duration.ofSeconds(1)));
        parser.init(this);
        Map<Integer, Integer> settings = new LinkedHashMap<>();
        settings.put(SettingsFrame.ENABLE_PUSH, 0);
        settings.put(SettingsFrame.INITIAL_WINDOW_SIZE, STREAM_WINDOW);
        settings.put(SettingsFrame.MAX_HEADER_LIST_SIZE, MAX_HEADER_LIST_BYTES);
        out.add(H2Frames.preface(settings, CONNECTION_WINDOW));
    }

    /** Any thread: takes a stream if one is free; the taker then {@link #send}s a call on it. */
    boolean reserve() {
        for (int now = reserved.get(); accepting && now < maxStreams; now = reserved.get()) {
            if (reserved.compareAndSet(now, now + 1)) {
                return true;
            }
        }
        return false;
    }

    /** The stream of the call that opens the connection, before anyone else can see it. */
    void reserveFirst() {
        reserved.incrementAndGet();
    }

    /** Gives back a stream reserved and not used. */
    void unreserve() {
        release();
    }

    /** Streams reserved or open. */
    int streams() {
        return reserved.get();
    }

    /**
     * Any thread, with a stream reserved: false (and the call untouched) when the connection closed first; the
     * caller finds the call another. Before the connection is up, the call waits for it.
     */
    boolean send(H2cCall call) {
        call.connection = this;
        Throwable aborted;
        synchronized (this) {
            if (closed) {
                call.connection = null;
                return false;
            }
            if (connected) {
                aborted = null;
            } else {
                // An abort that looked for the call before it was here has set its flag: read it after the add.
                beforeConnect.add(call);
                aborted = call.aborted();
                if (aborted == null || !beforeConnect.remove(call)) {
                    return true;
                }
            }
        }
        if (aborted != null) {
            release();
            call.complete(0, null, aborted, false);
            destination.released(this);
            return true;
        }
        start(call);
        return true;
    }

    /**
     * Opens the call's stream and writes its request; any thread, the connection up. A connection that closed or
     * stopped taking streams since the call was given to it hands the call back to its destination.
     */
    private void start(H2cCall call) {
        if (!call.begun) {
            call.begun = true;
            call.events.onBegin();
        }
        Throwable refused = null;
        boolean elsewhere = false;
        List<H2cCall> sent = List.of();
        synchronized (this) {
            if (closed || !accepting) {
                elsewhere = true;
            } else if (call.aborted() != null) {
                refused = call.aborted();
            } else {
                refused = encodeAndQueue(call);
                if (refused == null && !WriteBatch.defer(this)) {
                    sent = flush();
                }
            }
        }
        if (elsewhere) {
            call.connection = null;
            release();
            call.destination.dispatch(call);
            return;
        }
        if (refused != null) {
            release();
            call.complete(0, null, refused, false);
            destination.released(this);
        }
        told(sent);
    }

    /**
     * Under the lock: opens the call's stream and queues its frames; or, when the request cannot be encoded,
     * why (a request that breaks the partner's limits fails alone, before the encoder's table is touched).
     */
    private Throwable encodeAndQueue(H2cCall call) {
        if (nextStreamId < 0) {
            accepting = false;
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
            accepting = false;
            broken = () -> failConnection(ErrorCode.COMPRESSION_ERROR, "a request could not be encoded: " + e);
            return new IllegalArgumentException("request to " + partner + " cannot be encoded: " + e.getMessage(), e);
        }
        int id = nextStreamId;
        nextStreamId += 2;
        call.streamId = id;
        call.bodySent = 0;
        call.sendWindow = peerInitialWindow;
        lastStreamId = id;
        streams.put(id, call);
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

    /**
     * Under the lock: writes what is queued, unless the loop is to write it (the socket was full) or the
     * connection is not up; returns the calls now wholly written, to be told onSent once the lock is let go.
     */
    private List<H2cCall> flush() {
        if (!connected || writeLater || closed) {
            return List.of();
        }
        try {
            channel.write(out.toArray(new ByteBuffer[0]));
        } catch (IOException e) {
            broken = () -> closeWith(e); // never inside the lock: closing ends calls, whose events run
            return List.of();
        }
        while (!out.isEmpty() && !out.peekFirst().hasRemaining()) {
            out.pollFirst();
        }
        if (!out.isEmpty()) {
            writeLater = true;
            stalledSinceNanos = System.nanoTime();
            if (loop.isCurrentThread()) {
                key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
            } else {
                loop.execute(() -> {
                    if (!closed) {
                        key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                    }
                });
            }
            return List.of();
        }
        if (unsent.isEmpty()) {
            return List.of();
        }
        List<H2cCall> sent = new ArrayList<>(unsent);
        unsent.clear();
        return sent;
    }

    /** With the lock let go: tells the calls written whole, then acts on what broke the connection, if anything. */
    private void told(List<H2cCall> sent) {
        for (H2cCall call : sent) {
            call.events.onSent();
        }
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

    /** Any thread: writes what is queued (the end of a {@link WriteBatch}). */
    void flushQueued() {
        List<H2cCall> sent;
        synchronized (this) {
            sent = flush();
        }
        told(sent);
    }

    /** Any thread: queues {@code frame} and writes it if it may. */
    private void send(ByteBuffer frame) {
        List<H2cCall> sent;
        synchronized (this) {
            if (closed) {
                return;
            }
            out.add(frame);
            sent = flush();
        }
        told(sent);
    }

    /** Any thread: ends {@code call} with {@code cause}, resetting its stream, if the connection still has it. */
    void abort(H2cCall call, Throwable cause) {
        loop.run(() -> {
            boolean waiting;
            synchronized (this) {
                waiting = beforeConnect.remove(call);
            }
            if (waiting) {
                release();
                call.complete(0, null, cause, false);
                destination.released(this);
                return;
            }
            int id = streamOf(call);
            if (id != 0 && streams.get(id) == call) {
                reset(call, ErrorCode.CANCEL_STREAM_ERROR, cause);
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
        idleSinceNanos = System.nanoTime();
        List<H2cCall> waiting;
        List<H2cCall> sent;
        synchronized (this) {
            connected = true;
            waiting = new ArrayList<>(beforeConnect);
            beforeConnect.clear();
            sent = flush(); // the preface and settings first
        }
        told(sent);
        try (WriteBatch batch = WriteBatch.open()) {
            for (H2cCall call : waiting) {
                start(call);
            }
        }
    }

    @Override
    public void ready(SelectionKey ready) {
        try {
            if (ready.isConnectable()) {
                channel.finishConnect();
                connected();
                return;
            }
            if (ready.isWritable()) {
                List<H2cCall> sent;
                synchronized (this) {
                    writeLater = false;
                    key.interestOps(SelectionKey.OP_READ);
                    sent = flush();
                }
                told(sent);
            }
            if (ready.isReadable()) {
                read();
            }
        } catch (IOException | RuntimeException | AssertionError | StackOverflowError e) {
            // An Error too: thrown here, it would end the loop and with it every connection the loop holds.
            closeWith(e);
        }
    }

    private void read() throws IOException {
        ByteBuffer buffer = loop.buffer;
        while (true) {
            buffer.clear();
            int read = channel.read(buffer);
            buffer.flip();
            if (read < 0) {
                closeWith(new EOFException(partner + " closed the connection"));
                return;
            }
            int broken = heads.follow(buffer);
            if (broken < 0) {
                parser.parse(buffer);
            } else {
                // The frames before the broken head first: a response they complete is the call's.
                buffer.limit(broken - H2Frames.HEADER_LENGTH > buffer.position() ? broken - H2Frames.HEADER_LENGTH
                        : buffer.position());
                parser.parse(buffer);
                failConnection(ErrorCode.PROTOCOL_ERROR, heads.wrong());
                return;
            }
            if (closed || read < buffer.capacity()) {
                return;
            }
        }
    }

    // Parser.Listener: on the loop, as the frames are parsed.

    @Override
    public void onHeaders(HeadersFrame frame) {
        if (beforeSettings()) {
            return;
        }
        H2cCall call = streamFor(frame.getStreamId());
        if (call == null) {
            return;
        }
        MetaData meta = frame.getMetaData();
        if (call.status != 0) {
            // Trailers: they end the stream, and are not passed on.
            if (meta.isResponse() || meta.isRequest()) {
                malformed(call, "pseudo-headers in trailers");
            } else if (frame.isEndStream()) {
                ended(call);
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
            if (status == 101 || status < 100 || frame.isEndStream()) {
                malformed(call, "an interim status " + status + (frame.isEndStream() ? " that ends the stream" : ""));
            } else if (++call.interims > MAX_INTERIM_RESPONSES) {
                malformed(call, "more than " + MAX_INTERIM_RESPONSES + " interim (1xx) responses");
            }
            return;
        }
        HttpFields fields = response.getHttpFields();
        String hopByHop = connectionSpecific(fields);
        if (hopByHop != null) {
            malformed(call, "a connection-specific field (" + hopByHop + "), which HTTP/2 forbids");
            return;
        }
        List<String> lengths = fields.getValuesList(HttpHeader.CONTENT_LENGTH);
        long declared = lengths.size() == 1 ? contentLength(lengths.get(0)) : lengths.isEmpty() ? -1 : -2;
        if (declared < -1) {
            malformed(call, "Content-Length " + lengths);
            return;
        }
        call.status = status;
        call.responseHeaders = fields;
        call.declaredLength = call.isHead() || status == 204 || status == 304 ? -1 : declared;
        call.events.onHeaders(status, fields);
        if (frame.isEndStream() && !call.isDone()) {
            ended(call);
        }
    }

    /** A Content-Length's value: its digits as a number, or -2 when it is anything else (a sign, a space, …). */
    private static long contentLength(String value) {
        if (value.isEmpty() || value.length() > 18) {
            return -2;
        }
        long length = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return -2;
            }
            length = length * 10 + (c - '0');
        }
        return length;
    }

    /** The first field HTTP/2 forbids in a message (RFC 9113 §8.2.2), or null. */
    private static String connectionSpecific(HttpFields fields) {
        for (HttpField field : fields) {
            HttpHeader header = field.getHeader();
            if (header == HttpHeader.CONNECTION || header == HttpHeader.KEEP_ALIVE || header == HttpHeader.PROXY_CONNECTION
                    || header == HttpHeader.TRANSFER_ENCODING || header == HttpHeader.UPGRADE
                    || (header == HttpHeader.TE && !"trailers".equalsIgnoreCase(field.getValue()))) {
                return field.getName();
            }
        }
        return null;
    }

    @Override
    public void onData(DataFrame frame) {
        if (beforeSettings()) {
            return;
        }
        int length = frame.flowControlLength();
        receiveWindow -= length;
        if (receiveWindow < 0) {
            failConnection(ErrorCode.FLOW_CONTROL_ERROR, "more data than the connection's window");
            return;
        }
        unacknowledged += length;
        H2cCall call = streamFor(frame.getStreamId());
        if (call != null) {
            data(call, frame, length);
        }
        if (!closed && unacknowledged >= CONNECTION_WINDOW / 2) {
            send(H2Frames.windowUpdate(0, unacknowledged));
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
            ended(call);
        } else if (call.unacknowledged >= STREAM_WINDOW / 2) {
            send(H2Frames.windowUpdate(call.streamId, call.unacknowledged));
            call.receiveWindow += call.unacknowledged;
            call.unacknowledged = 0;
        }
    }

    /** The call on stream {@code id}, or null: a frame for a stream this side already ended is ignored. */
    private H2cCall streamFor(int id) {
        H2cCall call = streams.get(id);
        if (call == null && (id == 0 || (id & 1) == 0 || id > lastStreamId)) {
            failConnection(ErrorCode.PROTOCOL_ERROR, "a frame on stream " + id + ", which the client never opened");
        }
        return call;
    }

    /** On the loop: the partner ended the stream; the call ends with its response. */
    private void ended(H2cCall call) {
        if (call.declaredLength >= 0 && call.received != call.declaredLength) {
            malformed(call, "a body of " + call.received + " bytes where Content-Length says " + call.declaredLength);
            return;
        }
        boolean bodyLeft;
        synchronized (this) {
            bodyLeft = blocked.remove(call);
            unsent.remove(call);
        }
        streams.remove(call.streamId);
        if (bodyLeft) {
            // Answered before the whole request went out: the rest is not wanted (RFC 9113 §8.1).
            send(H2Frames.reset(call.streamId, ErrorCode.NO_ERROR.code));
        }
        release();
        call.complete(call.status, call.responseHeaders, null, true);
        destination.released(this);
    }

    /** On the loop: the stream broke the protocol; reset it and end its call as malformed. */
    private void malformed(H2cCall call, String what) {
        reset(call, ErrorCode.PROTOCOL_ERROR, new Failures.MalformedResponseException(partner + " sent " + what
                + " (stream " + call.streamId + ")"));
    }

    /** On the loop: resets the call's stream and ends the call with {@code cause}; the connection stays. */
    private void reset(H2cCall call, ErrorCode error, Throwable cause) {
        if (streams.remove(call.streamId) == null) {
            return;
        }
        List<H2cCall> sent;
        synchronized (this) {
            blocked.remove(call);
            unsent.remove(call);
            if (!closed) {
                out.add(H2Frames.reset(call.streamId, error.code));
            }
            sent = flush();
        }
        told(sent);
        release();
        call.complete(call.status, call.responseHeaders, cause, false);
        destination.released(this);
    }

    @Override
    public void onReset(ResetFrame frame) {
        if (beforeSettings()) {
            return;
        }
        H2cCall call = streamFor(frame.getStreamId());
        if (call != null && frame.getError() == ErrorCode.REFUSED_STREAM_ERROR.code) {
            handBack(call, partner + " refused stream " + call.streamId);
        } else if (call != null && streams.remove(call.streamId) != null) {
            synchronized (this) {
                blocked.remove(call);
                unsent.remove(call);
            }
            release();
            ErrorCode error = ErrorCode.from(frame.getError());
            call.complete(call.status, call.responseHeaders, new IOException(partner + " reset the stream ("
                    + (error == null ? "error " + frame.getError() : error) + ")"), false);
            destination.released(this);
        }
    }

    @Override
    public void onSettings(SettingsFrame frame) {
        if (!settingsSeen && frame.isReply()) {
            beforeSettings();
            return;
        }
        settingsSeen = true;
        if (frame.isReply()) {
            return;
        }
        List<H2cCall> sent = List.of();
        synchronized (this) {
            if (apply(frame.getSettings())) {
                out.add(H2Frames.settingsAck());
                resumeBlocked();
                sent = flush();
            }
        }
        told(sent);
        destination.released(this);
    }

    /** Under the lock: the partner's settings; false when one breaks the protocol (the connection then fails). */
    private boolean apply(Map<Integer, Integer> settings) {
        for (Map.Entry<Integer, Integer> setting : settings.entrySet()) {
            int value = setting.getValue();
            switch (setting.getKey()) {
                // A value of 2^31 or more (read as negative) is as good as unbounded.
                case SettingsFrame.HEADER_TABLE_SIZE -> {
                    int capacity = value < 0 ? Integer.MAX_VALUE : value;
                    encoder.setMaxTableCapacity(capacity);
                    encoder.setTableCapacity(Math.min(capacity, encoder.getTableCapacity()));
                }
                case SettingsFrame.MAX_CONCURRENT_STREAMS -> maxStreams = value < 0
                        ? destination.partner.maxStreamsPerConnection()
                        : Math.min(destination.partner.maxStreamsPerConnection(), value);
                case SettingsFrame.INITIAL_WINDOW_SIZE -> {
                    if (value < 0) {
                        failConnectionLater(ErrorCode.FLOW_CONTROL_ERROR, "an initial window over 2^31-1");
                        return false;
                    }
                    int delta = value - peerInitialWindow;
                    peerInitialWindow = value;
                    for (H2cCall open : streams.values()) {
                        open.sendWindow = (int) Math.min(H2Frames.MAX_WINDOW, (long) open.sendWindow + delta);
                    }
                }
                case SettingsFrame.MAX_FRAME_SIZE -> {
                    if (value < H2Frames.DEFAULT_MAX_FRAME_SIZE || value > 0xff_ffff) {
                        failConnectionLater(ErrorCode.PROTOCOL_ERROR, "a max frame size of " + value);
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
        return true;
    }

    /** Under the lock: bodies that waited for the windows, as far as they now allow. */
    private void resumeBlocked() {
        for (H2cCall call : new ArrayList<>(blocked)) {
            if (sendWindow <= 0) {
                return;
            }
            sendBody(call);
        }
    }

    @Override
    public void onWindowUpdate(WindowUpdateFrame frame) {
        if (beforeSettings()) {
            return;
        }
        int delta = frame.getWindowDelta();
        // A stream this side ended may still be opened up; one never opened breaks the protocol.
        H2cCall call = frame.getStreamId() == 0 ? null : streamFor(frame.getStreamId());
        if (closed) {
            return;
        }
        List<H2cCall> sent = List.of();
        H2cCall overflowed = null;
        synchronized (this) {
            if (frame.getStreamId() == 0 && (long) sendWindow + delta > H2Frames.MAX_WINDOW) {
                failConnectionLater(ErrorCode.FLOW_CONTROL_ERROR, "a connection window over 2^31-1");
            } else if (call != null && (long) call.sendWindow + delta > H2Frames.MAX_WINDOW) {
                overflowed = call;
            } else if (frame.getStreamId() == 0 || call != null) {
                if (call == null) {
                    sendWindow += delta;
                } else {
                    call.sendWindow += delta;
                }
                resumeBlocked();
                sent = flush();
            }
        }
        told(sent);
        if (overflowed != null) {
            malformed(overflowed, "a WINDOW_UPDATE taking the stream's window over 2^31-1");
        }
    }

    @Override
    public void onPing(PingFrame frame) {
        if (beforeSettings()) {
            return;
        }
        if (!frame.isReply()) {
            send(H2Frames.pingAck(frame.getPayload()));
        }
    }

    @Override
    public void onGoAway(GoAwayFrame frame) {
        if (beforeSettings()) {
            return;
        }
        int last = frame.getLastStreamId();
        List<H2cCall> untaken = new ArrayList<>();
        synchronized (this) {
            // Under the lock: a stream opened before this is in the map below; none is opened after.
            accepting = false;
            for (H2cCall call : streams.values()) {
                if (call.streamId > last) {
                    untaken.add(call);
                }
            }
        }
        for (H2cCall call : untaken) {
            handBack(call, partner + " is going away (GOAWAY) and did not take stream " + call.streamId);
        }
        closeIfDone();
        destination.released(this);
    }

    /**
     * On the loop: a stream the partner says it never processed (beyond its GOAWAY's last stream, or refused)
     * leaves this connection; its call goes out again on another, at most {@value #MAX_HAND_BACKS} times, or
     * ends with {@code why}.
     */
    private void handBack(H2cCall call, String why) {
        if (streams.remove(call.streamId) == null) {
            return;
        }
        synchronized (this) {
            blocked.remove(call);
            unsent.remove(call);
        }
        release();
        if (call.status == 0 && call.handBacks++ < MAX_HAND_BACKS) {
            call.connection = null;
            call.destination.dispatch(call);
        } else {
            call.complete(call.status, call.responseHeaders, new IOException(why), false);
        }
        destination.released(this);
    }

    @Override
    public void onPriority(PriorityFrame frame) {
        beforeSettings(); // otherwise ignored: the client sets no priorities
    }

    /** On the loop: true, and the connection failed, when a frame comes before the partner's SETTINGS. */
    private boolean beforeSettings() {
        if (settingsSeen) {
            return false;
        }
        failConnection(ErrorCode.PROTOCOL_ERROR, "a frame other than SETTINGS as its preface");
        return true;
    }

    @Override
    public void onPushPromise(PushPromiseFrame frame) {
        failConnection(ErrorCode.PROTOCOL_ERROR, "a PUSH_PROMISE, push being disabled");
    }

    @Override
    public void onStreamFailure(int streamId, int error, String reason) {
        if (beforeSettings()) {
            return;
        }
        if (reason != null && reason.startsWith("invalid_window_update")) {
            // Jetty's parser stops mid-frame after this one and would read the next bytes as its rest: the
            // connection's framing cannot be trusted any more.
            failConnection(ErrorCode.PROTOCOL_ERROR, "a WINDOW_UPDATE of 0 on stream " + streamId);
            return;
        }
        H2cCall call = streamFor(streamId);
        if (call != null) {
            malformed(call, "a broken frame: " + reason);
        }
    }

    @Override
    public void onConnectionFailure(int error, String reason) {
        failConnection(ErrorCode.from(error) == null ? ErrorCode.PROTOCOL_ERROR : ErrorCode.from(error), reason);
    }

    /** On the loop: the partner broke the connection's protocol; GOAWAY, close, its calls malformed. */
    private void failConnection(ErrorCode error, String reason) {
        if (closed) {
            return;
        }
        synchronized (this) {
            out.add(H2Frames.goAway(0, error.code)); // the last stream the partner opened: none
            flush();
        }
        closeWith(new Failures.MalformedResponseException(partner + " broke HTTP/2: " + reason));
    }

    /** Under the lock: fails the connection once the lock is let go. */
    private void failConnectionLater(ErrorCode error, String reason) {
        broken = () -> failConnection(error, reason);
    }

    /** A stream ended or was given back. */
    private void release() {
        if (reserved.decrementAndGet() == 0) {
            idleSinceNanos = System.nanoTime();
            if (!accepting) {
                loop.run(this::closeIfDone);
            }
        }
    }

    /** On the loop: a connection that takes no new streams closes once its last one has ended. */
    private void closeIfDone() {
        if (!accepting && reserved.get() == 0 && streams.isEmpty()) {
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
            stalled = writeLater && now - stalledSinceNanos >= destination.partner.callTimeout().toNanos();
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
                release();
                call.complete(0, null, new TimeoutException(partner + " did not answer within the call's timeout "
                        + "(still connecting)"), false);
                destination.released(this);
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
        for (H2cCall call : streams.values()) {
            if (now - call.deadlineNanos >= 0) {
                reset(call, ErrorCode.CANCEL_STREAM_ERROR, new TimeoutException(partner
                        + " did not answer within the call's timeout"));
            }
        }
        if (reserved.get() == 0 && now - idleSinceNanos >= destination.idleTimeoutNanos) {
            accepting = false;
            if (reserved.get() == 0) {
                synchronized (this) {
                    out.add(H2Frames.goAway(0, ErrorCode.NO_ERROR.code));
                    flush();
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
            blocked.clear();
            unsent.clear();
            out.clear();
        }
        ended.addAll(streams.values());
        streams.clear();
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
