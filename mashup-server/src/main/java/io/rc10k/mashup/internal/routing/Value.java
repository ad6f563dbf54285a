package io.rc10k.mashup.internal.routing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * One value of the definitions file as a field's setter sees it ({@link Fields}): already of the field's JSON type,
 * converted on request, and able to report a problem of its own where it stands in the file.
 *
 * <p>A setter may simply call a builder that throws {@link IllegalArgumentException}: {@link #attempt} reports the
 * message at the value, and with the value as written — a builder's {@code PT-0.005S} for a {@code Duration} made of
 * {@code -5}, or its {@code 2147483647} for a clamped {@code 99999999999}, reads {@code -5} and {@code 99999999999}.
 */
final class Value {
    private final JsonTree.Node node;
    private final Problems problems;
    /** How the last conversion shows this value in a builder's message, when not as written. */
    private String converted;

    Value(JsonTree.Node node, Problems problems) {
        this.node = node;
        this.problems = problems;
    }

    JsonTree.Node node() {
        return node;
    }

    /** Where this value's problems go: a value made for a node under it reports there too. */
    Problems problems() {
        return problems;
    }

    String path() {
        return node.path();
    }

    String text() {
        return node.text();
    }

    boolean bool() {
        return Boolean.parseBoolean(node.text());
    }

    double number() {
        return node.type() == JsonTree.Type.INTEGER ? node.integer() : node.number();
    }

    long longValue() {
        converted = Long.toString(node.integer());
        return node.integer();
    }

    /** For builders that take an int: values past its range become its bound, which their range checks refuse. */
    int intValue() {
        converted = asInt(node);
        return Integer.parseInt(converted);
    }

    /** The value, a number of milliseconds, as a {@code Duration}. */
    Duration millis() {
        Duration millis = Duration.ofMillis(node.integer());
        converted = millis.toString();
        return millis;
    }

    /** The value when it is {@code min} to {@code max}; else an exception that names it and the range. */
    long between(long min, long max) {
        if (node.integer() < min || node.integer() > max) {
            throw new IllegalArgumentException(node.asWritten() + " (accepted: " + min + " to " + max + ")");
        }
        return node.integer();
    }

    /** The elements, each of which must be a string; the others are reported where they stand. */
    List<String> texts() {
        List<String> texts = new ArrayList<>();
        for (JsonTree.Node element : node.elements()) {
            if (element.type() == JsonTree.Type.STRING) {
                texts.add(element.text());
            } else {
                problems.at(element, element.asWritten() + " (accepted: " + JsonTree.Type.STRING.accepted + ")");
            }
        }
        return texts;
    }

    /** Each member of this object, by name: the entries of a map such as {@code partners}. */
    void entries(BiConsumer<String, Value> each) {
        node.members().forEach((name, member) -> each.accept(name, new Value(member, problems)));
    }

    /** Each element of this array. */
    void elements(Consumer<Value> each) {
        node.elements().forEach(element -> each.accept(new Value(element, problems)));
    }

    /** Reads this value, which must be an object, into {@code draft} through {@code fields}; returns the draft. */
    <T> T read(Fields<T> fields, T draft) {
        fields.read(this, draft, problems);
        return draft;
    }

    /** A problem of this value, reported where it starts: "path: detail". */
    void problem(String detail) {
        problems.at(node, detail);
    }

    /** A problem of this value's name (its key), reported where the key starts. */
    void problemOfName(String detail) {
        problems.atKey(node, detail);
    }

    /** A value at {@code path} under this one was made up in place of one with a problem: no more problems of it. */
    void madeUp(String path) {
        problems.madeUp(path);
    }

    /** Problems reported so far in the whole file: a reader compares two counts to see if a part was clean. */
    int problemCount() {
        return problems.count();
    }

    /** Runs {@code action}; an {@link IllegalArgumentException} it throws becomes a problem of this value. */
    void attempt(Runnable action) {
        try {
            action.run();
        } catch (IllegalArgumentException e) {
            problem(detail(e.getMessage()));
        }
    }

    /** As {@link #attempt}, the problem being one of this value's name. */
    void attemptName(Runnable action) {
        try {
            action.run();
        } catch (IllegalArgumentException e) {
            problemOfName(detail(e.getMessage()));
        }
    }

    /**
     * A builder's message without its own location ({@code weather.connectTimeout: }, {@code protocol: }: the
     * problem's path replaces it) and with the value as written in place of the builder's rendering of it.
     */
    private String detail(String message) {
        int colon = message.indexOf(": ");
        String detail = colon > 0 && message.substring(0, colon).indexOf(' ') < 0 ? message.substring(colon + 2)
                : message;
        return converted == null ? detail : asWritten(detail, converted, node);
    }

    /** {@code detail} with the value as written in place of {@code rendered}, when it begins with that. */
    static String asWritten(String detail, String rendered, JsonTree.Node node) {
        boolean begins = detail.startsWith(rendered) && (detail.length() == rendered.length()
                || detail.charAt(rendered.length()) == ' ');
        return begins ? node.asWritten() + detail.substring(rendered.length()) : detail;
    }

    /** How a builder that takes an int shows this integer: clamped to the int range. */
    static String asInt(JsonTree.Node node) {
        return Integer.toString((int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, node.integer())));
    }
}
