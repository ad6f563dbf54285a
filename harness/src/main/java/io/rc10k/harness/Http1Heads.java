package io.rc10k.harness;

/** The little HTTP/1.1 parsing the minimal load generators need: what a response head declares. */
public final class Http1Heads {
    private Http1Heads() {
    }

    /** The {@code Content-Length} a response head declares, or -1 when it declares none. */
    public static long contentLength(String head) {
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("Content-Length")) {
                return Long.parseLong(line.substring(colon + 1).trim());
            }
        }
        return -1;
    }
}
