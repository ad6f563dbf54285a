package io.rc10k.stubs.internal;

import java.util.Arrays;
import java.util.stream.Collectors;

/** The misbehaviours a stub can show on request, chosen with {@code fault=}. */
public enum Fault {
    /** Abort the connection with a TCP RST before any byte of the response (HTTP/2: reset the stream). */
    RESET("reset"),
    /** Send the headers and half the body, then close the connection (HTTP/2: reset the stream). */
    CLOSE_MID_BODY("close-mid-body"),
    /** Send the headers, then nothing until the stall cap. */
    STALL_AFTER_HEADERS("stall-after-headers"),
    /** Send nothing at all until the stall cap. */
    STALL("stall"),
    /** A 200 with {@code Content-Type: application/json} whose body is not valid JSON. */
    MALFORMED_JSON("malformed-json"),
    /** The body a few bytes at a time, with a pause between writes. */
    DRIP("drip");

    private final String token;

    Fault(String token) {
        this.token = token;
    }

    public String token() {
        return token;
    }

    static Fault parse(String value) throws BadParameterException {
        for (Fault f : values()) {
            if (f.token.equals(value)) {
                return f;
            }
        }
        throw new BadParameterException("fault", Behaviour.abbreviate(value), "one of " + tokens());
    }

    static String tokens() {
        return Arrays.stream(values()).map(Fault::token).collect(Collectors.joining(", "));
    }
}
