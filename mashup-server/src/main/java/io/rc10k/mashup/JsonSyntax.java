package io.rc10k.mashup;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;

/**
 * Whether a partner's body is exactly one JSON value (RFC 8259) in well-formed UTF-8 — what the
 * composite may embed as it is. One pass over the bytes, nothing built: no tokens, no strings, no
 * parser objects. Stricter than a general parser where embedding needs it: no byte order mark, no
 * UTF-16 or UTF-32, no overlong or surrogate UTF-8 sequences, nesting at most {@link #MAX_DEPTH} deep;
 * and no number or member name longer than such a parser's defaults allow, so that what the composite
 * embeds, a chained call can read ({@code PartReference}) and a client with default limits can parse.
 *
 * <pre>{@code
 * JsonSyntax.Check check = new JsonSyntax.Check();
 * outcome.writeBodyTo(check);            // hands over the body's bytes without a copy
 * boolean embeddable = check.isOneValue();
 * }</pre>
 */
final class JsonSyntax {
    /** Deeper nesting is refused (a general parser's usual bound). */
    static final int MAX_DEPTH = 1000;
    /** Longer numbers and member names are refused, as a general parser's default limits refuse them. */
    static final int MAX_NUMBER_LENGTH = 1000;
    static final int MAX_NAME_BYTES = 50_000;
    /** What follows an item of an object or array: its closing bracket, a comma, or anything else. */
    private static final int CLOSED = 1;
    private static final int MORE = 0;
    private static final int BROKEN = -1;

    private final byte[] bytes;
    private final int end;
    private int at;

    private JsonSyntax(byte[] bytes, int offset, int length) {
        this.bytes = bytes;
        this.at = offset;
        this.end = offset + length;
    }

    /** True when {@code bytes[offset, offset + length)} is one JSON value, with only whitespace around it. */
    static boolean isOneValue(byte[] bytes, int offset, int length) {
        JsonSyntax s = new JsonSyntax(bytes, offset, length);
        s.skipWhitespace();
        if (!s.value(0)) {
            return false;
        }
        s.skipWhitespace();
        return s.at == s.end;
    }

    /**
     * An output stream that takes a body and says whether it is one JSON value; the usual single write
     * is checked in place (the array is read, not copied: leave it unchanged until {@link #isOneValue}),
     * several writes are joined first.
     */
    static final class Check extends OutputStream {
        private byte[] first;
        private int offset;
        private int length;
        private ByteArrayOutputStream joined;

        @Override
        public void write(int b) {
            join().write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            if (first == null && joined == null) {
                first = b;
                offset = off;
                length = len;
            } else {
                join().write(b, off, len);
            }
        }

        private ByteArrayOutputStream join() {
            if (joined == null) {
                joined = new ByteArrayOutputStream();
                if (first != null) {
                    joined.write(first, offset, length);
                }
            }
            return joined;
        }

        boolean isOneValue() {
            if (joined != null) {
                byte[] all = joined.toByteArray();
                return JsonSyntax.isOneValue(all, 0, all.length);
            }
            return first != null && JsonSyntax.isOneValue(first, offset, length);
        }
    }

    private boolean value(int depth) {
        if (at >= end) {
            return false;
        }
        switch (bytes[at]) {
            case '{':
                return depth < MAX_DEPTH && object(depth + 1);
            case '[':
                return depth < MAX_DEPTH && array(depth + 1);
            case '"':
                return string();
            case 't':
                return literal("true");
            case 'f':
                return literal("false");
            case 'n':
                return literal("null");
            default:
                return number();
        }
    }

    private boolean object(int depth) {
        if (opensEmpty('}')) {
            return true;
        }
        while (true) {
            int name = at;
            if (at >= end || bytes[at] != '"' || !string() || at - name - 2 > MAX_NAME_BYTES) {
                return false;
            }
            skipWhitespace();
            if (at >= end || bytes[at] != ':') {
                return false;
            }
            at++;
            skipWhitespace();
            if (!value(depth)) {
                return false;
            }
            int after = afterItem('}');
            if (after != MORE) {
                return after == CLOSED;
            }
        }
    }

    private boolean array(int depth) {
        if (opensEmpty(']')) {
            return true;
        }
        while (true) {
            if (!value(depth)) {
                return false;
            }
            int after = afterItem(']');
            if (after != MORE) {
                return after == CLOSED;
            }
        }
    }

    /** Past the opening bracket and its whitespace; true (and past {@code close} too) when nothing is inside. */
    private boolean opensEmpty(char close) {
        at++;
        skipWhitespace();
        if (at < end && bytes[at] == close) {
            at++;
            return true;
        }
        return false;
    }

    /** After a member or an element: {@code close} ends the container, a comma means another follows. */
    private int afterItem(char close) {
        skipWhitespace();
        if (at >= end) {
            return BROKEN;
        }
        byte next = bytes[at++];
        if (next == close) {
            return CLOSED;
        }
        if (next != ',') {
            return BROKEN;
        }
        skipWhitespace();
        return MORE;
    }

    /** A string from its opening quote: escapes as RFC 8259 lists them, no control character, UTF-8 well-formed. */
    private boolean string() {
        at++;
        while (at < end) {
            int c = bytes[at] & 0xff;
            if (c == '"') {
                at++;
                return true;
            }
            if (c == '\\') {
                if (!escape()) {
                    return false;
                }
            } else if (c < 0x20) {
                return false;
            } else if (c < 0x80) {
                at++;
            } else if (!utf8(c)) {
                return false;
            }
        }
        return false;
    }

    private boolean escape() {
        if (at + 1 >= end) {
            return false;
        }
        switch (bytes[at + 1]) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> {
                at += 2;
                return true;
            }
            case 'u' -> {
                if (at + 6 > end) {
                    return false;
                }
                for (int k = at + 2; k < at + 6; k++) {
                    if (Character.digit(bytes[k], 16) < 0) {
                        return false;
                    }
                }
                at += 6;
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    /** One multi-byte UTF-8 sequence from its lead byte {@code c} (RFC 3629's table: no overlong, no surrogate). */
    private boolean utf8(int c) {
        int more;
        int low = 0x80;
        int high = 0xbf;
        if (c >= 0xc2 && c <= 0xdf) {
            more = 1;
        } else if (c >= 0xe0 && c <= 0xef) {
            more = 2;
            low = c == 0xe0 ? 0xa0 : 0x80;
            high = c == 0xed ? 0x9f : 0xbf;
        } else if (c >= 0xf0 && c <= 0xf4) {
            more = 3;
            low = c == 0xf0 ? 0x90 : 0x80;
            high = c == 0xf4 ? 0x8f : 0xbf;
        } else {
            return false;
        }
        if (at + more >= end) {
            return false;
        }
        for (int k = 1; k <= more; k++) {
            int next = bytes[at + k] & 0xff;
            if (next < (k == 1 ? low : 0x80) || next > (k == 1 ? high : 0xbf)) {
                return false;
            }
        }
        at += more + 1;
        return true;
    }

    /** {@code -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?} */
    private boolean number() {
        int from = at;
        if (at < end && bytes[at] == '-') {
            at++;
        }
        if (at >= end) {
            return false;
        }
        if (bytes[at] == '0') {
            at++;
        } else if (!digits()) {
            return false;
        }
        if (at < end && bytes[at] == '.') {
            at++;
            if (!digits()) {
                return false;
            }
        }
        if (at < end && (bytes[at] == 'e' || bytes[at] == 'E')) {
            at++;
            if (at < end && (bytes[at] == '+' || bytes[at] == '-')) {
                at++;
            }
            if (!digits()) {
                return false;
            }
        }
        return at - from <= MAX_NUMBER_LENGTH;
    }

    /** One or more decimal digits. */
    private boolean digits() {
        int from = at;
        while (at < end && bytes[at] >= '0' && bytes[at] <= '9') {
            at++;
        }
        return at > from;
    }

    private boolean literal(String word) {
        if (at + word.length() > end) {
            return false;
        }
        for (int k = 0; k < word.length(); k++) {
            if (bytes[at + k] != word.charAt(k)) {
                return false;
            }
        }
        at += word.length();
        return true;
    }

    private void skipWhitespace() {
        while (at < end) {
            byte c = bytes[at];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            at++;
        }
    }
}
