package io.rc10k.mashup;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A call's request body with {@code {parameter}} placeholders, each value escaped for the body's type:
 * inside a JSON string for {@code application/json} (the template writes the quotes), form-encoded for
 * {@code application/x-www-form-urlencoded}, as it is for any other type. Only a brace around a name is a
 * placeholder; every other brace is text, so a JSON template reads as JSON:
 *
 * <pre>{@code
 * BodyTemplate.parse("{\"city\": \"{city}\"}", "application/json").expand(Map.of("city", "Zürich \"old\""))
 * // {"city": "Zürich \"old\""}
 * }</pre>
 *
 * Immutable; {@link #expand} allocates only its result.
 */
public final class BodyTemplate {
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z][A-Za-z0-9_.-]*)}");

    private enum Escape { JSON, FORM, NONE }

    /** Literal text and names, alternating: text, name, text, …, text. */
    private final List<String> pieces;
    private final Escape escape;

    private BodyTemplate(List<String> pieces, Escape escape) {
        this.pieces = pieces;
        this.escape = escape;
    }

    public static BodyTemplate parse(String template, String contentType) {
        List<String> pieces = new ArrayList<>();
        Matcher m = PLACEHOLDER.matcher(template);
        int at = 0;
        while (m.find()) {
            pieces.add(template.substring(at, m.start()));
            pieces.add(m.group(1));
            at = m.end();
        }
        pieces.add(template.substring(at));
        String type = contentType.toLowerCase(Locale.ROOT);
        Escape escape = type.startsWith("application/json") || type.endsWith("+json") ? Escape.JSON
                : type.startsWith("application/x-www-form-urlencoded") ? Escape.FORM : Escape.NONE;
        return new BodyTemplate(List.copyOf(pieces), escape);
    }

    /** The names of its placeholders, in order (a name used twice is listed twice). */
    public List<String> variables() {
        List<String> names = new ArrayList<>();
        for (int i = 1; i < pieces.size(); i += 2) {
            names.add(pieces.get(i));
        }
        return names;
    }

    /** The body, UTF-8, each placeholder replaced by its escaped value (an absent one by nothing). */
    public byte[] expand(Map<String, String> values) {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < pieces.size(); i++) {
            if (i % 2 == 0) {
                body.append(pieces.get(i));
            } else {
                escaped(body, values.getOrDefault(pieces.get(i), ""));
            }
        }
        return body.toString().getBytes(StandardCharsets.UTF_8);
    }

    private void escaped(StringBuilder out, String value) {
        switch (escape) {
            case FORM -> out.append(URLEncoder.encode(value, StandardCharsets.UTF_8));
            case NONE -> out.append(value);
            // Jackson's own escaping of string content: quotes, backslashes and control characters.
            case JSON -> out.append(JsonStringEncoder.getInstance().quoteAsString(value));
        }
    }
}
