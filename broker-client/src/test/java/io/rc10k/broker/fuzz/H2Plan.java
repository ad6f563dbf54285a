package io.rc10k.broker.fuzz;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * What the {@link RawH2Partner} answers one h2c request with, once it has read the client's preface and
 * request: frames, then byte mutations of them, cut into writes, then an ending. Frames name their stream
 * relative to the client's ({@link Target}), so the bytes are made when the request's stream id is known
 * ({@link #bytes(int)}); their length does not depend on it, so the cut does not either.
 *
 * @param origin    how the plan was made, for reports
 * @param frames    in order
 * @param mutations applied in order to the frames' bytes
 * @param cut       how the bytes are cut into writes
 * @param ending    what the partner does after the last write
 */
record H2Plan(String origin, List<H2Plan.Frame> frames, List<H2Plan.Mutation> mutations, H2Plan.Cut cut,
        H2Plan.Ending ending) {

    /** Which stream a frame is on, relative to the client's request stream S. */
    enum Target {
        /** S itself. */
        CLIENT,
        /** 0: the connection. */
        CONNECTION,
        /** S + 2: an odd stream the client has not opened. */
        IDLE_ODD,
        /** S + 1: an even stream no PUSH_PROMISE reserved. */
        IDLE_EVEN;

        int id(int clientStream) {
            return switch (this) {
                case CLIENT -> clientStream;
                case CONNECTION -> 0;
                case IDLE_ODD -> clientStream + 2;
                case IDLE_EVEN -> clientStream + 1;
            };
        }
    }

    /**
     * One frame to write: its header says {@code declaredLength} (normally the payload's), {@code type},
     * {@code flags} and the target's stream id, with the reserved bit set when {@code reservedBit}.
     */
    record Frame(int type, int flags, Target target, byte[] payload, int declaredLength, boolean reservedBit,
            String note) {
        static Frame of(int type, int flags, Target target, byte[] payload, String note) {
            return new Frame(type, flags, target, payload, payload.length, false, note);
        }

        Frame declaring(int length) {
            return new Frame(type, flags, target, payload, length, reservedBit, note + " declaring " + length);
        }

        Frame withFlags(int more) {
            return new Frame(type, flags | more, target, payload, declaredLength, reservedBit, note);
        }

        Frame withReservedBit() {
            return new Frame(type, flags, target, payload, declaredLength, true, note + " R");
        }

        void write(ByteArrayOutputStream out, int clientStream) {
            H2Frames.header(out, declaredLength, type, flags, target.id(clientStream) | (reservedBit ? 0x8000_0000 : 0));
            out.writeBytes(payload);
        }

        @Override
        public String toString() {
            return H2Frames.name(type) + "[" + (flags == 0 ? "" : "0x" + Integer.toHexString(flags) + " ") + target
                    + " " + payload.length + "B" + (note.isEmpty() ? "" : " " + note) + "]";
        }
    }

    /** A change to the bytes: at a position (taken modulo the current length), {@code length} bytes. */
    record Mutation(Kind kind, int at, int length, int value) {
        enum Kind {
            /** XOR the byte at {@code at} with {@code value}. */
            FLIP,
            /** Remove {@code length} bytes from {@code at}. */
            DELETE,
            /** Insert {@code length} bytes from {@code value}'s random stream at {@code at}. */
            INSERT,
            /** Keep only the bytes before {@code at}: the partner ends early. */
            TRUNCATE
        }

        byte[] apply(byte[] bytes) {
            if (bytes.length == 0 && kind != Kind.INSERT) {
                return bytes;
            }
            int from = bytes.length == 0 ? 0 : Math.floorMod(at, bytes.length);
            return switch (kind) {
                case FLIP -> {
                    byte[] out = bytes.clone();
                    out[from] ^= (byte) (value == 0 ? 1 : value);
                    yield out;
                }
                case DELETE -> {
                    int to = Math.min(bytes.length, from + length);
                    byte[] out = new byte[bytes.length - (to - from)];
                    System.arraycopy(bytes, 0, out, 0, from);
                    System.arraycopy(bytes, to, out, from, bytes.length - to);
                    yield out;
                }
                case INSERT -> {
                    byte[] extra = new byte[length];
                    new Random(value).nextBytes(extra);
                    byte[] out = new byte[bytes.length + length];
                    System.arraycopy(bytes, 0, out, 0, from);
                    System.arraycopy(extra, 0, out, from, length);
                    System.arraycopy(bytes, from, out, from + length, bytes.length - from);
                    yield out;
                }
                case TRUNCATE -> Arrays.copyOf(bytes, from);
            };
        }

        @Override
        public String toString() {
            return kind + "@" + at + (kind == Kind.DELETE || kind == Kind.INSERT ? "x" + length : "")
                    + (kind == Kind.FLIP ? "^" + value : "");
        }
    }

    /** How the bytes are cut: in one write; in writes of {@code size}; or at cut points drawn from {@code seed}. */
    record Cut(int size, long seed, int pieces, int pauseAfter, int pauseMillis) {
        static final Cut WHOLE = new Cut(0, 0, 1, -1, 0);

        int[] writes(int length) {
            if (length == 0) {
                return new int[0];
            }
            if (size > 0) {
                int n = (length + size - 1) / size;
                int[] writes = new int[n];
                for (int i = 0; i < n; i++) {
                    writes[i] = Math.min(size, length - i * size);
                }
                return writes;
            }
            Random random = new Random(seed);
            List<Integer> cuts = new ArrayList<>();
            int at = 0;
            for (int i = 1; i < pieces && at < length - 1; i++) {
                int next = at + 1 + random.nextInt(Math.max(1, (length - at) / (pieces - i + 1) * 2));
                if (next >= length) {
                    break;
                }
                cuts.add(next - at);
                at = next;
            }
            cuts.add(length - at);
            return cuts.stream().mapToInt(Integer::intValue).toArray();
        }

        @Override
        public String toString() {
            return (size > 0 ? "writes of " + size : pieces == 1 ? "one write" : pieces + " cuts")
                    + (pauseAfter >= 0 ? ", " + pauseMillis + " ms pause after write " + pauseAfter : "");
        }
    }

    /** What the partner does once every byte is written. */
    enum Ending {
        /** Shuts its output (FIN), then reads what the client still sends until the try is over. */
        CLOSE,
        /** Closes with SO_LINGER 0: the client gets a TCP reset, which may overtake the last bytes. */
        RESET,
        /** Nothing: the connection stays open until the try is over. */
        KEEP_OPEN
    }

    H2Plan {
        frames = List.copyOf(frames);
        mutations = List.copyOf(mutations);
    }

    /** The bytes for a request on {@code clientStream}. */
    byte[] bytes(int clientStream) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Frame frame : frames) {
            frame.write(out, clientStream);
        }
        byte[] bytes = out.toByteArray();
        for (Mutation mutation : mutations) {
            bytes = mutation.apply(bytes);
        }
        return bytes;
    }

    /**
     * The bytes written as soon as the client connects, before its request: the first frame when it is the
     * server's SETTINGS (a client may wait for it before it sends), else all of them.
     */
    int earlyLength() {
        int length = bytes(1).length;
        if (frames.isEmpty()) {
            return length;
        }
        Frame first = frames.get(0);
        boolean preface = first.type() == H2Frames.SETTINGS && (first.flags() & H2Frames.ACK) == 0
                && first.target() == Target.CONNECTION;
        return preface ? Math.min(length, H2Frames.HEADER_BYTES + first.payload().length) : length;
    }

    /** The writes after the early bytes. */
    int[] writes() {
        return cut.writes(bytes(1).length - earlyLength());
    }

    H2Plan withoutFrame(int index) {
        List<Frame> fewer = new ArrayList<>(frames);
        fewer.remove(index);
        return new H2Plan(origin, fewer, mutations, cut, ending);
    }

    H2Plan withoutMutation(int index) {
        List<Mutation> fewer = new ArrayList<>(mutations);
        fewer.remove(index);
        return new H2Plan(origin, frames, fewer, cut, ending);
    }

    H2Plan inOneWrite() {
        return new H2Plan(origin, frames, mutations, Cut.WHOLE, ending);
    }

    @Override
    public String toString() {
        return origin + ": " + frames.stream().map(Frame::toString).collect(Collectors.joining(" "))
                + (mutations.isEmpty() ? "" : " mutated " + mutations) + ", " + bytes(1).length + " bytes, " + cut
                + ", then " + ending;
    }
}
