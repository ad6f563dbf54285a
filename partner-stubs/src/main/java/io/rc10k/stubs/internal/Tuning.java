package io.rc10k.stubs.internal;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The query parameters that tune one misbehaviour ({@code every}, {@code bytes}), checked as they are
 * read: a value out of range, or a parameter the misbehaviour does not take, is a
 * {@link BadParameterException} naming it. Not thread-safe; one per request.
 *
 * <pre>{@code
 * Tuning tuning = new Tuning("trickle-body", query);
 * long every = tuning.number("every", 100, 1, 60_000, "milliseconds");
 * tuning.done(); // fails on any parameter not read
 * }</pre>
 */
final class Tuning {
    /** The values a misbehaviour gets when nobody asked: chaos draws and answers at accept. */
    static Tuning defaults(String token) {
        return new Tuning(token, Map.of());
    }

    private final String token;
    private final Map<String, String> query;
    private final Set<String> read = new LinkedHashSet<>();

    Tuning(String token, Map<String, String> query) {
        this.token = token;
        this.query = query;
    }

    /** The integer {@code name}, or {@code absent} when the query has none. */
    long number(String name, long absent, long min, long max, String unit) throws BadParameterException {
        read.add(name);
        String value = query.get(name);
        if (value == null) {
            return absent;
        }
        return Behaviour.integer(name, value, min, max, "an integer from " + min + " to " + max + " (" + unit + ")");
    }

    /** Fails on the first parameter that was not read: the misbehaviour does not take it. */
    void done() throws BadParameterException {
        for (Map.Entry<String, String> parameter : query.entrySet()) {
            if (!read.contains(parameter.getKey())) {
                String accepted = read.isEmpty() ? "no parameters on /" + token
                        : "only the parameters " + String.join(", ", read) + " on /" + token;
                throw new BadParameterException(Behaviour.abbreviate(parameter.getKey()),
                        Behaviour.abbreviate(parameter.getValue()), accepted);
            }
        }
    }
}
