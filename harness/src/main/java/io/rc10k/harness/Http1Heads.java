package io.rc10k.harness;

/** The little HTTP/1.1 parsing the minimal load generators need: what a response head declares. */
public final class Http1Heads {
    private Http1Heads() {
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
