package io.rc10k.broker.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Partner answers for the fuzzer, from one {@link Random}: mostly HTTP/1.1 responses from
 * {@link ResponseGrammar}, some then mutated byte by byte; sometimes plain random bytes. Then how the
 * partner cuts them into writes, pauses, and ends. Sizes stay a few KiB, now and then up to ~100 KiB.
 *
 * <pre>{@code
 * ResponsePlan plan = new ResponseGenerator().next(new Random(seed));
 * }</pre>
 *
 * <p>Stateless: any thread, given a {@link Random} of its own.</p>
 */
public final class ResponseGenerator {
    /** The next plan. */
    public ResponsePlan next(Random r) {
        String origin;
        byte[] bytes;
        int pick = r.nextInt(100);
        if (pick < 8) {
            origin = "random";
            bytes = randomBytes(r, size(r));
        } else if (pick < 14) {
            origin = "random-after-status";
            String status = "HTTP/1.1 " + ResponseGrammar.pickOf(r, ResponseGrammar.CODES) + " OK\r\n";
            bytes = concat(ascii(status), randomBytes(r, size(r)));
        } else {
            StringBuilder label = new StringBuilder("grammar");
            bytes = ResponseGrammar.response(r, label);
            if (r.nextInt(100) < 40) {
                int mutations = r.nextInt(100) < 60 ? 1 : 2 + r.nextInt(3);
                bytes = mutate(r, bytes, mutations);
                label.append("+").append(mutations).append("mut");
            }
            origin = label.toString();
        }
        return schedule(r, origin, bytes, ending(r));
    }

    /** 0.. a few KiB, now and then up to ~100 KiB. */
    private static int size(Random r) {
        int pick = r.nextInt(100);
        if (pick < 70) {
            return r.nextInt(512);
        }
        if (pick < 95) {
            return r.nextInt(8 * 1024);
        }
        return r.nextInt(100 * 1024);
    }

    private static ResponsePlan.Ending ending(Random r) {
        int pick = r.nextInt(100);
        return pick < 65 ? ResponsePlan.Ending.CLOSE : pick < 75 ? ResponsePlan.Ending.HALF_CLOSE
                : ResponsePlan.Ending.KEEP_OPEN;
    }

    /** Cuts the bytes into writes (one, a few, many small, or one per byte) and rarely pauses a few ms. */
    static ResponsePlan schedule(Random r, String origin, byte[] bytes, ResponsePlan.Ending ending) {
        List<Integer> writes = new ArrayList<>();
        int pick = r.nextInt(100);
        int left = bytes.length;
        if (pick < 50 || left == 0) {
            if (left > 0) {
                writes.add(left);
            }
        } else if (pick < 78) {
            int pieces = 2 + r.nextInt(7);
            while (left > 0) {
                int w = writes.size() == pieces - 1 ? left : 1 + r.nextInt(Math.max(1, left));
                writes.add(Math.min(w, left));
                left -= Math.min(w, left);
            }
        } else if (pick < 92 && left <= 16 * 1024) {
            while (left > 0) {
                int w = Math.min(left, 1 + r.nextInt(16));
                writes.add(w);
                left -= w;
            }
        } else if (left <= 600) {
            for (int i = 0; i < left; i++) {
                writes.add(1);
            }
        } else {
            while (left > 0) {
                int w = Math.min(left, 1 + r.nextInt(4096));
                writes.add(w);
                left -= w;
            }
        }
        int[] pauses = new int[writes.size()];
        if (writes.size() > 1 && r.nextInt(100) < 8) {
            int count = 1 + r.nextInt(Math.min(3, writes.size() - 1));
            for (int i = 0; i < count; i++) {
                pauses[r.nextInt(writes.size() - 1)] = 1 + r.nextInt(3);
            }
        }
        return new ResponsePlan(origin, bytes, writes.stream().mapToInt(Integer::intValue).toArray(), pauses, ending);
    }

    /** Flips, overwrites, inserts, deletes, duplicates or truncates a few bytes. */
    static byte[] mutate(Random r, byte[] bytes, int mutations) {
        byte[] current = bytes;
        for (int m = 0; m < mutations; m++) {
            if (current.length == 0) {
                current = randomBytes(r, 1 + r.nextInt(8));
                continue;
            }
            int at = r.nextInt(current.length);
            switch (r.nextInt(7)) {
                case 0 -> {
                    current = current.clone();
                    current[at] ^= (byte) (1 << r.nextInt(8));
                }
                case 1 -> {
                    current = current.clone();
                    current[at] = special(r);
                }
                case 2 -> current = splice(current, at, at, new byte[] {special(r)});
                case 3 -> current = splice(current, at, Math.min(current.length, at + 1 + r.nextInt(16)), new byte[0]);
                case 4 -> {
                    int end = Math.min(current.length, at + 1 + r.nextInt(32));
                    byte[] copy = Arrays.copyOfRange(current, at, end);
                    current = splice(current, end, end, copy);
                }
                case 5 -> current = Arrays.copyOf(current, at);
                default -> current = splice(current, at, at, ascii(r.nextBoolean() ? "\r\n" : "\r\n\r\n"));
            }
        }
        return current;
    }

    private static byte special(Random r) {
        byte[] specials = {'\r', '\n', 0, ':', ' ', '\t', '0', '9', 'f', ';', (byte) 0xff, (byte) 0x80, 'H', '-'};
        return r.nextInt(4) == 0 ? (byte) r.nextInt(256) : specials[r.nextInt(specials.length)];
    }

    private static byte[] splice(byte[] bytes, int from, int to, byte[] insert) {
        byte[] out = new byte[bytes.length - (to - from) + insert.length];
        System.arraycopy(bytes, 0, out, 0, from);
        System.arraycopy(insert, 0, out, from, insert.length);
        System.arraycopy(bytes, to, out, from + insert.length, bytes.length - to);
        return out;
    }

    static byte[] randomBytes(Random r, int n) {
        byte[] bytes = new byte[n];
        r.nextBytes(bytes);
        return bytes;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }


}
