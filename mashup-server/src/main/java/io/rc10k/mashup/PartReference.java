package io.rc10k.mashup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.broker.Outcome;
import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A template placeholder that takes its value from an earlier part's JSON body — a chained call:
 * {@code {weather.body.city}} or {@code {search.body.hotels.0.id}}: the part's name, {@code body}, then
 * field names and array indexes separated by dots. The value must be a string, number or boolean; it is
 * percent-encoded like any inbound value, so a partner's answer cannot steer a call anywhere else.
 *
 * <pre>{@code
 * PartReference city = PartReference.parse("weather.body.city");   // part "weather", pointer "/city"
 * String value = city.valueIn(weather);                             // weather: that part's Outcome
 * }</pre>
 *
 * @param variable the placeholder as written, e.g. {@code weather.body.city}
 * @param part     the part it reads, e.g. {@code weather}
 * @param pointer  where in that part's body, as a JSON pointer, e.g. {@code /city}
 */
public record PartReference(String variable, String part, String pointer) {
    private static final Pattern SYNTAX = Pattern.compile("([A-Za-z][A-Za-z0-9_-]{0,63})\\.body((?:\\.[A-Za-z0-9_-]+)+)");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The reference a placeholder makes, or null when it is not of the {@code part.body.field} form. */
    public static PartReference parse(String variable) {
        Matcher m = SYNTAX.matcher(variable);
        return m.matches() ? new PartReference(variable, m.group(1), m.group(2).replace('.', '/')) : null;
    }

    /** The value in the part's answer; {@link IllegalArgumentException} saying why there is none. */
    public String valueIn(Outcome outcome) {
        if (outcome.kind() != Outcome.Kind.OK) {
            throw new IllegalArgumentException("{" + variable + "}: part " + part + " ended " + outcome.kind().label());
        }
        JsonNode value;
        try {
            value = JSON.readTree(outcome.bodyStream()).at(pointer);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("{" + variable + "}: part " + part + " did not answer JSON");
        }
        if (value == null || value.isMissingNode() || value.isNull() || value.isContainerNode()) {
            throw new IllegalArgumentException("{" + variable + "}: part " + part + "'s body has no "
                    + (value != null && value.isContainerNode() ? "single value" : "value") + " at " + pointer);
        }
        return value.asText();
    }
}
