package io.rc10k.broker.fuzz;

import static io.rc10k.broker.fuzz.H2Frames.CONTINUATION;
import static io.rc10k.broker.fuzz.H2Frames.DATA;
import static io.rc10k.broker.fuzz.H2Frames.END_HEADERS;
import static io.rc10k.broker.fuzz.H2Frames.END_STREAM;
import static io.rc10k.broker.fuzz.H2Frames.HEADERS;
import static io.rc10k.broker.fuzz.H2Frames.PADDED;

import io.rc10k.broker.fuzz.H2Plan.Cut;
import io.rc10k.broker.fuzz.H2Plan.Ending;
import io.rc10k.broker.fuzz.H2Plan.Frame;
import io.rc10k.broker.fuzz.H2Plan.Mutation;
import io.rc10k.broker.fuzz.H2Plan.Target;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackEncoder;
import org.eclipse.jetty.http2.hpack.HpackException;

/**
 * Makes {@link H2Plan}s from a {@link Random}: a grammar of server answers — the server's SETTINGS, interim
 * responses, response HEADERS (Jetty's {@link HpackEncoder} or raw HPACK, split into CONTINUATIONs), DATA
 * with and without padding, trailers — with connection frames between them (SETTINGS ACK, PING,
 * WINDOW_UPDATE, PRIORITY, GOAWAY, unknown types), then in some plans one fault (a frame on a wrong stream,
 * of a wrong length, a RST_STREAM, a GOAWAY below the request, a bad header), in some extra flag bits or
 * the reserved bit, in some byte mutations; cut into writes, with an ending. Every plan's DATA stays
 * under the default 65,535-byte window, so no plan breaks flow control by accident.
 *
 * <p>Not thread-safe: a generator per run.</p>
 */
final class H2Generator {
    private static final String[] FAULTS = {"data-before-headers", "rst-stream", "goaway-below", "goaway-error",
        "headers-idle-odd", "headers-even", "data-idle", "window-update-idle", "rst-idle", "ping-length",
        "rst-length", "window-update-length", "priority-length", "settings-length", "settings-on-stream",
        "settings-ack-payload", "ping-on-stream", "goaway-on-stream", "data-on-zero", "headers-on-zero",
        "padding-too-long", "continuation-alone", "frame-inside-block", "oversized", "window-update-zero",
        "window-update-overflow", "initial-window-overflow", "max-frame-size-bad", "enable-push-2",
        "content-length-off", "no-status", "status-bad", "status-101", "interim-end-stream", "connection-header",
        "uppercase-name", "pseudo-in-trailers", "trailers-no-end", "bad-hpack-index", "table-size-too-big",
        "declared-length", "no-preface", "self-dependency", "enable-push-1", "push-promise", "no-end-stream"};

    private final long maxResponseBytes;

    H2Generator(long maxResponseBytes) {
        this.maxResponseBytes = maxResponseBytes;
    }

    H2Plan next(Random random) {
        String fault = random.nextInt(100) < 45 ? FAULTS[random.nextInt(FAULTS.length)] : null;
        Builder b = new Builder(random);
        b.answer(fault);
        List<Frame> frames = b.frames;
        if (random.nextInt(100) < 10 && !frames.isEmpty()) {
            int i = random.nextInt(frames.size());
            frames.set(i, frames.get(i).withFlags(new int[] {0x2, 0x10, 0x40, 0x80}[random.nextInt(4)]));
        }
        if (random.nextInt(100) < 5 && !frames.isEmpty()) {
            int i = random.nextInt(frames.size());
            frames.set(i, frames.get(i).withReservedBit());
        }
        List<Mutation> mutations = new ArrayList<>();
        if (random.nextInt(100) < 15) {
            for (int n = 1 + random.nextInt(3); n > 0; n--) {
                Mutation.Kind kind = Mutation.Kind.values()[random.nextInt(Mutation.Kind.values().length)];
                mutations.add(new Mutation(kind, random.nextInt(1 << 16), 1 + random.nextInt(12), random.nextInt(256)));
            }
        }
        Ending ending = random.nextInt(100) < 45 ? Ending.CLOSE : random.nextInt(100) < 30 ? Ending.RESET
                : Ending.KEEP_OPEN;
        String origin = (fault == null ? "answer" : fault) + (mutations.isEmpty() ? "" : "+mut");
        return new H2Plan(origin, frames, mutations, cut(random), ending);
    }

    private static Cut cut(Random random) {
        int pick = random.nextInt(100);
        Cut cut = pick < 55 ? Cut.WHOLE
                : pick < 80 ? new Cut(0, random.nextLong(), 2 + random.nextInt(7), -1, 0)
                : pick < 90 ? new Cut(1 + random.nextInt(7), 0, 0, -1, 0)
                : new Cut(H2Frames.HEADER_BYTES, 0, 0, -1, 0);
        if (random.nextInt(100) < 5) {
            cut = new Cut(cut.size(), cut.seed(), Math.max(2, cut.pieces()), random.nextInt(3), 1 + random.nextInt(2));
        }
        return cut;
    }

    /** One plan's frames, in order, with one HPACK encoder for its connection. */
    private final class Builder {
        final Random random;
        final List<Frame> frames = new ArrayList<>();
        final HpackEncoder encoder = new HpackEncoder();
        int dataBytes;
        boolean frameInsideBlock;

        Builder(Random random) {
            this.random = random;
            encoder.setValidateEncoding(false);
        }

        void answer(String fault) {
            frameInsideBlock = "frame-inside-block".equals(fault);
            if (!"no-preface".equals(fault)) {
                frames.add(Frame.of(H2Frames.SETTINGS, 0, Target.CONNECTION, serverSettings(fault), "preface"));
            }
            noise();
            if ("data-before-headers".equals(fault)) {
                frames.add(Frame.of(DATA, 0, Target.CLIENT, bytes(5), ""));
            }
            for (int n = random.nextInt(100) < 10 ? 1 + random.nextInt(2) : 0; n > 0; n--) {
                headers(fieldsBlock(100 + random.nextInt(4) * (random.nextBoolean() ? 1 : 0), List.of(), null),
                        "interim-end-stream".equals(fault), "interim");
                noise();
            }
            int status = new int[] {200, 200, 200, 201, 204, 302, 404, 500, 503}[random.nextInt(9)];
            boolean emptyBody = status == 204 || random.nextInt(100) < 15;
            int bodyLength = emptyBody ? 0 : bodyLength();
            boolean trailers = !emptyBody && random.nextInt(100) < 10;
            List<String[]> fields = new ArrayList<>();
            fields.add(new String[] {"content-type", "text/plain"});
            if (random.nextInt(100) < 40 && status != 204) {
                fields.add(new String[] {"content-length", String.valueOf(bodyLength
                        + ("content-length-off".equals(fault) ? (random.nextBoolean() ? 1 : -1) : 0))});
            }
            for (int n = random.nextInt(100) < 10 ? random.nextInt(40) : random.nextInt(3); n > 0; n--) {
                fields.add(new String[] {"x-h" + n, "v".repeat(random.nextInt(100))});
            }
            headerFault(fault, fields);
            byte[] block = fieldsBlock(status, fields, fault);
            headers(block, emptyBody && !"no-end-stream".equals(fault), "response " + status);
            noise();
            middleFault(fault);
            if (!emptyBody) {
                body(bodyLength, !trailers && !"no-end-stream".equals(fault), fault);
                if (trailers) {
                    List<String[]> trailer = new ArrayList<>(List.of(new String[][] {{"x-checksum", "abc"}}));
                    if ("pseudo-in-trailers".equals(fault)) {
                        trailer.add(0, new String[] {":status", "200"});
                    }
                    headers(raw(trailer), !"trailers-no-end".equals(fault), "trailers");
                }
            }
            if (random.nextInt(100) < 25) {
                noise();
                if (random.nextInt(100) < 30) {
                    frames.add(Frame.of(H2Frames.GOAWAY, 0, Target.CONNECTION, H2Frames.goAway(1, 0, bytes(0)),
                            "after"));
                }
            }
            if ("declared-length".equals(fault) && !frames.isEmpty()) {
                int i = random.nextInt(frames.size());
                Frame f = frames.get(i);
                frames.set(i, f.declaring(Math.max(0, f.payload().length + random.nextInt(21) - 10)));
            }
        }

        private int bodyLength() {
            int pick = random.nextInt(100);
            return pick < 60 ? random.nextInt(200) : pick < 85 ? random.nextInt(5_000)
                    : (int) maxResponseBytes - 3 + random.nextInt(7);
        }

        private byte[] serverSettings(String fault) {
            List<Long> pairs = new ArrayList<>();
            if (random.nextBoolean()) {
                pairs.add((long) H2Frames.SETTINGS_MAX_CONCURRENT_STREAMS);
                pairs.add((long) random.nextInt(200));
            }
            if (random.nextInt(100) < 30) {
                pairs.add((long) H2Frames.SETTINGS_INITIAL_WINDOW_SIZE);
                pairs.add("initial-window-overflow".equals(fault) ? 0x8000_0000L : random.nextInt(1 << 20));
            }
            if (random.nextInt(100) < 20 || "max-frame-size-bad".equals(fault)) {
                pairs.add((long) H2Frames.SETTINGS_MAX_FRAME_SIZE);
                pairs.add("max-frame-size-bad".equals(fault) ? (random.nextBoolean() ? 100L : 1L << 24)
                        : 16_384L + random.nextInt(1 << 16));
            }
            if (random.nextInt(100) < 20) {
                pairs.add((long) (random.nextBoolean() ? H2Frames.SETTINGS_HEADER_TABLE_SIZE
                        : H2Frames.SETTINGS_MAX_HEADER_LIST_SIZE));
                pairs.add((long) random.nextInt(1 << 16));
            }
            if (random.nextInt(100) < 10) {
                pairs.add(0x20L + random.nextInt(0xFF00)); // unknown: ignored
                pairs.add((long) random.nextInt());
            }
            if ("enable-push-2".equals(fault) || "enable-push-1".equals(fault)) {
                pairs.add((long) H2Frames.SETTINGS_ENABLE_PUSH);
                pairs.add("enable-push-2".equals(fault) ? 2L : 1L);
            }
            return H2Frames.settings(pairs.stream().mapToLong(Long::longValue).toArray());
        }

        /** Zero to two frames a client reads and answers or ignores. */
        private void noise() {
            for (int n = random.nextInt(100) < 40 ? 1 + random.nextInt(2) : 0; n > 0; n--) {
                switch (random.nextInt(8)) {
                    case 0 -> frames.add(Frame.of(H2Frames.SETTINGS, H2Frames.ACK, Target.CONNECTION, bytes(0), "ack"));
                    case 1 -> frames.add(Frame.of(H2Frames.PING, random.nextBoolean() ? H2Frames.ACK : 0,
                            Target.CONNECTION, bytes(8), ""));
                    case 2 -> frames.add(Frame.of(H2Frames.WINDOW_UPDATE, 0, random.nextBoolean() ? Target.CONNECTION
                            : Target.CLIENT, H2Frames.int32(1 + random.nextInt(1 << 16)), ""));
                    case 3 -> frames.add(Frame.of(H2Frames.PRIORITY, 0, random.nextBoolean() ? Target.CLIENT
                            : Target.IDLE_ODD, priority(0), ""));
                    case 4 -> frames.add(Frame.of(0x0b + random.nextInt(4) * 2, random.nextInt(256), random.nextBoolean()
                            ? Target.CONNECTION : Target.CLIENT, bytes(random.nextInt(30)), "unknown"));
                    case 5 -> frames.add(Frame.of(H2Frames.SETTINGS, 0, Target.CONNECTION, H2Frames.settings(
                            H2Frames.SETTINGS_MAX_CONCURRENT_STREAMS, 100), "again"));
                    case 6 -> frames.add(Frame.of(H2Frames.GOAWAY, 0, Target.CONNECTION, H2Frames.goAway(
                            random.nextBoolean() ? 1 : 0x7FFF_FFFF, 0, bytes(random.nextInt(10))), "graceful"));
                    default -> frames.add(Frame.of(H2Frames.PRIORITY, 0, Target.IDLE_EVEN, priority(0), ""));
                }
            }
        }

        /** A fault placed between the response HEADERS and its body. */
        private void middleFault(String fault) {
            if (fault == null) {
                return;
            }
            Frame frame = switch (fault) {
                case "rst-stream" -> Frame.of(H2Frames.RST_STREAM, 0, Target.CLIENT, H2Frames.int32(random.nextInt(14)), "");
                case "goaway-below" -> Frame.of(H2Frames.GOAWAY, 0, Target.CONNECTION, H2Frames.goAway(0, random.nextInt(3),
                        bytes(0)), "below");
                case "goaway-error" -> Frame.of(H2Frames.GOAWAY, 0, Target.CONNECTION, H2Frames.goAway(1, 1 + random.nextInt(13),
                        bytes(3)), "error");
                case "headers-idle-odd" -> Frame.of(HEADERS, END_HEADERS | END_STREAM, Target.IDLE_ODD, raw(List.of(
                        new String[][] {{":status", "200"}})), "");
                case "headers-even" -> Frame.of(HEADERS, END_HEADERS, Target.IDLE_EVEN, raw(List.of(
                        new String[][] {{":status", "200"}})), "");
                case "data-idle" -> Frame.of(DATA, 0, random.nextBoolean() ? Target.IDLE_ODD : Target.IDLE_EVEN, bytes(4), "");
                case "window-update-idle" -> Frame.of(H2Frames.WINDOW_UPDATE, 0, Target.IDLE_ODD, H2Frames.int32(10), "");
                case "rst-idle" -> Frame.of(H2Frames.RST_STREAM, 0, random.nextBoolean() ? Target.IDLE_ODD : Target.IDLE_EVEN,
                        H2Frames.int32(8), "");
                case "ping-length" -> Frame.of(H2Frames.PING, 0, Target.CONNECTION, bytes(random.nextBoolean() ? 7 : 9), "");
                case "rst-length" -> Frame.of(H2Frames.RST_STREAM, 0, Target.CLIENT, bytes(random.nextBoolean() ? 3 : 5), "");
                case "window-update-length" -> Frame.of(H2Frames.WINDOW_UPDATE, 0, Target.CONNECTION, bytes(5), "");
                case "priority-length" -> Frame.of(H2Frames.PRIORITY, 0, Target.CLIENT, bytes(4), "");
                case "settings-length" -> Frame.of(H2Frames.SETTINGS, 0, Target.CONNECTION, bytes(5), "");
                case "settings-on-stream" -> Frame.of(H2Frames.SETTINGS, 0, Target.CLIENT, bytes(0), "");
                case "settings-ack-payload" -> Frame.of(H2Frames.SETTINGS, H2Frames.ACK, Target.CONNECTION, bytes(6), "");
                case "ping-on-stream" -> Frame.of(H2Frames.PING, 0, Target.CLIENT, bytes(8), "");
                case "goaway-on-stream" -> Frame.of(H2Frames.GOAWAY, 0, Target.CLIENT, H2Frames.goAway(1, 0, bytes(0)), "");
                case "data-on-zero" -> Frame.of(DATA, 0, Target.CONNECTION, bytes(3), "");
                case "headers-on-zero" -> Frame.of(HEADERS, END_HEADERS, Target.CONNECTION, raw(List.of()), "");
                case "continuation-alone" -> Frame.of(CONTINUATION, END_HEADERS, Target.CLIENT, raw(List.of()), "");
                case "oversized" -> Frame.of(DATA, 0, Target.CLIENT, bytes(16_385 + random.nextInt(100)), "oversized");
                case "window-update-zero" -> Frame.of(H2Frames.WINDOW_UPDATE, 0, random.nextBoolean() ? Target.CONNECTION
                        : Target.CLIENT, H2Frames.int32(0), "");
                case "window-update-overflow" -> Frame.of(H2Frames.WINDOW_UPDATE, 0, random.nextBoolean()
                        ? Target.CONNECTION : Target.CLIENT, H2Frames.int32(0x7FFF_FFFF), "");
                case "self-dependency" -> Frame.of(H2Frames.PRIORITY, 0, Target.CLIENT, priority(1), "self");
                case "push-promise" -> Frame.of(H2Frames.PUSH_PROMISE, END_HEADERS, Target.CLIENT,
                        pushPromise(), "");
                default -> null;
            };
            if (frame != null) {
                frames.add(frame);
            }
        }

        private byte[] pushPromise() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            H2Frames.int32(out, 2);
            out.writeBytes(raw(List.of(new String[][] {{":method", "GET"}, {":scheme", "http"}, {":path", "/p"},
                {":authority", "x"}})));
            return out.toByteArray();
        }

        private void headerFault(String fault, List<String[]> fields) {
            if (fault == null) {
                return;
            }
            switch (fault) {
                case "connection-header" -> fields.add(new String[] {new String[] {"connection", "transfer-encoding",
                    "keep-alive", "upgrade", "te"}[random.nextInt(5)], "close"});
                case "uppercase-name" -> fields.add(new String[] {"X-Upper", "1"});
                default -> {
                }
            }
        }

        /** A response header block; by Jetty's encoder for a plain one, raw HPACK for the rest. */
        private byte[] fieldsBlock(int status, List<String[]> fields, String fault) {
            boolean plain = fault == null || !List.of("no-status", "status-bad", "status-101", "uppercase-name",
                    "connection-header", "bad-hpack-index", "table-size-too-big").contains(fault);
            if (plain && random.nextBoolean()) {
                HttpFields.Mutable jetty = HttpFields.build();
                fields.forEach(f -> jetty.add(f[0], f[1]));
                ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
                try {
                    encoder.encode(buffer, new MetaData.Response(status, null, HttpVersion.HTTP_2, jetty));
                } catch (HpackException e) {
                    throw new IllegalStateException(e);
                }
                buffer.flip();
                byte[] block = new byte[buffer.remaining()];
                buffer.get(block);
                return block;
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            if ("table-size-too-big".equals(fault)) {
                H2Frames.hpackInt(out, 5, 0x20, 1 << 20);
            }
            if ("bad-hpack-index".equals(fault)) {
                H2Frames.indexed(out, 62 + random.nextInt(100));
            }
            String code = switch (fault == null ? "" : fault) {
                case "no-status" -> null;
                case "status-bad" -> new String[] {"20", "2000", "abc", "", "099", " 200"}[random.nextInt(6)];
                case "status-101" -> "101";
                default -> String.valueOf(status);
            };
            if ("200".equals(code) && random.nextBoolean()) {
                H2Frames.indexed(out, 8); // :status 200 in the static table
            } else if (code != null) {
                H2Frames.literalIndexedName(out, 8, code);
            }
            for (String[] field : fields) {
                H2Frames.literal(out, field[0], field[1]);
            }
            return out.toByteArray();
        }

        private byte[] raw(List<String[]> fields) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (String[] field : fields) {
                H2Frames.literal(out, field[0], field[1]);
            }
            return out.toByteArray();
        }

        /** A header block as HEADERS and zero or more CONTINUATIONs on the client's stream. */
        private void headers(byte[] block, boolean endStream, String note) {
            int pieces = random.nextInt(100) < 15 || frameInsideBlock ? 2 + random.nextInt(3) : 1;
            int size = Math.max(1, (block.length + pieces - 1) / pieces);
            int at = 0;
            boolean first = true;
            do {
                int n = Math.min(size, block.length - at);
                byte[] fragment = Arrays.copyOfRange(block, at, at + n);
                at += n;
                boolean last = at >= block.length;
                int flags = (last ? END_HEADERS : 0) | (first && endStream ? END_STREAM : 0);
                if (first && random.nextInt(100) < 10) {
                    frames.add(Frame.of(HEADERS, flags | PADDED, Target.CLIENT, pad(fragment, random.nextInt(20)), note
                            + " padded"));
                } else {
                    frames.add(Frame.of(first ? HEADERS : CONTINUATION, flags, Target.CLIENT, fragment, note));
                }
                if (!last && (random.nextInt(100) < 3 || frameInsideBlock)) {
                    frameInsideBlock = false;
                    frames.add(Frame.of(H2Frames.PING, 0, Target.CONNECTION, bytes(8), "inside a block"));
                }
                first = false;
            } while (at < block.length);
        }

        private void body(int length, boolean endStream, String fault) {
            int pieces = length == 0 ? 1 : 1 + random.nextInt(Math.min(5, length));
            int size = Math.max(1, (length + pieces - 1) / pieces);
            int at = 0;
            do {
                int n = Math.min(size, Math.min(length - at, 16_000));
                if (dataBytes + n > 60_000) {
                    n = Math.max(0, 60_000 - dataBytes);
                }
                byte[] content = new byte[n];
                for (int i = 0; i < n; i++) {
                    content[i] = (byte) ('a' + (at + i) % 26);
                }
                at += n;
                boolean last = at >= length || n == 0;
                int flags = last && endStream ? END_STREAM : 0;
                if (random.nextInt(100) < 15) {
                    int padding = "padding-too-long".equals(fault) ? 255 : random.nextInt(30);
                    byte[] padded = pad(content, padding);
                    if ("padding-too-long".equals(fault)) {
                        padded = Arrays.copyOf(padded, Math.min(padded.length, 1 + content.length + 3));
                    }
                    frames.add(Frame.of(DATA, flags | PADDED, Target.CLIENT, padded, "padded"));
                } else {
                    frames.add(Frame.of(DATA, flags, Target.CLIENT, content, ""));
                }
                dataBytes += content.length + 31;
                if (!last && random.nextInt(100) < 20) {
                    noise();
                }
                if (last) {
                    break;
                }
            } while (true);
        }

        private byte[] pad(byte[] content, int padding) {
            byte[] out = new byte[1 + content.length + padding];
            out[0] = (byte) padding;
            System.arraycopy(content, 0, out, 1, content.length);
            return out;
        }

        private byte[] priority(int selfBit) {
            return new byte[] {0, 0, 0, (byte) (selfBit == 1 ? 1 : 3), (byte) random.nextInt(256)};
        }

        private byte[] bytes(int n) {
            byte[] out = new byte[n];
            random.nextBytes(out);
            return out;
        }
    }
}
