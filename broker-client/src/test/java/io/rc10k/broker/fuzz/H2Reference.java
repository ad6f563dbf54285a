package io.rc10k.broker.fuzz;

import io.rc10k.broker.Outcome;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackDecoder;
import org.eclipse.jetty.http2.hpack.HpackException;

/**
 * What an h2c client must make of a partner's bytes for its request on stream S (RFC 9113): walks the
 * frames in order, as a client reads them, and stops at the first thing that decides the call — a complete
 * response (HEADERS and DATA up to END_STREAM on S), a body past {@code maxResponseBytes}, or an error that
 * ends the stream or the connection — else at the end of the bytes, where the partner's ending decides
 * (kept open: TIMEOUT; closed: RESET). Header blocks are decoded with Jetty's {@link HpackDecoder} (HPACK
 * and pseudo-header rules are Jetty's), every other rule is written out here from the RFC.
 *
 * <p>Some MUSTs of the RFC a client may reasonably not enforce, as long as what it does is safe: a frame on a
 * stream it never opened, a deprecated PRIORITY frame's length, SETTINGS_ENABLE_PUSH=1 from a server. For
 * those the walk goes on as if the frame were ignored and also allows the call to fail; the rule is named in
 * {@link Expected#tolerated()}, so that a run can say which ones the client ignored.</p>
 */
final class H2Reference {
    static final Set<Outcome.Kind> FAILED = EnumSet.of(Outcome.Kind.MALFORMED, Outcome.Kind.RESET);
    private static final Set<String> CONNECTION_SPECIFIC = Set.of("connection", "keep-alive", "proxy-connection",
            "transfer-encoding", "upgrade");

    private H2Reference() {
    }

    /**
     * The outcomes the bytes allow: {@code kinds}; when they include a response (OK or HTTP_ERROR), it must have
     * {@code status} and {@code body}.
     *
     * @param why       what decided it, for reports and the run's summary
     * @param tolerated rules broken before that which a client may enforce or ignore
     */
    record Expected(Set<Outcome.Kind> kinds, int status, byte[] body, String why, Set<String> tolerated) {
        boolean allows(Outcome outcome) {
            if (!kinds.contains(outcome.kind())) {
                return false;
            }
            return !outcome.hasResponse() || (outcome.status() == status && Arrays.equals(outcome.body(), body));
        }

        boolean response() {
            return kinds.contains(Outcome.Kind.OK) || kinds.contains(Outcome.Kind.HTTP_ERROR);
        }

        @Override
        public String toString() {
            return kinds + (response() ? " " + status + " " + body.length + "B" : "") + " (" + why + ")"
                    + (tolerated.isEmpty() ? "" : " tolerating " + tolerated);
        }
    }

    /** The client's own SETTINGS, as it sent them: what it accepts. */
    record ClientSettings(int maxFrameSize, int headerTableSize, boolean pushEnabled) {
        static ClientSettings of(Map<Integer, Long> sent) {
            return new ClientSettings(
                    (int) (long) sent.getOrDefault(H2Frames.SETTINGS_MAX_FRAME_SIZE, (long) H2Frames.DEFAULT_MAX_FRAME_SIZE),
                    (int) (long) sent.getOrDefault(H2Frames.SETTINGS_HEADER_TABLE_SIZE, 4096L),
                    sent.getOrDefault(H2Frames.SETTINGS_ENABLE_PUSH, 1L) != 0);
        }
    }

    static Expected judge(byte[] bytes, int clientStream, ClientSettings client, H2Plan.Ending ending,
            long maxResponseBytes) {
        Expected expected = new Walk(bytes, clientStream, client, maxResponseBytes).run(ending);
        if (ending == H2Plan.Ending.RESET && !expected.kinds().contains(Outcome.Kind.RESET)) {
            // A TCP reset may overtake bytes still in flight, and drops what the client has not read yet.
            Set<Outcome.Kind> kinds = EnumSet.copyOf(expected.kinds());
            kinds.add(Outcome.Kind.RESET);
            return new Expected(kinds, expected.status(), expected.body(), expected.why(), expected.tolerated());
        }
        return expected;
    }

    /** The client's state while it reads, and the rules. */
    private static final class Walk {
        private final byte[] bytes;
        private final int s;
        private final ClientSettings client;
        private final long maxResponseBytes;
        private final HpackDecoder decoder;
        private final Set<String> tolerated = new TreeSet<>();
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        private final ByteArrayOutputStream block = new ByteArrayOutputStream();
        private boolean preface;
        /** Stream of a header block waiting for CONTINUATION, or -1. */
        private int blockStream = -1;
        private boolean blockEndStream;
        /** 0 until the final response headers came. */
        private int status;
        private long contentLength = -1;
        /** The final response declared a length past maxResponseBytes: a client may end the call there, TOO_LARGE. */
        private boolean declaredTooLarge;
        /** Interim (1xx) responses before the final one. */
        private int interim;
        private long sendWindowInitial = H2Frames.DEFAULT_WINDOW;
        private long streamSendWindow = H2Frames.DEFAULT_WINDOW;
        private long connectionSendWindow = H2Frames.DEFAULT_WINDOW;

        Walk(byte[] bytes, int clientStream, ClientSettings client, long maxResponseBytes) {
            this.bytes = bytes;
            this.s = clientStream;
            this.client = client;
            this.maxResponseBytes = maxResponseBytes;
            this.decoder = new HpackDecoder(1 << 20, System::nanoTime);
            decoder.setMaxTableCapacity(client.headerTableSize());
        }

        Expected run(H2Plan.Ending ending) {
            int at = 0;
            while (bytes.length - at >= H2Frames.HEADER_BYTES) {
                int length = ((bytes[at] & 0xFF) << 16) | ((bytes[at + 1] & 0xFF) << 8) | (bytes[at + 2] & 0xFF);
                int type = bytes[at + 3] & 0xFF;
                int flags = bytes[at + 4] & 0xFF;
                int stream = ByteBuffer.wrap(bytes, at + 5, 4).getInt() & 0x7FFF_FFFF;
                if (length > client.maxFrameSize()) {
                    return failed("a " + H2Frames.name(type) + " frame over the client's SETTINGS_MAX_FRAME_SIZE");
                }
                String wrong = header(type, flags, stream, length);
                if (wrong != null) {
                    return failed(wrong); // a client may refuse it from its header, before its payload arrives
                }
                if (bytes.length - at - H2Frames.HEADER_BYTES < length) {
                    String unfit = cutShort(type, flags, stream, length, at);
                    if (unfit != null) {
                        return failed(unfit);
                    }
                    Expected early = type == H2Frames.DATA ? partialData(flags, stream, length, at)
                            : paddedBlock(type, flags, stream, length, at);
                    if (early != null) {
                        return early;
                    }
                    break;
                }
                byte[] payload = Arrays.copyOfRange(bytes, at + H2Frames.HEADER_BYTES, at + H2Frames.HEADER_BYTES + length);
                at += H2Frames.HEADER_BYTES + length;
                Expected decided = frame(type, flags, stream, payload);
                if (decided != null) {
                    return decided.response() ? after(decided, at < bytes.length, ending) : decided;
                }
            }
            boolean partial = at < bytes.length;
            String where = (interim == 0 ? "" : "after " + interim + " interim responses, ")
                    + (partial ? "a partial frame" : "the end of the frames") + " before the response ended";
            if (ending == H2Plan.Ending.KEEP_OPEN) {
                return new Expected(kinds(Outcome.Kind.TIMEOUT), 0, new byte[0], where + ", kept open", Set.copyOf(tolerated));
            }
            return new Expected(kinds(Outcome.Kind.RESET), 0, new byte[0], where + ", closed", Set.copyOf(tolerated));
        }

        /**
         * What the first bytes of a DATA or HEADERS frame cut short already show: a padding (and priority) longer
         * than the frame, which a client may refuse as soon as those bytes come (Jetty's parser does), or null; a
         * HEADERS frame's dependency on its own stream, tolerated as when the frame is whole.
         */
        private String cutShort(int type, int flags, int stream, int length, int at) {
            int available = bytes.length - at - H2Frames.HEADER_BYTES;
            boolean padded = (flags & H2Frames.PADDED) != 0;
            boolean priority = type == H2Frames.HEADERS && (flags & H2Frames.PRIORITY_FLAG) != 0;
            if (type != H2Frames.DATA && type != H2Frames.HEADERS) {
                return null;
            }
            String name = type == H2Frames.DATA ? "DATA padding past its payload"
                    : "HEADERS padding or priority past its payload";
            int padding = padded && available >= 1 ? bytes[at + H2Frames.HEADER_BYTES] & 0xFF : 0;
            if (padded && available >= 1 && padding > length - 1) {
                return name;
            }
            // The priority's stream dependency read, its weight byte must still fit.
            int before = (padded ? 1 : 0) + 4;
            if (priority && available >= before && padding > length - before - 1) {
                return name;
            }
            if (priority && available > before && stream == s
                    && (ByteBuffer.wrap(bytes, at + H2Frames.HEADER_BYTES + before - 4, 4).getInt() & 0x7FFF_FFFF) == s) {
                tolerate("HEADERS: a stream depending on itself");
            }
            return null;
        }

        /**
         * A padded HEADERS frame cut in its padding: its header block is whole, and a client may judge it before
         * the padding arrives (Jetty's parser does). A failure the block shows, or null.
         */
        private Expected paddedBlock(int type, int flags, int stream, int length, int at) {
            int available = bytes.length - at - H2Frames.HEADER_BYTES;
            if (type != H2Frames.HEADERS || (flags & H2Frames.PADDED) == 0 || available < 1) {
                return null;
            }
            int padding = bytes[at + H2Frames.HEADER_BYTES] & 0xFF;
            if (available < length - padding) {
                return null;
            }
            byte[] payload = Arrays.copyOfRange(bytes, at + H2Frames.HEADER_BYTES, at + H2Frames.HEADER_BYTES + length);
            Expected decided = frame(type, flags, stream, payload);
            return decided == null || decided.response() ? null : decided;
        }

        /** What a frame header alone shows wrong (lengths and streams of the fixed-size frames), or null. */
        private String header(int type, int flags, int stream, int length) {
            if (!preface && (type != H2Frames.SETTINGS || (flags & H2Frames.ACK) != 0)) {
                return "the server's preface is not a SETTINGS frame";
            }
            if (blockStream >= 0) {
                // Only CONTINUATION on the block's stream may follow a block begun (RFC 9113, 6.10).
                return type == H2Frames.CONTINUATION && stream == blockStream ? null
                        : "a " + H2Frames.name(type) + " frame inside a header block";
            }
            return switch (type) {
                case H2Frames.SETTINGS -> stream != 0 ? "SETTINGS on a stream"
                        : (flags & H2Frames.ACK) != 0 && length != 0 ? "SETTINGS ACK with a payload"
                        : length % 6 != 0 ? "SETTINGS of " + length + " bytes" : null;
                case H2Frames.PING -> !preface ? null : stream != 0 ? "PING on a stream"
                        : length != 8 ? "PING of " + length + " bytes" : null;
                case H2Frames.RST_STREAM -> !preface ? null : length != 4 ? "RST_STREAM of " + length + " bytes"
                        : stream == 0 ? "RST_STREAM on stream 0" : stream != s ? "RST_STREAM on an idle stream" : null;
                case H2Frames.WINDOW_UPDATE -> !preface ? null : length != 4 ? "WINDOW_UPDATE of " + length + " bytes"
                        : stream != 0 && stream != s ? "WINDOW_UPDATE on an idle stream" : null;
                case H2Frames.PRIORITY -> priorityHeader(stream, length);
                case H2Frames.GOAWAY -> !preface ? null : stream != 0 ? "GOAWAY on a stream"
                        : length < 8 ? "GOAWAY of " + length + " bytes" : null;
                // Whatever its payload: the client said it takes no push (RFC 9113, 6.6).
                case H2Frames.PUSH_PROMISE -> client.pushEnabled() ? null : "PUSH_PROMISE with push disabled";
                case H2Frames.CONTINUATION -> "CONTINUATION without a header block";
                // On a stream the client never opened: a client may refuse the frame from its header alone.
                case H2Frames.DATA -> stream == 0 ? "DATA on stream 0" : stream != s ? "DATA on an idle stream" : null;
                case H2Frames.HEADERS -> stream == 0 ? "HEADERS on stream 0" : stream == s ? null
                        : "HEADERS on " + (stream % 2 == 0 ? "an idle even stream" : "an idle odd stream");
                default -> null;
            };
        }

        /**
         * A PRIORITY frame's header: on stream 0 it breaks the connection; a length other than 5 a client may
         * enforce from the header, or ignore as it ignores the frame ({@link #priority}).
         */
        private String priorityHeader(int stream, int length) {
            if (stream == 0) {
                return "PRIORITY on stream 0";
            }
            if (length != 5) {
                tolerate("PRIORITY of a length other than 5");
            }
            return null;
        }

        /** A complete response, saying what followed it: more bytes, the end of the connection. */
        private static Expected after(Expected response, boolean more, H2Plan.Ending ending) {
            String then = (more ? ", then more frames" : "") + (ending != H2Plan.Ending.KEEP_OPEN ? ", then the end of the"
                    + " connection" : "");
            return new Expected(response.kinds(), response.status(), response.body(), response.why() + then,
                    response.tolerated());
        }

        private Set<Outcome.Kind> kinds(Outcome.Kind kind) {
            Set<Outcome.Kind> kinds = EnumSet.of(kind);
            if (!tolerated.isEmpty()) {
                kinds.addAll(FAILED);
            }
            if (declaredTooLarge) {
                kinds.add(Outcome.Kind.TOO_LARGE);
            }
            return kinds;
        }

        private Expected failed(String why) {
            Set<Outcome.Kind> kinds = EnumSet.copyOf(FAILED);
            if (declaredTooLarge) {
                kinds.add(Outcome.Kind.TOO_LARGE);
            }
            return new Expected(kinds, 0, new byte[0], why, Set.copyOf(tolerated));
        }

        /** A rule a client may enforce or not: the walk goes on as if the frame were ignored. */
        private void tolerate(String rule) {
            tolerated.add(rule);
        }

        /** Null while nothing is decided. */
        private Expected frame(int type, int flags, int stream, byte[] p) {
            if (blockStream >= 0 && (type != H2Frames.CONTINUATION || stream != blockStream)) {
                return failed("a " + H2Frames.name(type) + " frame inside a header block");
            }
            if (!preface) {
                if (type != H2Frames.SETTINGS || (flags & H2Frames.ACK) != 0) {
                    return failed("the server's preface is not a SETTINGS frame");
                }
            }
            return switch (type) {
                case H2Frames.DATA -> data(flags, stream, p);
                case H2Frames.HEADERS -> headers(flags, stream, p);
                case H2Frames.PRIORITY -> priority(stream, p);
                case H2Frames.RST_STREAM -> rstStream(stream, p);
                case H2Frames.SETTINGS -> settings(flags, stream, p);
                case H2Frames.PUSH_PROMISE -> pushPromise(flags, stream, p);
                case H2Frames.PING -> stream != 0 ? failed("PING on a stream") : p.length != 8
                        ? failed("PING of " + p.length + " bytes") : null;
                case H2Frames.GOAWAY -> goAway(stream, p);
                case H2Frames.WINDOW_UPDATE -> windowUpdate(stream, p);
                case H2Frames.CONTINUATION -> continuation(flags, stream, p);
                default -> null; // unknown types are ignored (RFC 9113, 4.1)
            };
        }

        private Expected data(int flags, int stream, byte[] p) {
            if (stream == 0) {
                return failed("DATA on stream 0");
            }
            int[] content = unpad(flags, p, 0);
            if (content == null) {
                return failed("DATA padding past its payload");
            }
            if (stream != s) {
                return failed("DATA on an idle stream");
            }
            if (status == 0) {
                return failed("DATA before the response HEADERS");
            }
            Expected decided = received(p, content[0], content[1] - content[0]);
            return decided != null || (flags & H2Frames.END_STREAM) == 0 ? decided : complete();
        }

        /**
         * A DATA frame cut short on the request's stream: the data that came a client has as it comes (Jetty's
         * parser hands it on so), and may judge at once. What they decide, or null.
         */
        private Expected partialData(int flags, int stream, int length, int at) {
            int available = bytes.length - at - H2Frames.HEADER_BYTES;
            boolean padded = (flags & H2Frames.PADDED) != 0;
            if (stream != s || blockStream >= 0 || (padded && available < 1)) {
                return null;
            }
            int dataLength = length - (padded ? 1 + (bytes[at + H2Frames.HEADER_BYTES] & 0xFF) : 0);
            int have = Math.min(available - (padded ? 1 : 0), dataLength);
            if (have <= 0 && dataLength > 0) {
                return null;
            }
            if (status == 0) {
                return failed("DATA before the response HEADERS");
            }
            return received(bytes, at + H2Frames.HEADER_BYTES + (padded ? 1 : 0), have);
        }

        /** Content for the response's body: past its content-length or past maxResponseBytes it decides. */
        private Expected received(byte[] from, int offset, int length) {
            body.write(from, offset, length);
            boolean tooLarge = body.size() > maxResponseBytes;
            if (contentLength >= 0 && body.size() > contentLength && status != 204 && status != 304) {
                // Known wrong as soon as the bytes come, a client may say so then, or first refuse the size.
                Expected longer = failed("DATA past the content-length");
                if (!tooLarge) {
                    return longer;
                }
                Set<Outcome.Kind> kinds = EnumSet.copyOf(longer.kinds());
                kinds.add(Outcome.Kind.TOO_LARGE);
                return new Expected(kinds, 0, new byte[0], longer.why(), longer.tolerated());
            }
            return tooLarge ? new Expected(kinds(Outcome.Kind.TOO_LARGE), 0, new byte[0], "a body past maxResponseBytes",
                    Set.copyOf(tolerated)) : null;
        }

        /** {from, to} of the content in a padded (or not) payload, after {@code skip} more bytes; null if it does not fit. */
        private static int[] unpad(int flags, byte[] p, int skip) {
            int from = 0;
            int padding = 0;
            if ((flags & H2Frames.PADDED) != 0) {
                if (p.length < 1) {
                    return null;
                }
                padding = p[0] & 0xFF;
                from = 1;
            }
            from += skip;
            if (from > p.length || padding > p.length - from) {
                return null;
            }
            return new int[] {from, p.length - padding};
        }

        private Expected headers(int flags, int stream, byte[] p) {
            if (stream == 0) {
                return failed("HEADERS on stream 0");
            }
            boolean priority = (flags & H2Frames.PRIORITY_FLAG) != 0;
            int[] fragment = unpad(flags, p, priority ? 5 : 0);
            if (fragment == null) {
                return failed("HEADERS padding or priority past its payload");
            }
            if (priority && stream == s) {
                int from = (flags & H2Frames.PADDED) != 0 ? 1 : 0;
                if ((ByteBuffer.wrap(p, from, 4).getInt() & 0x7FFF_FFFF) == s) {
                    tolerate("HEADERS: a stream depending on itself");
                }
            }
            if (stream != s) {
                return failed("HEADERS on " + (stream % 2 == 0 ? "an idle even stream" : "an idle odd stream"));
            }
            block.reset();
            block.write(p, fragment[0], fragment[1] - fragment[0]);
            blockEndStream = (flags & H2Frames.END_STREAM) != 0;
            if ((flags & H2Frames.END_HEADERS) == 0) {
                blockStream = stream;
                return null;
            }
            return headerBlock();
        }

        /** With push enabled: the promise's header block is decoded (HPACK state is the connection's), the rest ignored. */
        private Expected pushPromise(int flags, int stream, byte[] p) {
            if (!client.pushEnabled()) {
                return failed("PUSH_PROMISE with push disabled");
            }
            if (stream != s) {
                return failed("PUSH_PROMISE on " + (stream == 0 ? "stream 0" : "an idle stream"));
            }
            int[] fragment = unpad(flags, p, 4);
            if (fragment == null) {
                return failed("PUSH_PROMISE padding past its payload");
            }
            if ((flags & H2Frames.END_HEADERS) == 0) {
                return failed("PUSH_PROMISE in pieces (not modelled)");
            }
            try {
                decoder.decode(ByteBuffer.wrap(p, fragment[0], fragment[1] - fragment[0]));
            } catch (HpackException | RuntimeException e) {
                return failed("HPACK: " + e.getMessage());
            }
            tolerate("PUSH_PROMISE, ignored");
            return null;
        }

        private Expected continuation(int flags, int stream, byte[] p) {
            if (blockStream < 0) {
                return failed("CONTINUATION without a header block");
            }
            block.write(p, 0, p.length);
            if ((flags & H2Frames.END_HEADERS) == 0) {
                return null;
            }
            blockStream = -1;
            return headerBlock();
        }

        private Expected headerBlock() {
            MetaData metaData;
            try {
                metaData = decoder.decode(ByteBuffer.wrap(block.toByteArray()));
            } catch (HpackException e) {
                return failed("HPACK: " + e.getMessage());
            } catch (RuntimeException e) {
                return failed("HPACK: " + e);
            }
            if (status != 0) {
                if (!blockEndStream) {
                    return failed("trailers without END_STREAM");
                }
                if (metaData.isResponse() || metaData.isRequest()) {
                    return failed("pseudo-headers in trailers");
                }
                return complete();
            }
            if (!(metaData instanceof MetaData.Response response)) {
                return failed("response HEADERS without :status");
            }
            String bad = badField(metaData);
            if (bad != null) {
                return failed(bad);
            }
            int code = response.getStatus();
            if (code < 100 || code > 999) {
                return failed(":status " + code);
            }
            if (code == 101) {
                return failed(":status 101 in HTTP/2");
            }
            if (code < 200) {
                interim++;
                return blockEndStream ? failed("an interim response with END_STREAM") : null;
            }
            status = code;
            String length = metaData.getHttpFields().get("content-length");
            if (length != null) {
                try {
                    contentLength = Long.parseLong(length.strip());
                    if (contentLength < 0) {
                        return failed("content-length " + length);
                    }
                    declaredTooLarge = contentLength > maxResponseBytes;
                } catch (NumberFormatException e) {
                    return failed("content-length " + length);
                }
            }
            return blockEndStream ? complete() : null;
        }

        private static String badField(MetaData metaData) {
            for (HttpField field : metaData.getHttpFields()) {
                String name = field.getName().toLowerCase(Locale.ROOT);
                if (CONNECTION_SPECIFIC.contains(name)) {
                    return "a connection-specific field: " + field.getName();
                }
                if (name.equals("te") && !"trailers".equalsIgnoreCase(field.getValue())) {
                    return "te: " + field.getValue();
                }
            }
            return null;
        }

        private Expected complete() {
            if (contentLength >= 0 && contentLength != body.size() && status != 204 && status != 304) {
                return failed("content-length " + contentLength + " but " + body.size() + " bytes of DATA");
            }
            Set<Outcome.Kind> kinds = kinds(status < 400 ? Outcome.Kind.OK : Outcome.Kind.HTTP_ERROR);
            if (contentLength > maxResponseBytes) {
                kinds.add(Outcome.Kind.TOO_LARGE); // a client may refuse a declared length past its bound
            }
            String why = "a response " + status + " ending its stream";
            return new Expected(kinds, status, body.toByteArray(), interim == 0 ? why : "after " + interim
                    + " interim responses, " + why, Set.copyOf(tolerated));
        }

        private Expected priority(int stream, byte[] p) {
            if (stream == 0) {
                return failed("PRIORITY on stream 0");
            }
            // Stream errors, on whatever stream: a client may make any of them a connection error (RFC 9113, 5.4.1).
            if (p.length != 5) {
                tolerate("PRIORITY of a length other than 5");
                return null;
            }
            if ((ByteBuffer.wrap(p, 0, 4).getInt() & 0x7FFF_FFFF) == stream) {
                tolerate("PRIORITY: a stream depending on itself");
            }
            return null;
        }

        private Expected rstStream(int stream, byte[] p) {
            if (p.length != 4) {
                return failed("RST_STREAM of " + p.length + " bytes");
            }
            if (stream == 0) {
                return failed("RST_STREAM on stream 0");
            }
            if (stream == s) {
                return failed("RST_STREAM on the request's stream");
            }
            return failed("RST_STREAM on an idle stream");
        }

        private Expected settings(int flags, int stream, byte[] p) {
            if (stream != 0) {
                return failed("SETTINGS on a stream");
            }
            if ((flags & H2Frames.ACK) != 0) {
                return p.length != 0 ? failed("SETTINGS ACK with a payload") : null;
            }
            if (p.length % 6 != 0) {
                return failed("SETTINGS of " + p.length + " bytes");
            }
            preface = true;
            for (int i = 0; i < p.length; i += 6) {
                int id = ((p[i] & 0xFF) << 8) | (p[i + 1] & 0xFF);
                long value = ByteBuffer.wrap(p, i + 2, 4).getInt() & 0xFFFF_FFFFL;
                switch (id) {
                    case H2Frames.SETTINGS_ENABLE_PUSH -> {
                        if (value > 1) {
                            return failed("SETTINGS_ENABLE_PUSH " + value);
                        }
                        if (value == 1) {
                            tolerate("SETTINGS_ENABLE_PUSH=1 from a server");
                        }
                    }
                    case H2Frames.SETTINGS_INITIAL_WINDOW_SIZE -> {
                        if (value > H2Frames.MAX_WINDOW) {
                            return failed("SETTINGS_INITIAL_WINDOW_SIZE " + value);
                        }
                        streamSendWindow += value - sendWindowInitial;
                        sendWindowInitial = value;
                        if (streamSendWindow > H2Frames.MAX_WINDOW) {
                            return failed("SETTINGS_INITIAL_WINDOW_SIZE overflowing the stream's window");
                        }
                    }
                    case H2Frames.SETTINGS_MAX_FRAME_SIZE -> {
                        if (value < H2Frames.DEFAULT_MAX_FRAME_SIZE || value > 0xFF_FFFF) {
                            return failed("SETTINGS_MAX_FRAME_SIZE " + value);
                        }
                    }
                    default -> {
                        // the others bound what the client sends; unknown ones are ignored
                    }
                }
            }
            return null;
        }

        private Expected goAway(int stream, byte[] p) {
            if (stream != 0) {
                return failed("GOAWAY on a stream");
            }
            if (p.length < 8) {
                return failed("GOAWAY of " + p.length + " bytes");
            }
            int last = ByteBuffer.wrap(p, 0, 4).getInt() & 0x7FFF_FFFF;
            long error = ByteBuffer.wrap(p, 4, 4).getInt() & 0xFFFF_FFFFL;
            if (last < s) {
                return failed("GOAWAY below the request's stream");
            }
            if (error != 0) {
                tolerate("GOAWAY with an error, the stream still allowed");
            }
            return null;
        }

        private Expected windowUpdate(int stream, byte[] p) {
            if (p.length != 4) {
                return failed("WINDOW_UPDATE of " + p.length + " bytes");
            }
            long increment = ByteBuffer.wrap(p).getInt() & 0x7FFF_FFFFL;
            if (stream == 0) {
                connectionSendWindow += increment;
                return increment == 0 ? failed("WINDOW_UPDATE of 0 on the connection")
                        : connectionSendWindow > H2Frames.MAX_WINDOW ? failed("WINDOW_UPDATE overflowing the connection")
                        : null;
            }
            if (stream != s) {
                return failed("WINDOW_UPDATE on an idle stream");
            }
            streamSendWindow += increment;
            return increment == 0 ? failed("WINDOW_UPDATE of 0 on the request's stream")
                    : streamSendWindow > H2Frames.MAX_WINDOW ? failed("WINDOW_UPDATE overflowing the stream") : null;
        }
    }
}
