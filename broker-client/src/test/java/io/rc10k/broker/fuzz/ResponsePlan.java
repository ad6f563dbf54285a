package io.rc10k.broker.fuzz;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What the {@link RawPartner} answers one request with: the bytes, how they are cut into writes (and
 * the pauses after some), and how the partner ends once they are out.
 *
 * @param origin  how the bytes were made, for reports (generator category, corpus case name)
 * @param bytes   the answer, whatever it is
 * @param writes  the size of each write, in order, adding up to {@code bytes.length}
 * @param pauses  milliseconds to wait after each write (0: none), as long as {@code writes}
 * @param ending  what the partner does after the last write
 */
public record ResponsePlan(String origin, byte[] bytes, int[] writes, int[] pauses, Ending ending) {
    /** What the partner does once every byte is written. */
    public enum Ending {
        /** Closes the socket: the client reads the end of the stream. */
        CLOSE,
        /** Shuts its output down and waits for the client to close: the client reads the end of the stream too. */
        HALF_CLOSE,
        /** Keeps the connection open and serves the next request on it. */
        KEEP_OPEN;

        /** True when the client sees the end of the stream after the bytes. */
        public boolean endsStream() {
            return this != KEEP_OPEN;
        }
    }

    public ResponsePlan {
        if (writes.length != pauses.length || Arrays.stream(writes).sum() != bytes.length
                || Arrays.stream(writes).anyMatch(w -> w <= 0)) {
            throw new IllegalArgumentException("writes " + Arrays.toString(writes) + " do not cut " + bytes.length
                    + " bytes (pauses " + Arrays.toString(pauses) + ")");
        }
    }

    /** The bytes in one write, no pause. */
    public static ResponsePlan whole(String origin, byte[] bytes, Ending ending) {
        return bytes.length == 0 ? new ResponsePlan(origin, bytes, new int[0], new int[0], ending)
                : new ResponsePlan(origin, bytes, new int[] {bytes.length}, new int[1], ending);
    }

    /** The bytes in writes of {@code size} bytes (the last may be shorter), no pause. */
    public static ResponsePlan cut(String origin, byte[] bytes, int size, Ending ending) {
        int n = (bytes.length + size - 1) / size;
        int[] writes = new int[n];
        for (int i = 0; i < n; i++) {
            writes[i] = Math.min(size, bytes.length - i * size);
        }
        return new ResponsePlan(origin, bytes, writes, new int[n], ending);
    }

    /** This plan with a pause of {@code millis} after write {@code index} (when it has that write). */
    public ResponsePlan pausingAfter(int index, int millis) {
        if (index < 0 || index >= writes.length) {
            return this;
        }
        int[] more = pauses.clone();
        more[index] = millis;
        return new ResponsePlan(origin, bytes, writes, more, ending);
    }

    public ResponsePlan withEnding(Ending other) {
        return new ResponsePlan(origin, bytes, writes, pauses, other);
    }

    public ResponsePlan inOneWrite() {
        return whole(origin, bytes, ending);
    }

    public boolean paused() {
        return Arrays.stream(pauses).anyMatch(p -> p > 0);
    }

    /** The plan without bytes {@code [from, to)}: the writes lose what they carried of them; empty writes go. */
    public ResponsePlan without(int from, int to) {
        byte[] kept = new byte[bytes.length - (to - from)];
        System.arraycopy(bytes, 0, kept, 0, from);
        System.arraycopy(bytes, to, kept, from, bytes.length - to);
        List<int[]> cut = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < writes.length; i++) {
            int end = start + writes[i];
            int lost = Math.max(0, Math.min(end, to) - Math.max(start, from));
            if (writes[i] - lost > 0) {
                cut.add(new int[] {writes[i] - lost, pauses[i]});
            }
            start = end;
        }
        return new ResponsePlan(origin, kept, cut.stream().mapToInt(w -> w[0]).toArray(),
                cut.stream().mapToInt(w -> w[1]).toArray(), ending);
    }

    @Override
    public String toString() {
        return origin + ", " + bytes.length + " bytes in " + writes.length + " writes"
                + (paused() ? " with pauses" : "") + ", then " + ending;
    }
}
