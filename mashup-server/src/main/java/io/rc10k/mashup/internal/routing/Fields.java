package io.rc10k.mashup.internal.routing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The fields of one kind of object in the definitions file, declared once: each field's name, its JSON type, whether
 * it is required, and what its value sets in a draft {@code T}. An object is read through its declaration, so a field
 * is accepted exactly when it is declared; {@code DefinitionsSchemaTest} holds every declaration against
 * docs/definitions.schema.json ({@link #declared()}).
 *
 * <pre>{@code
 * static final Fields<Partner.Builder> PARTNER = new Fields<Partner.Builder>("partner")
 *         .field("retries", Type.INTEGER, (b, v) -> b.retries(v.intValue()));
 * }</pre>
 *
 * <p>Reading an object checks every field and reports every problem: a missing required field, a value of the wrong
 * type, an exception of the setter (a builder refusing the value, reported at the value with the value as written),
 * and each unknown field. Setters run in the order of declaration, whatever the order in the file, so a field that
 * others depend on is declared first.
 *
 * @param <T> what the fields are read into
 */
public final class Fields<T> {
    private final String kind;
    private final Map<String, Field<T>> fields = new LinkedHashMap<>();

    /**
     * One declared field, as the schema test sees it.
     *
     * @param name     the key in the file
     * @param type     its JSON type as JSON Schema names it: {@code integer}, {@code string}, {@code object}…
     * @param required whether an object without it is a problem
     */
    public record Declared(String name, String type, boolean required) {
    }

    private record Field<T>(String name, JsonTree.Type type, boolean required, BiConsumer<T, Value> set) {
    }

    /** @param kind the kind of object, as the schema's {@code $defs} names it: {@code partner}, {@code call}… */
    Fields(String kind) {
        this.kind = kind;
    }

    /** An optional field: when present, a value of {@code type} is handed to {@code set}. */
    Fields<T> field(String name, JsonTree.Type type, BiConsumer<T, Value> set) {
        return add(new Field<>(name, type, false, set));
    }

    /** A required field: an object without it is a problem. */
    Fields<T> required(String name, JsonTree.Type type, BiConsumer<T, Value> set) {
        return add(new Field<>(name, type, true, set));
    }

    private Fields<T> add(Field<T> field) {
        if (fields.putIfAbsent(field.name(), field) != null) {
            throw new IllegalStateException(kind + "." + field.name() + " declared twice");
        }
        return this;
    }

    public String kind() {
        return kind;
    }

    /** Every field, in the order of declaration. */
    public List<Declared> declared() {
        List<Declared> declared = new ArrayList<>();
        fields.values().forEach(f -> declared.add(new Declared(f.name(), f.type().schemaName(), f.required())));
        return declared;
    }

    /** Reads {@code object} (reported when it is not one) into {@code draft}. */
    void read(Value object, T draft, Problems problems) {
        JsonTree.Node node = object.node();
        if (node.type() != JsonTree.Type.OBJECT) {
            object.problem(node.asWritten() + " (accepted: " + JsonTree.Type.OBJECT.accepted + ")");
            return;
        }
        for (Field<T> field : fields.values()) {
            JsonTree.Node member = node.members().get(field.name());
            if (member == null) {
                if (field.required()) {
                    problems.add(node.line(), node.column(), JsonTree.member(node.path(), field.name()),
                            "missing (required)");
                }
                continue;
            }
            Value value = new Value(member, problems);
            if (!field.type().accepts(member.type())) {
                value.problem(member.asWritten() + " (accepted: " + field.type().accepted + ")");
                continue;
            }
            value.attempt(() -> field.set().accept(draft, value));
        }
        node.members().forEach((name, member) -> {
            if (!fields.containsKey(name)) {
                problems.atKey(member, "unknown field (known: " + String.join(", ", fields.keySet().stream().sorted()
                        .toList()) + ")");
            }
        });
    }
}
