package io.rc10k.stubs.internal;

import io.rc10k.stubs.H2Misbehaviour;
import io.rc10k.stubs.Misbehaviour.Expect;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackException;

/**
 * What the hostile h2c partner sends for one request: a correct answer on {@code /ok}, the misbehaviour named by
 * the path, or a 404 listing them ({@link H2Misbehaviour} describes each), through the connection's
 * {@link H2Sender}, or around it where a misbehaviour breaks the rules it keeps. Valid header blocks come from the
 * connection's HPACK encoder; broken ones are written by hand ({@link H2Out#literal}), leaving the encoder's
 * table as the client mirrors it. Runs on the connection's thread.
 */
final class H2Acts {
    private static final String OK_JSON = "{\"ok\":true}";
    private static final int FLOOD_FRAMES = 1_000;
    private static final long DEFAULT_CONTINUATION_FLOOD_BYTES = 4L * 1024 * 1024;
    private static final long MAX_CONTINUATION_FLOOD_BYTES = 64L * 1024 * 1024;
    private static final int HUGE_HEADERS = 64;
    private static final int HUGE_HEADER_BYTES = 16 * 1024;
    /** The most window-overrun sends, whatever window the client granted. */
    private static final long OVERRUN_CAP_BYTES = 64L * 1024 * 1024;
    private static final long DEFAULT_BODY_OVER_MAX_BYTES = 16L * 1024 * 1024;
    private static final long MAX_BODY_BYTES = 1L << 30;
    /** {@code :status: 200}, index 8 of HPACK's static table. */
    private static final int STATUS_200 = 0x88;

    private final H2Connection connection;
    private final H2Sender sender;
    private final HostileCounters counters;
    private final H2Counters h2;

    H2Acts(H2Connection connection, H2Sender sender, HostileCounters counters, H2Counters h2) {
        this.connection = connection;
        this.sender = sender;
        this.counters = counters;
        this.h2 = h2;
    }

    void act(int stream, String path, String query) throws IOException, HpackException {
        String token = path == null || path.isEmpty() ? "" : path.substring(1);
        if (token.equals("ok")) {
            counters.answeredOk();
            ok(stream);
            return;
        }
        Optional<H2Misbehaviour> found = H2Misbehaviour.find(token);
        if (found.isEmpty()) {
            counters.refused();
            text(stream, 404, "no such path: " + path + "\n/ok answers correctly; each misbehaviour is served at /<name>:\n"
                    + Arrays.stream(H2Misbehaviour.values())
                            .map(m -> m.token() + " (" + m.expected().label() + "): " + m.description())
                            .collect(Collectors.joining("\n")) + "\n");
            return;
        }
        H2Misbehaviour m = found.get();
        long bytes = m == H2Misbehaviour.CONTINUATION_FLOOD ? DEFAULT_CONTINUATION_FLOOD_BYTES
                : DEFAULT_BODY_OVER_MAX_BYTES;
        if ((m == H2Misbehaviour.BODY_OVER_MAX || m == H2Misbehaviour.CONTINUATION_FLOOD) && query != null) {
            try {
                bytes = bytes(query, m == H2Misbehaviour.CONTINUATION_FLOOD ? MAX_CONTINUATION_FLOOD_BYTES
                        : MAX_BODY_BYTES);
            } catch (IllegalArgumentException e) {
                counters.refused();
                text(stream, 400, e.getMessage() + "\n");
                return;
            }
        }
        h2.misbehaved(m);
        misbehave(m, stream, bytes);
    }

    /** Acts {@code m} on {@code stream}; {@code bytes} sizes the body of body-over-max, the block of continuation-flood. */
    private void misbehave(H2Misbehaviour m, int stream, long bytes) throws IOException, HpackException {
        H2Out out = sender.out();
        switch (m) {
            case RST_STREAM -> out.frame(H2Out.RST_STREAM, 0, stream, H2Out.int32(H2Out.INTERNAL_ERROR));
            case RST_STREAM_AFTER_HEADERS -> {
                sender.headers(stream, head(200, 11), false);
                out.frame(H2Out.RST_STREAM, 0, stream, H2Out.int32(H2Out.INTERNAL_ERROR));
            }
            case GOAWAY_THEN_CLOSE -> {
                out.frame(H2Out.GOAWAY, 0, 0, H2Out.goAway(Math.max(0, stream - 2), 0));
                connection.finish();
            }
            case CLOSE_MID_HEADERS -> {
                byte[] block = handMade(11, "content-type", "application/json");
                out.truncatedFrame(block.length, H2Out.HEADERS, H2Out.END_HEADERS, stream,
                        Arrays.copyOf(block, block.length / 2));
                connection.finish();
            }
            case CLOSE_MID_DATA -> {
                sender.headers(stream, head(200, 22), false);
                sender.data(stream, Body.of(OK_JSON), false, null);
                connection.finish();
            }
            case RESET_ON_REQUEST -> connection.reset();
            case DATA_BEFORE_HEADERS -> rawData(stream, H2Out.END_STREAM, OK_JSON.getBytes());
            case HEADERS_ON_STREAM_0 -> out.frame(H2Out.HEADERS, H2Out.END_HEADERS | H2Out.END_STREAM, 0,
                    handMade(0));
            case DATA_ON_STREAM_0 -> {
                sender.headers(stream, head(200, 11), false);
                out.frame(H2Out.DATA, H2Out.END_STREAM, 0, OK_JSON.getBytes());
            }
            case FRAME_OVER_MAX_FRAME_SIZE -> {
                sender.headers(stream, head(200, -1), false);
                rawData(stream, 0, new byte[sender.maxFrameSize() + 1]);
            }
            case BAD_HPACK -> out.frame(H2Out.HEADERS, H2Out.END_HEADERS, stream, new byte[] {(byte) 0x80});
            case UPPERCASE_HEADER_NAME -> {
                sender.headers(stream, handMade(11, "X-Upper-Case", "yes"), false);
                sender.data(stream, Body.of(OK_JSON), true, null);
            }
            case MISSING_STATUS -> {
                ByteArrayOutputStream block = new ByteArrayOutputStream();
                H2Out.literal(block, "content-type", "application/json");
                H2Out.literal(block, "content-length", "11");
                sender.headers(stream, block.toByteArray(), false);
                sender.data(stream, Body.of(OK_JSON), true, null);
            }
            case CONTENT_LENGTH_MISMATCH -> {
                sender.headers(stream, head(200, 22), false);
                sender.data(stream, Body.of(OK_JSON), true, null);
            }
            case DECLARED_CONTENT_LENGTH_HUGE -> {
                sender.headers(stream, head(200, 1_000_000_000_000_000L), false);
                sender.data(stream, Body.of(OK_JSON), true, null);
            }
            case STREAMS_ON_UNOPENED_IDS -> sender.headers(stream + 2, handMade(0), true);
            case PUSH_PROMISE -> {
                ByteArrayOutputStream promise = new ByteArrayOutputStream();
                promise.writeBytes(H2Out.int32(2));
                // :method GET (static 2), :scheme http (static 6), then :path and :authority by their static names.
                promise.write(0x82);
                promise.write(0x86);
                H2Out.literalIndexedName(promise, 4, "/pushed");
                H2Out.literalIndexedName(promise, 1, "localhost");
                out.frame(H2Out.PUSH_PROMISE, H2Out.END_HEADERS, stream, promise.toByteArray());
                ok(stream);
            }
            case WINDOW_OVERRUN -> {
                sender.headers(stream, head(200, -1), false);
                long overrun = Math.min(sender.sendWindow(stream) + 1, OVERRUN_CAP_BYTES);
                byte[] frame = new byte[sender.maxFrameSize()];
                for (long sent = 0; sent < overrun; sent += frame.length) {
                    rawData(stream, 0, Arrays.copyOf(frame, (int) Math.min(frame.length, overrun - sent)));
                }
            }
            case CONTINUATION_FLOOD -> continuationFlood(stream, (int) bytes);
            case HEADER_LIST_HUGE -> {
                ByteArrayOutputStream block = new ByteArrayOutputStream();
                block.write(STATUS_200);
                String value = "a".repeat(HUGE_HEADER_BYTES);
                for (int i = 0; i < HUGE_HEADERS; i++) {
                    H2Out.literal(block, "x-huge-" + i, value);
                }
                sender.headers(stream, block.toByteArray(), true);
            }
            case PING_FLOOD -> flood(stream, H2Out.PING, new byte[8]);
            case SETTINGS_FLOOD -> flood(stream, H2Out.SETTINGS, new byte[0]);
            case BODY_OVER_MAX -> {
                sender.headers(stream, head(200, bytes), false);
                sender.data(stream, Body.jsonOfSize("\"ok\":false", bytes), true, null);
            }
            case INTERIM_103_THEN_OK -> {
                HttpFields link = HttpFields.build().add("link", "</style.css>; rel=preload; as=style");
                sender.headers(stream, sender.encode(new MetaData.Response(103, null, HttpVersion.HTTP_2,
                        link)), false);
                ok(stream);
            }
            case TRAILERS_THEN_OK -> {
                sender.headers(stream, head(200, 11), false);
                byte[] trailers = sender.encode(new MetaData(HttpVersion.HTTP_2,
                        HttpFields.build().add("x-checksum", "11")));
                sender.data(stream, Body.of(OK_JSON), true, trailers);
            }
            case DATA_PADDED -> {
                sender.headers(stream, head(200, 11), false);
                ByteBuffer padded = ByteBuffer.allocate(1 + OK_JSON.length() + 32);
                padded.put((byte) 32).put(OK_JSON.getBytes());
                rawData(stream, H2Out.PADDED | H2Out.END_STREAM, padded.array());
            }
            case STALL_AFTER_HEADERS -> sender.headers(stream, head(200, 11), false);
            case STALL_NO_ANSWER -> {
                // Nothing for the stream.
            }
        }
        if (!m.allows(Expect.OK) && m != H2Misbehaviour.RESET_ON_REQUEST) {
            connection.hold();
        }
    }

    /** A correct 200 with {@code {"ok":true}}, the connection kept. */
    private void ok(int stream) throws IOException, HpackException {
        sender.headers(stream, head(200, OK_JSON.length()), false);
        sender.data(stream, Body.of(OK_JSON), true, null);
    }

    private void text(int stream, int status, String text) throws IOException, HpackException {
        Body body = Body.of(text);
        HttpFields fields = HttpFields.build().add("content-type", "text/plain; charset=utf-8")
                .add("content-length", Long.toString(body.size()));
        sender.headers(stream, sender.encode(new MetaData.Response(status, null, HttpVersion.HTTP_2, fields)),
                false);
        sender.data(stream, body, true, null);
    }

    /** A valid response head by the encoder: JSON, and a content-length unless it is negative. */
    private byte[] head(int status, long contentLength) throws HpackException {
        HttpFields.Mutable fields = HttpFields.build().add("content-type", "application/json");
        if (contentLength >= 0) {
            fields.add("content-length", Long.toString(contentLength));
        }
        return sender.encode(new MetaData.Response(status, null, HttpVersion.HTTP_2, fields));
    }

    /** A 200 head by hand: {@code :status} from the static table, a content-length if positive, then {@code more} pairs. */
    private static byte[] handMade(long contentLength, String... more) {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        block.write(STATUS_200);
        if (contentLength > 0) {
            H2Out.literal(block, "content-length", Long.toString(contentLength));
        }
        for (int i = 0; i + 1 < more.length; i += 2) {
            H2Out.literal(block, more[i], more[i + 1]);
        }
        return block.toByteArray();
    }

    /** A DATA frame as given, counted against the windows as the client counts it (padding included). */
    private void rawData(int stream, int flags, byte[] payload) throws IOException {
        sender.consumeWindow(stream, payload.length);
        sender.out().frame(H2Out.DATA, flags, stream, payload);
    }

    private void flood(int stream, int type, byte[] payload) throws IOException, HpackException {
        for (int i = 0; i < FLOOD_FRAMES; i++) {
            sender.out().frame(type, 0, 0, payload);
        }
        ok(stream);
    }

    /** One header field whose value never ends: HEADERS, then CONTINUATIONs, never END_HEADERS. */
    private void continuationFlood(int stream, int bytes) throws IOException {
        ByteArrayOutputStream start = new ByteArrayOutputStream();
        start.write(STATUS_200);
        H2Out.literalStart(start, "x-flood", bytes);
        sender.out().frame(H2Out.HEADERS, 0, stream, start.toByteArray());
        byte[] chunk = new byte[sender.maxFrameSize()];
        Arrays.fill(chunk, (byte) 'a');
        for (int sent = 0; sent < bytes; sent += chunk.length) {
            sender.out().frame(H2Out.CONTINUATION, 0, stream, chunk);
        }
    }

    /** {@code bytes=N} from the query, N from 1 to {@code max}. */
    private static long bytes(String query, long max) {
        for (String pair : query.split("&")) {
            if (pair.startsWith("bytes=")) {
                String value = pair.substring("bytes=".length());
                try {
                    long n = Long.parseLong(value);
                    if (n >= 1 && n <= max) {
                        return n;
                    }
                } catch (NumberFormatException e) {
                    // Reported below.
                }
                throw new IllegalArgumentException("bytes: \"" + value + "\" (accepted: 1 to " + max + ")");
            }
        }
        throw new IllegalArgumentException("unknown parameter in \"" + query + "\" (accepted: bytes)");
    }
}
