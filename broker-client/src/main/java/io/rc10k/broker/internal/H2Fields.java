package io.rc10k.broker.internal;

import java.util.List;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;

/**
 * A call's request fields as the h2c wire may send them: what HTTP/2 forbids in a field (RFC 9113 §8.2.1:
 * control characters, and in names spaces and colons; names go lower case) replaced as the HTTP/1.1 wire does
 * (Http1Call), so that no caller's field can fail the HPACK encoder halfway; and the size a partner's
 * {@code SETTINGS_MAX_HEADER_LIST_SIZE} is checked against; and the checks of a response's fields HTTP/2 adds.
 *
 * <p>Stateless; thread-safe.</p>
 */
final class H2Fields {
    private H2Fields() {
    }

    /** {@code headers} when every field may go as it is (the common case, no copy), else a cleaned copy. */
    static HttpFields sendable(HttpFields headers) {
        if (headers == null) {
            return HttpFields.EMPTY;
        }
        boolean clean = true;
        for (HttpField field : headers) {
            clean &= isClean(field.getName(), true) && isClean(field.getValue(), false);
        }
        if (clean) {
            return headers;
        }
        HttpFields.Mutable cleaned = HttpFields.build(headers.size());
        for (HttpField field : headers) {
            cleaned.add(clean(field.getName(), true), clean(field.getValue(), false));
        }
        return cleaned;
    }

    /** The header list's size as HPACK counts it: each field's name and value, plus 32 (RFC 7541 §4.1). */
    static long listSize(H2cCall call, HttpFields fields) {
        long size = 4 * 32 + ":method".length() + call.method.length() + ":scheme".length() + 4
                + ":authority".length() + call.uri.getRawAuthority().length()
                + ":path".length() + call.uri.getRawPath().length()
                + (call.uri.getRawQuery() == null ? 0 : 1 + call.uri.getRawQuery().length());
        for (HttpField field : fields) {
            size += 32 + field.getName().length() + (field.getValue() == null ? 0 : field.getValue().length());
        }
        return size;
    }

    /**
     * What a final response's fields break of HTTP/2, or null: a connection-specific field (RFC 9113 §8.2.2), or a
     * Content-Length other than one number.
     */
    static String wrongInResponse(HttpFields fields) {
        for (HttpField field : fields) {
            HttpHeader header = field.getHeader();
            if (header == HttpHeader.CONNECTION || header == HttpHeader.KEEP_ALIVE || header == HttpHeader.PROXY_CONNECTION
                    || header == HttpHeader.TRANSFER_ENCODING || header == HttpHeader.UPGRADE
                    || (header == HttpHeader.TE && !"trailers".equalsIgnoreCase(field.getValue()))) {
                return "a connection-specific field (" + field.getName() + "), which HTTP/2 forbids";
            }
        }
        List<String> lengths = fields.getValuesList(HttpHeader.CONTENT_LENGTH);
        return lengths.size() > 1 || declaredLength(fields) < -1 ? "Content-Length " + lengths : null;
    }

    /** The body length a response declares: -1 without a Content-Length, -2 when its value is not digits. */
    static long declaredLength(HttpFields fields) {
        String value = fields.get(HttpHeader.CONTENT_LENGTH);
        if (value == null) {
            return -1;
        }
        if (value.isEmpty() || value.length() > 18) {
            return -2;
        }
        long length = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return -2;
            }
            length = length * 10 + (c - '0');
        }
        return length;
    }

    private static boolean isClean(String text, boolean name) {
        if (text == null) {
            return !name;
        }
        for (int i = 0; i < text.length(); i++) {
            if (isBad(text.charAt(i), name)) {
                return false;
            }
        }
        return !name || !text.isEmpty();
    }

    private static boolean isBad(char c, boolean name) {
        // A tab too: HTTP allows it in a value, Jetty's HPACK encoder does not.
        return c < 0x20 || c == 0x7f || c > 0xff || (name && (c == ':' || c == ' '));
    }

    private static String clean(String text, boolean name) {
        if (text == null || text.isEmpty()) {
            return name ? "?" : "";
        }
        StringBuilder cleaned = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            cleaned.append(isBad(c, name) ? (name ? '?' : ' ') : c);
        }
        return cleaned.toString();
    }
}
