package io.rc10k.stubs.internal;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The parts of a request head the hostile partner acts on: the path, the query, whether the client
 * wants the connection closed, and whether a body follows (which it refuses). Immutable.
 *
 * <pre>{@code
 * RequestHead head = RequestHead.parse("GET /trickle-body?every=5 HTTP/1.1\r\nHost: x\r\n\r\n");
 * head.path();            // "/trickle-body"
 * head.query().get("every"); // "5"
 * }</pre>
 */
record RequestHead(String path, String rawQuery, boolean close, boolean hasBody) {

    /** Thrown for a head that is not an HTTP/1.x request; the message says what was wrong. */
    static final class NotHttpException extends Exception {
        NotHttpException(String message) {
            super(message);
        }
    }

    /** The path of a request line ({@code GET /x?y HTTP/1.1}), or null when the line is not one. */
    static String pathOf(String requestLine) {
        String[] parts = requestLine.split(" ", -1);
        if (parts.length != 3 || !parts[2].startsWith("HTTP/1.")) {
            return null;
        }
        String target = parts[1];
        if (target.startsWith("http://")) {
            int slash = target.indexOf('/', "http://".length());
            target = slash < 0 ? "/" : target.substring(slash);
        }
        if (!target.startsWith("/")) {
            return null;
        }
        int query = target.indexOf('?');
        return query < 0 ? target : target.substring(0, query);
    }

    /** {@code head}: ISO-8859-1 text from the request line to the blank line, inclusive. */
    static RequestHead parse(String head) throws NotHttpException {
        String[] lines = head.split("\r?\n");
        String requestLine = lines[0];
        String path = pathOf(requestLine);
        if (path == null) {
            throw new NotHttpException("not an HTTP/1.x request line: " + Behaviour.abbreviate(requestLine));
        }
        String target = requestLine.split(" ")[1];
        int q = target.indexOf('?');
        String rawQuery = q < 0 ? "" : target.substring(q + 1);
        boolean close = requestLine.endsWith("HTTP/1.0");
        boolean hasBody = false;
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = lines[i].substring(colon + 1).trim().toLowerCase(Locale.ROOT);
            switch (name) {
                case "connection" -> close = value.contains("close") || (close && !value.contains("keep-alive"));
                case "content-length" -> hasBody |= !value.equals("0");
                case "transfer-encoding" -> hasBody = true;
                default -> {
                }
            }
        }
        return new RequestHead(path, rawQuery, close, hasBody);
    }

    /** The query's parameters, percent-decoded; the last of a repeated name wins. */
    Map<String, String> query() throws BadParameterException {
        Map<String, String> parameters = new LinkedHashMap<>();
        if (rawQuery.isEmpty()) {
            return parameters;
        }
        try {
            for (String pair : rawQuery.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                parameters.put(name, value);
            }
        } catch (IllegalArgumentException e) {
            throw new BadParameterException("query", Behaviour.abbreviate(rawQuery),
                    "percent-encoded name=value pairs");
        }
        return parameters;
    }
}
