package io.rc10k.mashup;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A call's path-and-query template, such as {@code /weather?city={city}&days={days}}. Placeholders
 * may stand in path segments and query values only; the template itself fixes everything else, and
 * the scheme, host and port come from the partner. Every value is percent-encoded: only RFC 3986
 * unreserved characters pass as they are, so a value cannot add a segment, a parameter, a fragment
 * or a line. Immutable and thread-safe.
 */
public final class UriTemplate {
    private static final String LITERAL_PATH = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/%";
    private static final String LITERAL_QUERY = LITERAL_PATH + "?";
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /** Literal text, or a variable; {@code inQuery}: it sits in the query (a path variable may not be a dot segment). */
    private record Piece(String literal, String variable, boolean inQuery) {
    }

    private final String text;
    private final List<Piece> pieces;
    private final Set<String> variables;

    private UriTemplate(String text, List<Piece> pieces, Set<String> variables) {
        this.text = text;
        this.pieces = pieces;
        this.variables = variables;
    }

    /** Parses a template; the exception says what is wrong and where. */
    public static UriTemplate parse(String template) {
        if (template == null || template.isEmpty()) {
            throw new IllegalArgumentException("empty template (accepted: a path and query such as /weather?city={city})");
        }
        if (!template.startsWith("/") || template.startsWith("//") || template.contains("#")) {
            throw new IllegalArgumentException("\"" + template + "\" must be a path starting with a single /, without"
                    + " scheme, host or fragment (e.g. /weather?city={city})");
        }
        int query = template.indexOf('?');
        List<Piece> pieces = new ArrayList<>();
        Set<String> variables = new LinkedHashSet<>();
        int i = 0;
        while (i < template.length()) {
            int open = template.indexOf('{', i);
            int end = open < 0 ? template.length() : open;
            if (end > i) {
                String literal = template.substring(i, end);
                checkLiteral(template, literal, query >= 0 && i > query);
                pieces.add(new Piece(literal, null, query >= 0 && i > query));
            }
            if (open < 0) {
                break;
            }
            int close = template.indexOf('}', open);
            if (close < 0) {
                throw new IllegalArgumentException("\"" + template + "\": '{' at " + open + " is never closed");
            }
            String name = template.substring(open + 1, close);
            if (!name.matches("[A-Za-z][A-Za-z0-9_.-]*")) {
                throw new IllegalArgumentException("\"" + template + "\": {" + name + "} is not a parameter name");
            }
            boolean inQuery = query >= 0 && open > query;
            if (inQuery) {
                // A query placeholder must be (part of) a value: the nearest '=' after the last '&' or '?'.
                int pairStart = Math.max(template.lastIndexOf('&', open), query);
                int eq = template.indexOf('=', pairStart);
                if (eq < 0 || eq > open) {
                    throw new IllegalArgumentException("\"" + template + "\": {" + name + "} stands in a query name;"
                            + " placeholders may fill path segments and query values only");
                }
            }
            pieces.add(new Piece(null, name, inQuery));
            variables.add(name);
            i = close + 1;
        }
        return new UriTemplate(template, List.copyOf(pieces), Set.copyOf(variables));
    }

    private static void checkLiteral(String template, String literal, boolean inQuery) {
        String allowed = inQuery ? LITERAL_QUERY : LITERAL_PATH + "?";
        for (int k = 0; k < literal.length(); k++) {
            char c = literal.charAt(k);
            if (c == '}' || allowed.indexOf(c) < 0) {
                throw new IllegalArgumentException("\"" + template + "\": character '" + c + "' must be percent-encoded");
            }
        }
        if (literal.contains("/../") || literal.contains("/./") || literal.endsWith("/..")) {
            throw new IllegalArgumentException("\"" + template + "\": dot segments are not allowed");
        }
    }

    public Set<String> variables() {
        return variables;
    }

    /** The variables that fill path segments (where {@code .} and {@code ..} would be dot segments). */
    public Set<String> pathVariables() {
        Set<String> names = new LinkedHashSet<>();
        for (Piece piece : pieces) {
            if (piece.variable() != null && !piece.inQuery()) {
                names.add(piece.variable());
            }
        }
        return names;
    }

    /** Fills the placeholders; every value is percent-encoded (UTF-8). */
    public String expand(Map<String, String> values) {
        StringBuilder out = new StringBuilder(text.length() + 32);
        for (Piece piece : pieces) {
            if (piece.literal() != null) {
                out.append(piece.literal());
            } else {
                String value = values.get(piece.variable());
                if (value == null) {
                    throw new IllegalArgumentException("no value for {" + piece.variable() + "}");
                }
                encode(value, out);
            }
        }
        return out.toString();
    }

    static void encode(String value, StringBuilder out) {
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
                    || c == '_' || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
    }

    @Override
    public String toString() {
        return text;
    }
}
