package io.rc10k.mashup.internal.routing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.broker.Caching;
import io.rc10k.broker.CallOptions;
import io.rc10k.broker.Hedging;
import io.rc10k.broker.Partner;
import io.rc10k.mashup.CallDefinition;
import io.rc10k.mashup.DefinitionException;
import io.rc10k.mashup.Definitions;
import io.rc10k.mashup.MashupDefinition;
import io.rc10k.mashup.ParameterDefinition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Loads {@link Definitions} from JSON (format in docs/mashup-server.md). Every problem — a wrong type,
 * an unknown field, a bad value — is collected with its location; nothing is built half-way.
 */
public final class DefinitionsJson {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> TOP = Set.of("partners", "mashups");
    private static final Set<String> PARTNER = Set.of("baseUri", "protocol", "maxConnections", "maxQueued",
            "maxStreamsPerConnection", "connectTimeoutMillis", "callTimeoutMillis", "maxResponseBytes", "retries",
            "circuitBreaker", "cacheMaxEntries", "cacheMaxBytes");
    private static final Set<String> BREAKER = Set.of("enabled", "consecutiveFailures", "failureRatio", "minimumCalls",
            "window", "coolDownMillis");
    private static final Set<String> MASHUP = Set.of("path", "deadlineMillis", "parameters", "calls");
    private static final Set<String> PARAMETER = Set.of("required", "default", "maxLength");
    private static final Set<String> CALL = Set.of("name", "partner", "template", "forwardHeaders", "required",
            "hedgeAfterMillis", "maxHedges", "cacheSeconds");

    private DefinitionsJson() {
    }

    public static Definitions load(Path file) throws DefinitionException {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new DefinitionException(List.of(file + ": cannot be read (" + e + ")"));
        }
        return parse(text, file.toString());
    }

    public static Definitions parse(String text, String source) throws DefinitionException {
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new DefinitionException(List.of(source + ": not valid JSON at line "
                    + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + " ("
                    + e.getOriginalMessage() + ")"));
        }
        Definitions.Builder builder = Definitions.builder();
        List<String> problems = new ArrayList<>();
        if (root == null || !root.isObject()) {
            throw new DefinitionException(List.of(source + ": the top level must be an object with \"partners\" and "
                    + "\"mashups\""));
        }
        unknownFields(root, TOP, "", problems);
        forEachField(object(root, "partners", "partners", problems), (name, node) -> {
            builder.declarePartner(name);
            partner(name, node, problems).ifPresent(builder::partner);
        });
        forEachField(object(root, "mashups", "mashups", problems),
                (name, node) -> builder.mashup(mashup(name, node, problems)));
        problems.forEach(builder::problem);
        return builder.build();
    }

    private static Optional<Partner> partner(String name, JsonNode node, List<String> problems) {
        String at = "partners." + name;
        if (!node.isObject()) {
            problems.add(at + ": must be an object");
            return Optional.empty();
        }
        unknownFields(node, PARTNER, at + ".", problems);
        String baseUri = text(node, "baseUri", at, problems, true);
        if (baseUri == null) {
            return Optional.empty();
        }
        int before = problems.size();
        Partner.Builder b;
        try {
            b = Partner.builder(name, baseUri);
        } catch (IllegalArgumentException e) {
            problems.add("partners." + e.getMessage());
            return Optional.empty();
        }
        apply(at, problems, () -> {
            String protocol = text(node, "protocol", at, problems, false);
            if (protocol != null) {
                b.protocol(Partner.Protocol.parse(protocol));
            }
        }, "protocol");
        integer(node, "maxConnections", at, problems, v -> b.maxConnections(clamp(v)));
        integer(node, "maxQueued", at, problems, v -> b.maxQueued(clamp(v)));
        integer(node, "maxStreamsPerConnection", at, problems, v -> b.maxStreamsPerConnection(clamp(v)));
        integer(node, "connectTimeoutMillis", at, problems, v -> b.connectTimeout(Duration.ofMillis(v)));
        integer(node, "callTimeoutMillis", at, problems, v -> b.callTimeout(Duration.ofMillis(v)));
        integer(node, "maxResponseBytes", at, problems, b::maxResponseBytes);
        integer(node, "retries", at, problems, v -> b.retries(clamp(v)));
        integer(node, "cacheMaxEntries", at, problems, b::cacheMaxEntries);
        integer(node, "cacheMaxBytes", at, problems, b::cacheMaxBytes);
        circuitBreaker(node.get("circuitBreaker"), at + ".circuitBreaker", problems).ifPresent(b::circuitBreaker);
        return problems.size() == before ? Optional.of(b.build()) : Optional.empty();
    }

    private static Optional<Partner.CircuitBreakerSettings> circuitBreaker(JsonNode node, String at,
            List<String> problems) {
        if (node == null) {
            return Optional.empty();
        }
        if (!node.isObject()) {
            problems.add(at + ": must be an object such as {\"consecutiveFailures\": 10, \"coolDownMillis\": 5000}");
            return Optional.empty();
        }
        unknownFields(node, BREAKER, at + ".", problems);
        Partner.CircuitBreakerSettings d = Partner.CircuitBreakerSettings.DEFAULT;
        JsonNode enabled = node.get("enabled");
        if (enabled != null && !enabled.isBoolean()) {
            problems.add(at + ".enabled: " + enabled + " (accepted: true or false)");
        }
        long[] consecutive = {d.consecutiveFailures()};
        long[] minimum = {d.minimumCalls()};
        long[] window = {d.window()};
        long[] coolDown = {d.coolDown().toMillis()};
        integer(node, "consecutiveFailures", at, problems, v -> consecutive[0] = v);
        integer(node, "minimumCalls", at, problems, v -> minimum[0] = v);
        integer(node, "window", at, problems, v -> window[0] = v);
        integer(node, "coolDownMillis", at, problems, v -> coolDown[0] = v);
        double ratio = d.failureRatio();
        JsonNode ratioNode = node.get("failureRatio");
        if (ratioNode != null) {
            if (!ratioNode.isNumber()) {
                problems.add(at + ".failureRatio: " + ratioNode + " (accepted: a number above 0, at most 1)");
            } else {
                ratio = ratioNode.asDouble();
            }
        }
        try {
            return Optional.of(new Partner.CircuitBreakerSettings(enabled == null || enabled.asBoolean(),
                    clamp(consecutive[0]), ratio, clamp(minimum[0]), clamp(window[0]),
                    Duration.ofMillis(Math.max(0, coolDown[0]))));
        } catch (IllegalArgumentException e) {
            problems.add(at + ": " + e.getMessage().substring(e.getMessage().indexOf(": ") + 2));
            return Optional.empty();
        }
    }

    private static MashupDefinition mashup(String name, JsonNode node, List<String> problems) {
        String at = "mashups." + name;
        MashupDefinition.Builder b = MashupDefinition.builder(name);
        if (!node.isObject()) {
            problems.add(at + ": must be an object");
            return b.build();
        }
        unknownFields(node, MASHUP, at + ".", problems);
        String path = text(node, "path", at, problems, false);
        if (path != null) {
            b.path(path);
        }
        integer(node, "deadlineMillis", at, problems, v -> b.deadline(Duration.ofMillis(v)));
        forEachField(object(node, "parameters", at + ".parameters", problems), (pname, pnode) -> {
            String pat = at + ".parameters." + pname;
            if (!pnode.isObject()) {
                problems.add(pat + ": must be an object such as {\"required\": true} or {\"default\": \"3\"}");
                return;
            }
            unknownFields(pnode, PARAMETER, pat + ".", problems);
            JsonNode required = pnode.get("required");
            if (required != null && !required.isBoolean()) {
                problems.add(pat + ".required: " + required + " (accepted: true or false)");
            }
            String dflt = text(pnode, "default", pat, problems, false);
            long[] maxLength = {ParameterDefinition.DEFAULT_MAX_LENGTH};
            integer(pnode, "maxLength", pat, problems, v -> maxLength[0] = v);
            b.parameter(new ParameterDefinition(pname, required != null && required.asBoolean(), dflt,
                    (int) Math.min(Integer.MAX_VALUE, maxLength[0])));
        });
        JsonNode calls = node.get("calls");
        if (calls == null || !calls.isArray()) {
            problems.add(at + ".calls: " + (calls == null ? "missing" : calls.getNodeType().toString().toLowerCase())
                    + " (accepted: an array of {\"partner\", \"template\"} objects)");
            return b.build();
        }
        for (int i = 0; i < calls.size(); i++) {
            JsonNode call = calls.get(i);
            String cat = at + ".calls[" + i + "]";
            if (!call.isObject()) {
                problems.add(cat + ": must be an object with \"partner\" and \"template\"");
                continue;
            }
            unknownFields(call, CALL, cat + ".", problems);
            String partner = text(call, "partner", cat, problems, true);
            String template = text(call, "template", cat, problems, true);
            String callName = text(call, "name", cat, problems, false);
            List<String> headers = new ArrayList<>();
            JsonNode forward = call.get("forwardHeaders");
            if (forward != null) {
                if (!forward.isArray()) {
                    problems.add(cat + ".forwardHeaders: must be an array of header names");
                } else {
                    forward.forEach(h -> headers.add(h.asText()));
                }
            }
            JsonNode required = call.get("required");
            if (required != null && !required.isBoolean()) {
                problems.add(cat + ".required: " + required + " (accepted: true or false)");
            }
            CallOptions options = CallOptions.NONE.withRequired(required != null && required.asBoolean())
                    .withHedging(hedging(call, cat, problems))
                    .withCaching(caching(call, cat, problems));
            if (partner != null && template != null) {
                b.call(new CallDefinition(callName != null ? callName : partner, partner, template, headers, options));
            }
        }
        return b.build();
    }

    /** A call's {@code cacheSeconds}, or null when it is not cached. */
    private static Caching caching(JsonNode call, String at, List<String> problems) {
        long[] seconds = {0};
        integer(call, "cacheSeconds", at, problems, v -> seconds[0] = v);
        if (call.get("cacheSeconds") == null || !call.get("cacheSeconds").isIntegralNumber()) {
            return null;
        }
        if (seconds[0] < 1 || seconds[0] > 86_400) {
            problems.add(at + ".cacheSeconds: " + seconds[0] + " (accepted: 1 to 86400)");
            return null;
        }
        return new Caching(Duration.ofSeconds(seconds[0]));
    }

    /** A call's {@code hedgeAfterMillis} and {@code maxHedges}, or null when it is not hedged. */
    private static Hedging hedging(JsonNode call, String at, List<String> problems) {
        long[] after = {0};
        long[] max = {1};
        integer(call, "hedgeAfterMillis", at, problems, v -> after[0] = v);
        integer(call, "maxHedges", at, problems, v -> max[0] = v);
        if (call.get("hedgeAfterMillis") == null) {
            if (call.get("maxHedges") != null) {
                problems.add(at + ".maxHedges: only with hedgeAfterMillis");
            }
            return null;
        }
        if (after[0] < 1 || after[0] > 60_000) {
            problems.add(at + ".hedgeAfterMillis: " + after[0] + " (accepted: 1 to 60000)");
            return null;
        }
        if (max[0] < 1 || max[0] > Hedging.MAX_EXTRA) {
            problems.add(at + ".maxHedges: " + max[0] + " (accepted: 1 to " + Hedging.MAX_EXTRA + ")");
            return null;
        }
        return new Hedging(Duration.ofMillis(after[0]), (int) max[0]);
    }

    /** Out-of-range longs become out-of-range ints, so the builder's range check still names them. */
    private static int clamp(long v) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }

    private static void apply(String at, List<String> problems, Runnable action, String field) {
        try {
            action.run();
        } catch (IllegalArgumentException e) {
            problems.add(at + "." + field + ": " + e.getMessage());
        }
    }

    private static JsonNode object(JsonNode node, String field, String at, List<String> problems) {
        JsonNode value = node.get(field);
        if (value == null) {
            return null;
        }
        if (!value.isObject()) {
            problems.add(at + ": must be an object");
            return null;
        }
        return value;
    }

    private static void forEachField(JsonNode node, BiConsumer<String, JsonNode> action) {
        if (node == null) {
            return;
        }
        Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            action.accept(field.getKey(), field.getValue());
        }
    }

    private static void unknownFields(JsonNode node, Set<String> known, String at, List<String> problems) {
        node.fieldNames().forEachRemaining(name -> {
            if (!known.contains(name)) {
                problems.add(at + name + ": unknown field (known: " + String.join(", ", known.stream().sorted()
                        .toList()) + ")");
            }
        });
    }

    private static String text(JsonNode node, String field, String at, List<String> problems, boolean required) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            if (required) {
                problems.add(at + "." + field + ": missing (required)");
            }
            return null;
        }
        if (!value.isTextual()) {
            problems.add(at + "." + field + ": " + value + " (accepted: a string)");
            return null;
        }
        return value.asText();
    }

    private static void integer(JsonNode node, String field, String at, List<String> problems, Consumer<Long> set) {
        JsonNode value = node.get(field);
        if (value == null) {
            return;
        }
        if (!value.isIntegralNumber()) {
            problems.add(at + "." + field + ": " + value + " (accepted: an integer)");
            return;
        }
        try {
            set.accept(value.asLong());
        } catch (IllegalArgumentException e) {
            // Partner's builder names "<partner>.<field>: value (accepted ...)"; keep only what follows the field.
            String message = e.getMessage();
            int colon = message.indexOf(": ");
            problems.add(at + "." + field + ": " + (colon >= 0 ? message.substring(colon + 2) : message));
        }
    }
}
