package io.rc10k.mashup;

/**
 * One inbound parameter a mashup reads: from the query string, or from a {@code {name}} segment of
 * the mashup's path.
 *
 * @param name         the parameter's name
 * @param required     a request without it gets 400 naming it
 * @param defaultValue used when the request omits it (null: none)
 * @param maxLength    longer values get 400
 */
public record ParameterDefinition(String name, boolean required, String defaultValue, int maxLength) {
    public static final int DEFAULT_MAX_LENGTH = 256;

    public static ParameterDefinition required(String name) {
        return new ParameterDefinition(name, true, null, DEFAULT_MAX_LENGTH);
    }

    public static ParameterDefinition optional(String name, String defaultValue) {
        return new ParameterDefinition(name, false, defaultValue, DEFAULT_MAX_LENGTH);
    }
}
