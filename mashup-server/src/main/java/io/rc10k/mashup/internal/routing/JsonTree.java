package io.rc10k.mashup.internal.routing;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A JSON document as written: each value with its path in the definitions' notation
 * ({@code mashups.travel.calls[1].partner}), where it starts in the text, and numbers as they were written
 * ({@code -5}, {@code 1.0}). Jackson's own tree keeps neither positions nor the text of a number, and lets the last of
 * two equal keys win; here a key that appears twice in one object is a problem, and the first value stays.
 *
 * <pre>{@code
 * JsonTree tree = JsonTree.read("{\"a\": [1, 2]}", problems);
 * JsonTree.Node two = tree.at("a[1]");      // two.line() == 1, two.column() == 11, two.asWritten() == "2"
 * }</pre>
 */
final class JsonTree {
    private static final JsonFactory FACTORY = new JsonFactory();

    /** The JSON types, as JSON Schema names them (the schema's {@code type}). */
    enum Type {
        OBJECT("an object"), ARRAY("an array"), STRING("a string"), INTEGER("an integer"), NUMBER("a number"),
        BOOLEAN("true or false"), NULL("null");

        /** What a value of this type reads as in a message: "(accepted: an integer)". */
        final String accepted;

        Type(String accepted) {
            this.accepted = accepted;
        }

        /** The name in JSON Schema: {@code "integer"}. */
        String schemaName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** An integer is also a number; nothing else is another type. */
        boolean accepts(Type actual) {
            return actual == this || (this == NUMBER && actual == INTEGER);
        }
    }

    /**
     * One value. {@code line} and {@code column} (from 1) are where the value starts; {@code keyLine} and
     * {@code keyColumn} where its key does, for a member of an object (else the value's own).
     */
    record Node(Type type, String path, int line, int column, int keyLine, int keyColumn, String text, long integer,
            double number, Map<String, Node> members, List<Node> elements) {
        /** The value as the file has it, for messages: {@code -5}, {@code "ftp://x"}, {@code true}, "an object". */
        String asWritten() {
            return switch (type) {
                case OBJECT, ARRAY -> type.accepted;
                case STRING -> '"' + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + '"';
                default -> text;
            };
        }
    }

    private final Node root;
    private final Map<String, Node> byPath;

    private JsonTree(Node root, Map<String, Node> byPath) {
        this.root = root;
        this.byPath = byPath;
    }

    /**
     * Reads one JSON value and nothing after it (a second value after it is a problem); a duplicate key is a problem.
     * Null root for an empty text.
     *
     * @throws JsonProcessingException when the text is not JSON; its location says where
     */
    static JsonTree read(String text, Problems problems) throws JsonProcessingException {
        try (JsonParser parser = FACTORY.createParser(text)) {
            Map<String, Node> byPath = new HashMap<>();
            if (parser.nextToken() == null) {
                return new JsonTree(null, byPath);
            }
            Node root = value(parser, "", null, byPath, problems);
            if (parser.nextToken() != null) {
                JsonLocation at = parser.currentTokenLocation();
                problems.add(at.getLineNr(), at.getColumnNr(), "", "more after the top-level object (accepted: one "
                        + "JSON object)");
            }
            return new JsonTree(root, byPath);
        } catch (JsonProcessingException e) {
            throw e;
        } catch (IOException e) {
            throw new UncheckedIOException("a string does not fail to read", e);
        }
    }

    /** The top-level value, or null when the text was empty. */
    Node root() {
        return root;
    }

    /** The value at this path (the first, where a key appears twice), or null. */
    Node at(String path) {
        return byPath.get(path);
    }

    /** The path of member {@code key} of the value at {@code path}. */
    static String member(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private static Node value(JsonParser parser, String path, JsonLocation key, Map<String, Node> byPath,
            Problems problems) throws IOException {
        JsonLocation at = parser.currentTokenLocation();
        JsonLocation keyAt = key != null ? key : at;
        Node node = switch (parser.currentToken()) {
            case START_OBJECT -> {
                Map<String, Node> members = new LinkedHashMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    JsonLocation nameAt = parser.currentTokenLocation();
                    parser.nextToken();
                    Node member = value(parser, member(path, name), nameAt, byPath, problems);
                    Node first = members.putIfAbsent(name, member);
                    if (first != null) {
                        problems.atKey(member, "duplicate key, first at line " + first.keyLine() + ", column "
                                + first.keyColumn() + " (accepted: each key once)");
                    }
                }
                yield node(Type.OBJECT, path, at, keyAt, null, 0, 0, Collections.unmodifiableMap(members), List.of());
            }
            case START_ARRAY -> {
                List<Node> elements = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    elements.add(value(parser, path + "[" + elements.size() + "]", null, byPath, problems));
                }
                yield node(Type.ARRAY, path, at, keyAt, null, 0, 0, Map.of(), List.copyOf(elements));
            }
            case VALUE_STRING -> node(Type.STRING, path, at, keyAt, parser.getText(), 0, 0, Map.of(), List.of());
            case VALUE_NUMBER_INT -> node(Type.INTEGER, path, at, keyAt, parser.getText(), integer(parser), 0,
                    Map.of(), List.of());
            case VALUE_NUMBER_FLOAT -> node(Type.NUMBER, path, at, keyAt, parser.getText(), 0,
                    parser.getDoubleValue(), Map.of(), List.of());
            case VALUE_TRUE, VALUE_FALSE -> node(Type.BOOLEAN, path, at, keyAt, parser.getText(), 0, 0, Map.of(),
                    List.of());
            default -> node(Type.NULL, path, at, keyAt, "null", 0, 0, Map.of(), List.of());
        };
        byPath.putIfAbsent(path, node);
        return node;
    }

    private static Node node(Type type, String path, JsonLocation at, JsonLocation key, String text, long integer,
            double number, Map<String, Node> members, List<Node> elements) {
        return new Node(type, path, at.getLineNr(), at.getColumnNr(), key.getLineNr(), key.getColumnNr(), text,
                integer, number, members, elements);
    }

    /** Integers past a long's range read as its bound: every field's range check then names them (as written). */
    private static long integer(JsonParser parser) throws IOException {
        if (parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            return parser.getBigIntegerValue().signum() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return parser.getLongValue();
    }
}
