package io.rc10k.harness;

/** The little HTTP/1.1 parsing the minimal load generators need: what a response head declares. */
public final class Http1Heads {
    private Http1Heads() {
    }

    /**
     * Where the head in {@code bytes[0, limit)} ends: the index of the blank line's {@code \r\n\r\n}, or -1 while
     * the head is not all there.
     */
    public static int endOfHead(byte[] bytes, int limit) {
        for (int i = 3; i < limit; i++) {
            if (bytes[i] == '\n' && bytes[i - 1] == '\r' && bytes[i - 2] == '\n' && bytes[i - 3] == '\r') {
                return i - 3;
            }
        }
        return -1;
    }

    /** The {@code Content-Length} a response head declares, or -1 when it declares none. */
    public static long contentLength(String head) {
        String value = header(head, "Content-Length");
        return value == null ? -1 : Long.parseLong(value);
    }

    /** The value of the first header {@code name} (case-insensitive) in a response head, trimmed; null when absent. */
    public static String header(String head, String name) {
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                return line.substring(colon + 1).trim();
            }
        }
        return null;
    }
}
