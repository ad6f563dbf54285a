package io.rc10k.broker.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Bytes as one line of text, for the corpus and for failure reports: printable ASCII as itself, and
 * {@code \r \n \t \\ \xHH} for the rest. {@code \*N{TEXT}} repeats TEXT (itself escaped, with no
 * {@code }} of its own) N times, so that a 70 KiB head fits on a readable line.
 *
 * <pre>{@code
 * byte[] bytes = Escapes.unescape("HTTP/1.1 200 OK\\r\\nX: \\*70000{a}\\r\\n\\r\\n");
 * String line = Escapes.escape(bytes);
 * }</pre>
 */
public final class Escapes {
    private Escapes() {
    }

    public static byte[] unescape(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(text.length());
        unescape(text, 0, text.length(), out);
        return out.toByteArray();
    }

    private static void unescape(String text, int from, int to, ByteArrayOutputStream out) {
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c != '\\') {
                if (c > 0xff) {
                    throw new IllegalArgumentException("not a byte at " + i + ": " + c);
                }
                out.write(c);
                continue;
            }
            if (i + 1 >= to) {
                throw new IllegalArgumentException("a lone backslash at the end: " + text);
            }
            char e = text.charAt(++i);
            switch (e) {
                case 'r' -> out.write('\r');
                case 'n' -> out.write('\n');
                case 't' -> out.write('\t');
                case '\\' -> out.write('\\');
                case 'x' -> {
                    out.write(Integer.parseInt(text.substring(i + 1, i + 3), 16));
                    i += 2;
                }
                case '*' -> {
                    int open = text.indexOf('{', i);
                    int close = text.indexOf('}', open);
                    if (open < 0 || close < 0 || close > to) {
                        throw new IllegalArgumentException("\\*N{TEXT} without its braces at " + i + ": " + text);
                    }
                    int times = Integer.parseInt(text.substring(i + 1, open));
                    ByteArrayOutputStream once = new ByteArrayOutputStream();
                    unescape(text, open + 1, close, once);
                    byte[] unit = once.toByteArray();
                    for (int t = 0; t < times; t++) {
                        out.write(unit, 0, unit.length);
                    }
                    i = close;
                }
                default -> throw new IllegalArgumentException("unknown escape \\" + e + " at " + i + ": " + text);
            }
        }
    }

    /** The corpus form; runs of one byte longer than 32 are written as {@code \*N{b}}. */
    public static String escape(byte[] bytes) {
        StringBuilder text = new StringBuilder(bytes.length + 16);
        for (int i = 0; i < bytes.length; ) {
            int run = 1;
            while (i + run < bytes.length && bytes[i + run] == bytes[i]) {
                run++;
            }
            if (run > 32) {
                text.append("\\*").append(run).append('{');
                appendByte(text, bytes[i] & 0xff, true);
                text.append('}');
                i += run;
                continue;
            }
            appendByte(text, bytes[i] & 0xff, false);
            i++;
        }
        return text.toString();
    }

    private static void appendByte(StringBuilder text, int b, boolean inRepeat) {
        switch (b) {
            case '\r' -> text.append("\\r");
            case '\n' -> text.append("\\n");
            case '\t' -> text.append("\\t");
            case '\\' -> text.append("\\\\");
            default -> {
                if (b < 0x20 || b >= 0x7f || (inRepeat && b == '}')) {
                    text.append(String.format("\\x%02x", b));
                } else {
                    text.append((char) b);
                }
            }
        }
    }

    /** A Java string literal of the bytes read as ISO-8859-1, to paste into a test. */
    public static String javaLiteral(byte[] bytes) {
        StringBuilder text = new StringBuilder(bytes.length + 16).append('"');
        String latin1 = new String(bytes, StandardCharsets.ISO_8859_1);
        for (int i = 0; i < latin1.length(); i++) {
            char c = latin1.charAt(i);
            switch (c) {
                case '\r' -> text.append("\\r");
                case '\n' -> text.append("\\n");
                case '\t' -> text.append("\\t");
                case '\\' -> text.append("\\\\");
                case '"' -> text.append("\\\"");
                default -> {
                    if (c < 0x20 || c >= 0x7f) {
                        text.append(String.format("\\u%04x", (int) c));
                    } else {
                        text.append(c);
                    }
                }
            }
        }
        return text.append('"').toString();
    }

    /** The first {@code max} bytes as hex, 32 a line. */
    public static String hex(byte[] bytes, int max) {
        StringBuilder text = new StringBuilder();
        int n = Math.min(bytes.length, max);
        for (int i = 0; i < n; i++) {
            if (i % 32 == 0 && i > 0) {
                text.append('\n');
            }
            text.append(String.format("%02x", bytes[i] & 0xff));
        }
        if (n < bytes.length) {
            text.append("\n… (").append(bytes.length - n).append(" more bytes)");
        }
        return text.toString();
    }
}
