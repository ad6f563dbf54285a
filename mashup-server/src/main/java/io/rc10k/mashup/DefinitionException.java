package io.rc10k.mashup;

import java.util.List;

/**
 * Definitions that cannot be served, with every problem found — each names its location, the value
 * and what would be accepted, e.g. {@code mashups.travel.calls[1].partner: unknown partner "hotel"
 * (known: weather, hotels)}.
 */
public final class DefinitionException extends Exception {
    private final List<String> problems;

    public DefinitionException(List<String> problems) {
        super(problems.size() + " problem(s) in the definitions:" + System.lineSeparator() + "  "
                + String.join(System.lineSeparator() + "  ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
