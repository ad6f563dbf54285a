package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.rc10k.mashup.internal.routing.DefinitionsJson;
import io.rc10k.mashup.internal.routing.Fields;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/definitions.schema.json against the parser ({@link DefinitionsJson}): the same fields with the same types and
 * the same required ones, the same ranges, and every example of definitions in the repository valid for both.
 */
class DefinitionsSchemaTest {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path SCHEMA_FILE = ROOT.resolve("docs/definitions.schema.json");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private static final Set<String> SKIPPED_FOLDERS = Set.of(".git", "target", "node_modules");
    /** A minimal file the parser takes, with a place for every kind of object; a range test sets one field in it. */
    private static final String BASE = """
            {"partners": {"p": {"baseUri": "http://127.0.0.1:9", "circuitBreaker": {"minimumCalls": 1}, "ejection": {},
                                "headers": {"X-Key": {"env": "PATH"}}},
                          "s": {"baseUri": "https://127.0.0.1:9", "tls": {}}},
             "mashups": {"m": {"deadlineMillis": 600000, "parameters": {"q": {}},
                               "calls": [{"partner": "p", "template": "/x", "hedgeAfterMillis": 5},
                                         {"name": "y", "partner": "p", "template": "/y"},
                                         {"name": "z", "partner": "p", "template": "/z", "method": "POST",
                                          "body": "x"}]}}}
            """;
    /**
     * Fields whose values depend on another field of the same call: checked on a call where they can stand (a
     * method other than GET on a call that is not hedged, a content type beside a body).
     */
    private static final Map<String, String> FIELD_PLACE = Map.of("call.method", "/mashups/m/calls/1",
            "call.contentType", "/mashups/m/calls/2", "call.body", "/mashups/m/calls/2");
    private static final Map<String, String> PLACE = Map.of("definitions", "", "partner", "/partners/p",
            "circuitBreaker", "/partners/p/circuitBreaker", "ejection", "/partners/p/ejection",
            "tls", "/partners/s/tls", "secret", "/partners/p/headers/X-Key", "mashup", "/mashups/m",
            "parameter", "/mashups/m/parameters/q", "call", "/mashups/m/calls/0");

    @Test
    void theSchemaIsADraft202012Schema() throws Exception {
        Schema meta = REGISTRY.getSchema(SchemaLocation.of(SpecificationVersion.DRAFT_2020_12.getDialectId()));
        assertEquals(List.of(), meta.validate(Files.readString(SCHEMA_FILE), InputFormat.JSON));
        assertEquals(SpecificationVersion.DRAFT_2020_12.getDialectId(), schema().get("$schema").asText());
    }

    @Test
    void everyExampleOfDefinitionsInTheRepositoryIsValidForTheSchemaAndTheParser() throws Exception {
        Schema schema = REGISTRY.getSchema(Files.readString(SCHEMA_FILE), InputFormat.JSON);
        Map<String, String> examples = examples();
        // The three configurations of jmeter-plans and the two of docs/mashup-server.md, at least.
        assertTrue(examples.size() >= 5, examples.keySet().toString());
        List<String> failures = new ArrayList<>();
        examples.forEach((name, text) -> {
            schema.validate(text, InputFormat.JSON).forEach(error -> failures.add(name + ": schema: " + error));
            try {
                DefinitionsJson.parse(text, name);
            } catch (DefinitionException e) {
                failures.add(name + ": parser: " + e.getMessage());
            }
        });
        assertEquals(List.of(), failures);
    }

    @Test
    void theSchemaRefusesWhatTheParserRefusesOnShape() throws Exception {
        Schema schema = REGISTRY.getSchema(Files.readString(SCHEMA_FILE), InputFormat.JSON);
        assertEquals(List.of(), schema.validate(BASE, InputFormat.JSON));
        for (String[] change : new String[][] {
            {"\"baseUri\"", "\"colour\": \"red\", \"baseUri\""},
            {"\"baseUri\": \"http://127.0.0.1:9\"", "\"baseUri\": \"ftp://x\""},
            {"\"minimumCalls\": 1", "\"minimumCalls\": \"1\""},
            {"\"template\": \"/x\"", "\"template\": \"/x\", \"forwardHeaders\": [5]"},
            {", \"hedgeAfterMillis\": 5", ", \"maxHedges\": 2"},
            {"\"q\": {}", "\"q\": {\"required\": true, \"default\": \"3\"}"},
            {"\"m\": {", "\"9m\": {"},
            {BASE.substring(BASE.indexOf("\"calls\": ["), BASE.indexOf("]}}}") + 1), "\"calls\": []"}}) {
            String file = BASE.replace(change[0], change[1]);
            assertTrue(!file.equals(BASE), change[0]);
            assertFalse(schema.validate(file, InputFormat.JSON).isEmpty(), "the schema takes " + file);
            try {
                DefinitionsJson.parse(file, "x");
                fail("the parser takes " + file);
            } catch (DefinitionException expected) {
                // as the schema
            }
        }
    }

    @Test
    void theSchemaHasExactlyTheFieldsThatTheParserAcceptsWithTheirTypesAndWhichAreRequired() throws Exception {
        JsonNode schema = schema();
        Set<String> objectsInSchema = new TreeSet<>();
        schema.get("$defs").properties().forEach(d -> {
            if (d.getValue().has("properties")) {
                objectsInSchema.add(d.getKey());
            }
        });
        Set<String> kinds = new TreeSet<>();
        for (Fields<?> kind : DefinitionsJson.kinds()) {
            JsonNode object = kind.kind().equals("definitions") ? schema : schema.at("/$defs/" + kind.kind());
            assertFalse(object.isMissingNode(), "the schema has no $defs/" + kind.kind());
            if (!kind.kind().equals("definitions")) {
                kinds.add(kind.kind());
            }
            Map<String, String> parser = new LinkedHashMap<>();
            Set<String> parserRequired = new TreeSet<>();
            for (Fields.Declared field : kind.declared()) {
                parser.put(field.name(), field.type());
                if (field.required()) {
                    parserRequired.add(field.name());
                }
            }
            Map<String, String> inSchema = new LinkedHashMap<>();
            object.get("properties").properties().forEach(p -> inSchema.put(p.getKey(), type(schema, p.getValue())));
            assertEquals(new TreeMap<>(parser), new TreeMap<>(inSchema), kind.kind() + ": fields and their JSON types");
            Set<String> schemaRequired = new TreeSet<>();
            object.path("required").forEach(r -> schemaRequired.add(r.asText()));
            assertEquals(parserRequired, schemaRequired, kind.kind() + ": required fields");
            assertFalse(object.path("additionalProperties").asBoolean(true),
                    kind.kind() + ": the parser refuses unknown fields, so must the schema");
        }
        assertEquals(objectsInSchema, kinds, "kinds of objects");
    }

    @Test
    void theSchemasRangesAndValuesAreTheParsers() throws Exception {
        JsonNode schema = schema();
        List<String> failures = new ArrayList<>();
        int checked = 0;
        for (Fields<?> kind : DefinitionsJson.kinds()) {
            JsonNode object = kind.kind().equals("definitions") ? schema : schema.at("/$defs/" + kind.kind());
            for (Map.Entry<String, JsonNode> property : object.get("properties").properties()) {
                String field = property.getKey();
                JsonNode p = resolve(schema, property.getValue());
                String where = FIELD_PLACE.getOrDefault(kind.kind() + "." + field, PLACE.get(kind.kind())) + "/"
                        + field;
                if (p.has("minimum")) {
                    checked += expect(failures, where, p.get("minimum").asLong(), true);
                    checked += expect(failures, where, p.get("minimum").asLong() - 1, false);
                }
                if (p.has("maximum")) {
                    checked += expect(failures, where, p.get("maximum").asLong(), true);
                    checked += expect(failures, where, p.get("maximum").asLong() + 1, false);
                }
                if (p.has("exclusiveMinimum")) {
                    checked += expect(failures, where, p.get("exclusiveMinimum"), false);
                }
                if (p.has("default")) {
                    checked += expect(failures, where, p.get("default"), true);
                }
                for (JsonNode value : p.path("enum")) {
                    checked += expect(failures, where, value, true);
                }
            }
        }
        assertEquals(List.of(), failures);
        assertTrue(checked > 50, "checked only " + checked);
    }

    /** 1 after checking that the parser takes (or refuses) BASE with the field at {@code where} set to value. */
    private static int expect(List<String> failures, String where, Object value, boolean accepted) {
        ObjectNode file;
        try {
            file = (ObjectNode) JSON.readTree(BASE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int slash = where.lastIndexOf('/');
        ((ObjectNode) file.at(where.substring(0, slash))).set(where.substring(slash + 1), JSON.valueToTree(value));
        try {
            DefinitionsJson.parse(file.toString(), "range");
            if (!accepted) {
                failures.add(where + " = " + value + ": accepted, though the schema refuses it");
            }
        } catch (DefinitionException e) {
            if (accepted) {
                failures.add(where + " = " + value + ": refused, though the schema accepts it: " + e.problems());
            }
        }
        return 1;
    }

    /** Every example of definitions: *.json files with "mashups" at the top, and such ```json blocks in docs/. */
    private static Map<String, String> examples() throws IOException {
        Map<String, String> examples = new LinkedHashMap<>();
        Pattern block = Pattern.compile("(?s)```json\\n(.*?)```");
        Files.walkFileTree(ROOT, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                return SKIPPED_FOLDERS.contains(dir.getFileName().toString()) ? FileVisitResult.SKIP_SUBTREE
                        : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                String name = ROOT.relativize(file).toString();
                if (name.endsWith(".json") && !file.equals(SCHEMA_FILE)) {
                    String text = Files.readString(file);
                    if (text.contains("\"mashups\"")) {
                        examples.put(name, text);
                    }
                } else if (name.startsWith("docs") && name.endsWith(".md")) {
                    Matcher json = block.matcher(Files.readString(file));
                    for (int i = 1; json.find(); i++) {
                        if (json.group(1).contains("\"mashups\"")) {
                            examples.put(name + " (json block " + i + ")", json.group(1));
                        }
                    }
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return examples;
    }

    private static JsonNode schema() throws IOException {
        return JSON.readTree(SCHEMA_FILE.toFile());
    }

    /** A property's schema, its {@code $ref} followed. */
    private static JsonNode resolve(JsonNode schema, JsonNode property) {
        JsonNode resolved = property;
        while (resolved.has("$ref")) {
            String ref = resolved.get("$ref").asText();
            assertTrue(ref.startsWith("#"), ref);
            resolved = schema.at(ref.substring(1));
            assertFalse(resolved.isMissingNode(), ref);
        }
        return resolved;
    }

    private static String type(JsonNode schema, JsonNode property) {
        JsonNode type = resolve(schema, property).get("type");
        assertNotNull(type, "a property without a type: " + property);
        if (!type.isTextual()) {
            fail("a property of several types: " + property);
        }
        return type.asText();
    }
}
