package io.rc10k.stubs.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A response body of exact size that is never held whole in memory: a prefix, a run of padding
 * bytes served from one shared read-only buffer, and a suffix. Immutable.
 */
public final class Body {
    private static final ByteBuffer PADDING;

    static {
        byte[] pad = new byte[64 * 1024];
        Arrays.fill(pad, (byte) 'a');
        PADDING = ByteBuffer.wrap(pad).asReadOnlyBuffer();
    }

    private final byte[] prefix;
    private final long padding;
    private final byte[] suffix;

    private Body(byte[] prefix, long padding, byte[] suffix) {
        this.prefix = prefix;
        this.padding = padding;
        this.suffix = suffix;
    }

    public static Body of(String text) {
        return new Body(text.getBytes(StandardCharsets.UTF_8), 0, new byte[0]);
    }

    /** A valid JSON object of exactly {@code size} bytes (size ≥ 2), led by the fields in {@code head}. */
    public static Body jsonOfSize(String head, long size) {
        byte[] open = ("{" + head + ",\"pad\":\"").getBytes(StandardCharsets.UTF_8);
        byte[] close = "\"}".getBytes(StandardCharsets.UTF_8);
        if (open.length + close.length > size) {
            open = "{\"pad\":\"".getBytes(StandardCharsets.UTF_8);
        }
        if (open.length + close.length > size) {
            // Too small for a field: "{}" then insignificant whitespace, still valid JSON.
            byte[] spaces = new byte[(int) size - 2];
            Arrays.fill(spaces, (byte) ' ');
            return new Body("{}".getBytes(StandardCharsets.UTF_8), 0, spaces);
        }
        return new Body(open, size - open.length - close.length, close);
    }

    /** The same size, but not JSON any more: the last byte becomes a dangling comma. */
    public Body malformed() {
        if (suffix.length > 0) {
            byte[] s = suffix.clone();
            s[s.length - 1] = ',';
            return new Body(prefix, padding, s);
        }
        byte[] p = prefix.clone();
        p[p.length - 1] = ',';
        return new Body(p, padding, suffix);
    }

    public long size() {
        return prefix.length + padding + suffix.length;
    }

    /** Up to {@code max} bytes starting at {@code position}, as a buffer of its own (never the caller's to keep). */
    public ByteBuffer slice(long position, int max) {
        if (position < prefix.length) {
            return ByteBuffer.wrap(prefix, (int) position, (int) Math.min(max, prefix.length - position));
        }
        long inPadding = position - prefix.length;
        if (inPadding < padding) {
            int n = (int) Math.min(Math.min(max, padding - inPadding), PADDING.capacity());
            return PADDING.slice(0, n);
        }
        int inSuffix = (int) (inPadding - padding);
        return ByteBuffer.wrap(suffix, inSuffix, Math.min(max, suffix.length - inSuffix));
    }
}
