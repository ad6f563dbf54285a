package io.rc10k.stubs.internal;

/** A query parameter the stub will not act on; becomes a 400 whose JSON body names all three parts. */
public final class BadParameterException extends Exception {
    private final String parameter;
    private final String value;
    private final String accepted;

    public BadParameterException(String parameter, String value, String accepted) {
        super(parameter + "=" + value + ": accepted " + accepted);
        this.parameter = parameter;
        this.value = value;
        this.accepted = accepted;
    }

    public String parameter() {
        return parameter;
    }

    public String value() {
        return value;
    }

    public String accepted() {
        return accepted;
    }

    public String toJson() {
        return "{\"error\":\"bad parameter\",\"parameter\":" + Json.quote(parameter) + ",\"value\":"
                + (value == null ? "null" : Json.quote(value)) + ",\"accepted\":" + Json.quote(accepted) + "}";
    }
}
