package io.rc10k.mashup;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One mashup: the path it answers on, its deadline, its parameters and its calls. Immutable; the
 * builder collects, {@link Definitions.Builder#build()} validates.
 *
 * <pre>{@code
 * MashupDefinition travel = MashupDefinition.builder("travel")
 *         .deadline(Duration.ofSeconds(2))
 *         .parameter(ParameterDefinition.required("city"))
 *         .call("weather", "weather", "/weather?city={city}")
 *         .call("hotels", "hotels", "/hotels?city={city}")
 *         .build();
 * }</pre>
 */
public final class MashupDefinition {
    public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(5);

    private final String name;
    private final String path;
    private final Duration deadline;
    private final Map<String, ParameterDefinition> parameters;
    private final List<CallDefinition> calls;

    private MashupDefinition(Builder b) {
        this.name = b.name;
        this.path = b.path != null ? b.path : "/mashup/" + b.name;
        this.deadline = b.deadline;
        this.parameters = Map.copyOf(b.parameters);
        this.calls = List.copyOf(b.calls);
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    /** {@code /mashup/<name>} unless set; may hold {@code {parameter}} segments. */
    public String path() {
        return path;
    }

    public Duration deadline() {
        return deadline;
    }

    public Map<String, ParameterDefinition> parameters() {
        return parameters;
    }

    public List<CallDefinition> calls() {
        return calls;
    }

    public static final class Builder {
        private final String name;
        private String path;
        private Duration deadline = DEFAULT_DEADLINE;
        private final Map<String, ParameterDefinition> parameters = new LinkedHashMap<>();
        private final List<CallDefinition> calls = new ArrayList<>();

        private Builder(String name) {
            this.name = name;
        }

        public Builder path(String path) {
            this.path = path;
            return this;
        }

        public Builder deadline(Duration deadline) {
            this.deadline = deadline;
            return this;
        }

        public Builder parameter(ParameterDefinition parameter) {
            parameters.put(parameter.name(), parameter);
            return this;
        }

        public Builder call(String name, String partner, String template) {
            return call(new CallDefinition(name, partner, template, List.of()));
        }

        public Builder call(CallDefinition call) {
            calls.add(call);
            return this;
        }

        public MashupDefinition build() {
            return new MashupDefinition(this);
        }
    }
}
