package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.broker.CircuitBreakerSettings;
import io.rc10k.broker.Partner;
import io.rc10k.broker.Protocol;
import io.rc10k.mashup.internal.routing.DefinitionsJson;
import java.util.List;
import org.junit.jupiter.api.Test;

class DefinitionsTest {
    static final String GOOD = """
            {
              "partners": {
                "weather": {"baseUri": "http://127.0.0.1:9001", "callTimeoutMillis": 2000},
                "hotels":  {"baseUri": "http://127.0.0.1:9002", "protocol": "h2c", "maxConnections": 64,
                            "circuitBreaker": {"consecutiveFailures": 3, "coolDownMillis": 250}}
              },
              "mashups": {
                "travel": {
                  "deadlineMillis": 1500,
                  "parameters": {"city": {"required": true}, "days": {"default": "3", "maxLength": 2}},
                  "calls": [
                    {"partner": "weather", "template": "/weather?city={city}&days={days}"},
                    {"name": "stay", "partner": "hotels", "template": "/hotels?city={city}", "forwardHeaders": ["Authorization"], "required": true}
                  ]
                }
              }
            }
            """;

    @Test
    void goodJsonLoadsEveryField() throws Exception {
        Definitions d = DefinitionsJson.parse(GOOD, "good.json");
        assertEquals(2, d.partners().size());
        assertEquals(io.rc10k.broker.Protocol.H2C, d.partners().get("hotels").protocol());
        assertEquals(64, d.partners().get("hotels").maxConnections());
        assertEquals(3, d.partners().get("hotels").circuitBreaker().consecutiveFailures());
        assertEquals(250, d.partners().get("hotels").circuitBreaker().coolDown().toMillis());
        assertEquals(io.rc10k.broker.CircuitBreakerSettings.DEFAULT, d.partners().get("weather").circuitBreaker());
        MashupDefinition travel = d.mashups().get("travel");
        assertEquals("/mashup/travel", travel.path());
        assertEquals(1500, travel.deadline().toMillis());
        assertEquals("weather", travel.calls().get(0).name(), "a call is named after its partner by default");
        assertEquals(List.of("Authorization"), travel.calls().get(1).forwardHeaders());
        assertFalse(travel.calls().get(0).required(), "a call is optional by default");
        assertTrue(travel.calls().get(1).required());
        assertEquals("3", travel.parameters().get("days").defaultValue());
    }

    @Test
    void everyProblemIsReportedWithItsLocationAndTheAcceptedValues() {
        String bad = """
                {
                  "partners": {
                    "weather": {"baseUri": "http://127.0.0.1:9001", "maxConnections": 0},
                    "hotels":  {"baseUri": "ftp://example", "colour": "red"},
                    "flights": {"baseUri": "http://127.0.0.1:9003", "circuitBreaker": {"failureRatio": 2}}
                  },
                  "mashups": {
                    "travel": {
                      "deadlineMillis": -5,
                      "calls": [
                        {"partner": "weather", "template": "/weather?city={city}"},
                        {"partner": "hotel", "template": "/hotels"},
                        {"partner": "weather", "template": "http://evil.example/x"}
                      ]
                    }
                  }
                }
                """;
        DefinitionException e = assertThrows(DefinitionException.class, () -> DefinitionsJson.parse(bad, "bad.json"));
        List<String> problems = e.problems();
        assertTrue(problems.contains("partners.weather.maxConnections: 0 < 1"), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.startsWith("partners.hotels.baseUri: \"ftp://example\"")),
                problems.toString());
        assertTrue(problems.contains("partners.hotels.colour: unknown field (known: balancing, baseUri, baseUris, cacheMaxBytes, cacheMaxEntries, callTimeoutMillis, "
                + "circuitBreaker, connectTimeoutMillis, ejection, headers, idleTimeoutMillis, maxConnections, maxQueued, "
                + "maxResponseBytes, "
                + "maxStreamsPerConnection, protocol, retries, tls)"), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.startsWith("partners.flights.circuitBreaker: consecutiveFailures")),
                problems.toString());
        assertTrue(problems.contains("mashups.travel.deadlineMillis: -5 (accepted: 1 to 600000)"), problems.toString());
        assertTrue(problems.contains("mashups.travel.calls[0].template: {city} is not a parameter of the mashup "
                + "(known: none) nor a value of one of its parts ({part.body.field})"), problems.toString());
        assertTrue(problems.contains("mashups.travel.calls[1].partner: unknown partner \"hotel\" (known: weather, "
                + "hotels, flights)"),
                problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.startsWith("mashups.travel.calls[2].template:")),
                problems.toString());
        assertTrue(problems.size() >= 7, problems.toString());
    }

    @Test
    void requiredMustBeABoolean() {
        String json = """
                {"partners": {"p": {"baseUri": "http://127.0.0.1:9"}},
                 "mashups": {"m": {"calls": [{"partner": "p", "template": "/x", "required": "yes"}]}}}
                """;
        DefinitionException e = assertThrows(DefinitionException.class, () -> DefinitionsJson.parse(json, "x"));
        assertEquals(List.of("mashups.m.calls[0].required: \"yes\" (accepted: true or false)"), e.problems());
    }

    @Test
    void hedgingFieldsAreReadAndChecked() throws Exception {
        Definitions d = DefinitionsJson.parse("""
                {"partners": {"p": {"baseUri": "http://127.0.0.1:9"}},
                 "mashups": {"m": {"calls": [{"partner": "p", "template": "/x", "hedgeAfterMillis": 50, "maxHedges": 2},
                                             {"name": "plain", "partner": "p", "template": "/y"}]}}}
                """, "x");
        CallDefinition hedged = d.mashups().get("m").calls().get(0);
        assertEquals(50, hedged.hedging().after().toMillis());
        assertEquals(2, hedged.hedging().maxExtra());
        assertEquals(null, d.mashups().get("m").calls().get(1).hedging(), "not hedged by default");
        DefinitionException e = assertThrows(DefinitionException.class, () -> DefinitionsJson.parse("""
                {"partners": {"p": {"baseUri": "http://127.0.0.1:9"}},
                 "mashups": {"m": {"calls": [{"partner": "p", "template": "/x", "hedgeAfterMillis": 0},
                                             {"partner": "p", "name": "b", "template": "/x", "maxHedges": 2},
                                             {"partner": "p", "name": "c", "template": "/x", "hedgeAfterMillis": 9,
                                              "maxHedges": 4}]}}}
                """, "x"));
        assertEquals(List.of("mashups.m.calls[0].hedgeAfterMillis: 0 (accepted: 1 to 60000)",
                "mashups.m.calls[1].maxHedges: only with hedgeAfterMillis",
                "mashups.m.calls[2].maxHedges: 4 (accepted: 1 to 3)"), e.problems());
    }

    @Test
    void cachingFieldsAreReadAndChecked() throws Exception {
        Definitions d = DefinitionsJson.parse("""
                {"partners": {"p": {"baseUri": "http://127.0.0.1:9", "cacheMaxEntries": 10, "cacheMaxBytes": 4096}},
                 "mashups": {"m": {"calls": [{"partner": "p", "template": "/x", "cacheSeconds": 30}]}}}
                """, "x");
        assertEquals(30, d.mashups().get("m").calls().get(0).caching().ttl().toSeconds());
        assertEquals(10, d.partners().get("p").cacheMaxEntries());
        assertEquals(4096, d.partners().get("p").cacheMaxBytes());
        DefinitionException e = assertThrows(DefinitionException.class, () -> DefinitionsJson.parse("""
                {"partners": {"p": {"baseUri": "http://127.0.0.1:9", "cacheMaxEntries": 0}},
                 "mashups": {"m": {"calls": [{"partner": "p", "template": "/x", "cacheSeconds": 0}]}}}
                """, "x"));
        assertEquals(List.of("partners.p.cacheMaxEntries: 0 (accepted: 1 to 1000000)",
                "mashups.m.calls[0].cacheSeconds: 0 (accepted: 1 to 86400)"), e.problems());
    }

    @Test
    void chainedCallsMustReferToEarlierPartsWithoutCycles() {
        DefinitionException e = assertThrows(DefinitionException.class, () -> DefinitionsJson.parse("""
                {"partners": {"p": {"baseUri": "http://127.0.0.1:9"}},
                 "mashups": {"m": {"calls": [
                   {"name": "a", "partner": "p", "template": "/a?x={b.body.id}"},
                   {"name": "b", "partner": "p", "template": "/b?x={a.body.id}"},
                   {"name": "c", "partner": "p", "template": "/c?x={c.body.id}"},
                   {"name": "d", "partner": "p", "template": "/d?x={nobody.body.id}"},
                   {"name": "e", "partner": "p", "template": "/e?x={f.body.id}"},
                   {"name": "f", "partner": "p", "template": "/f"}]}}}
                """, "x"));
        List<String> problems = e.problems();
        assertTrue(problems.contains("mashups.m.calls[0].template: takes a value from part b, which takes one from it "
                + "in turn: a cycle (a call may take values only from calls listed before it)"), problems.toString());
        assertTrue(problems.contains("mashups.m.calls[2].template: takes a value from its own part c"),
                problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.startsWith("mashups.m.calls[3].template: {nobody.body.id} is not "
                + "a parameter of the mashup")), problems.toString());
        assertTrue(problems.contains("mashups.m.calls[4].template: takes a value from part f, which comes after it "
                + "(a call may take values only from calls listed before it)"), problems.toString());
        assertEquals(4, problems.size(), problems.toString());
    }

    @Test
    void theIssuesExampleMessageReadsExactly() {
        String json = """
                {"partners": {"weather": {"baseUri": "http://127.0.0.1:1"}, "hotels": {"baseUri": "http://127.0.0.1:2"}},
                 "mashups": {"travel": {"calls": [{"partner": "weather", "template": "/w"},
                                                  {"partner": "hotel", "template": "/h"}]}}}
                """;
        DefinitionException e = assertThrows(DefinitionException.class, () -> DefinitionsJson.parse(json, "x"));
        assertEquals(List.of("mashups.travel.calls[1].partner: unknown partner \"hotel\" (known: weather, hotels)"),
                e.problems());
    }

    @Test
    void noProblemHidesAnotherInTheSameObject() {
        // Issue 26: a bad baseUri hid retries, a bad hedgeAfterMillis hid maxHedges.
        DefinitionException e = assertThrows(DefinitionException.class, () -> DefinitionsJson.parse("""
                {"partners": {"p": {"baseUri": "ftp://example", "retries": 11}},
                 "mashups": {"m": {"calls": [{"partner": "p", "template": "/x", "hedgeAfterMillis": 0, "maxHedges": 9}]}}}
                """, "x"));
        assertEquals(List.of("partners.p.baseUri: \"ftp://example\" (accepted: http[s]://host[:port][/base/path], without "
                        + "user info, query or fragment)",
                "partners.p.retries: 11 (accepted: 0 to 10)",
                "mashups.m.calls[0].hedgeAfterMillis: 0 (accepted: 1 to 60000)",
                "mashups.m.calls[0].maxHedges: 9 (accepted: 1 to 3)"), e.problems());
    }

    @Test
    void everyProblemHasItsLineAndColumnInTheFile() {
        String json = """
                {"partners": {"p": {"baseUri": "http://127.0.0.1:9",
                                    "maxConnections": 0}},
                 "mashups": {"m": {"calls": [{"partner": "p", "template": "/x"},
                                             {"partner": "q", "template": "/y"}]}}}
                """;
        DefinitionException e = assertThrows(DefinitionException.class, () -> DefinitionsJson.parse(json, "x.json"));
        assertEquals(List.of(new DefinitionException.Problem("partners.p.maxConnections: 0 < 1", 2, 39),
                new DefinitionException.Problem("mashups.m.calls[1].partner: unknown partner \"q\" (known: p)", 4, 42)),
                e.located());
        assertTrue(e.getMessage().contains(System.lineSeparator() + "  x.json:2:39: partners.p.maxConnections: 0 < 1"),
                e.getMessage());
    }

    @Test
    void valuesReadAsWrittenNotAsTheBuilderHoldsThem() {
        DefinitionException e = assertThrows(DefinitionException.class, () -> DefinitionsJson.parse("""
                {"partners": {"p": {"baseUri": "http://127.0.0.1:9", "connectTimeoutMillis": -5, "retries": 99999999999,
                                    "circuitBreaker": {"failureRatio": 2, "coolDownMillis": -1}}},
                 "mashups": {"m": {"parameters": {"q": {"maxLength": 99999999999}},
                                   "calls": [{"partner": "p", "template": "/x"}]}}}
                """, "x"));
        assertEquals(List.of("partners.p.connectTimeoutMillis: -5 (accepted: > 0)",
                "partners.p.retries: 99999999999 (accepted: 0 to 10)",
                "partners.p.circuitBreaker: consecutiveFailures 10, failureRatio 2, minimumCalls 20, window 100, "
                        + "coolDownMillis -1 (accepted: consecutiveFailures >= 1, 0 < failureRatio <= 1, "
                        + "1 <= minimumCalls <= window, coolDown > 0)",
                "mashups.m.parameters.q.maxLength: 99999999999 (accepted: 1 to 8192)"), e.problems());
    }

    @Test
    void aDuplicateKeyIsRefusedWithBothPlaces() {
        DefinitionException e = assertThrows(DefinitionException.class, () -> DefinitionsJson.parse("""
                {"partners": {"p": {"baseUri": "http://127.0.0.1:9", "retries": 2,
                                    "retries": 3}},
                 "mashups": {"m": {"calls": [{"partner": "p", "template": "/x"}]},
                             "m": {"calls": []}}}
                """, "x"));
        assertEquals(List.of(
                new DefinitionException.Problem("partners.p.retries: duplicate key, first at line 1, column 54 "
                        + "(accepted: each key once)", 2, 21),
                new DefinitionException.Problem("mashups.m: duplicate key, first at line 3, column 14 (accepted: each "
                        + "key once)", 4, 14)), e.located());
    }

    @Test
    void valuesOfTheWrongJsonTypeAreRefusedWhereTheyStand() {
        DefinitionException e = assertThrows(DefinitionException.class, () -> DefinitionsJson.parse("""
                {"partners": {"p": {"baseUri": "http://127.0.0.1:9", "protocol": null, "maxQueued": 1.5}},
                 "mashups": {"m": {"calls": [{"partner": "p", "template": "/x", "forwardHeaders": ["X-A", 5, {}]},
                                             "/y"]}}}
                """, "x"));
        assertEquals(List.of("partners.p.protocol: null (accepted: a string)",
                "partners.p.maxQueued: 1.5 (accepted: an integer)",
                "mashups.m.calls[0].forwardHeaders[1]: 5 (accepted: a string)",
                "mashups.m.calls[0].forwardHeaders[2]: an object (accepted: a string)",
                "mashups.m.calls[1]: \"/y\" (accepted: an object)"), e.problems());
    }

    @Test
    void aProblemThatFollowsFromAnotherIsNotReportedAgain() {
        DefinitionException e = assertThrows(DefinitionException.class, () -> DefinitionsJson.parse("""
                {"partners": {"p": {"baseUri": "ftp://x"}, "9q": {"baseUri": "http://127.0.0.1:9"}},
                 "mashups": {"m": {"calls": [{"partner": "p", "template": "/x"},
                                             {"template": "/y"},
                                             {"partner": "9q", "template": 7},
                                             {"partner": "nobody", "template": "/z?a={a}"}]}}}
                """, "x"));
        assertEquals(List.of("partners.p.baseUri: \"ftp://x\" (accepted: http[s]://host[:port][/base/path], without user "
                        + "info, query or fragment)",
                "partners.9q: \"9q\" (accepted: a letter, then letters, digits, _ or -, at most 64)",
                "mashups.m.calls[1].partner: missing (required)",
                "mashups.m.calls[2].template: 7 (accepted: a string)",
                // The calls before it, wrong as they are, keep its index.
                "mashups.m.calls[3].partner: unknown partner \"nobody\" (known: p, 9q)",
                "mashups.m.calls[3].template: {a} is not a parameter of the mashup (known: none) nor a value of one of "
                        + "its parts ({part.body.field})"), e.problems());
    }

    @Test
    void aSchemaReferenceIsAcceptedAtTheTopOnly() throws Exception {
        String good = GOOD.replaceFirst("\\{", "{\"\\$schema\": \"../docs/definitions.schema.json\",");
        assertEquals(2, DefinitionsJson.parse(good, "x").partners().size());
        DefinitionException e = assertThrows(DefinitionException.class, () -> DefinitionsJson.parse("""
                {"partners": {"p": {"$schema": "x", "baseUri": "http://127.0.0.1:9"}},
                 "mashups": {"m": {"calls": [{"partner": "p", "template": "/x"}]}}}
                """, "x"));
        assertTrue(e.problems().get(0).startsWith("partners.p.$schema: unknown field"), e.problems().toString());
    }

    @Test
    void brokenJsonNamesLineAndColumn() {
        DefinitionException e = assertThrows(DefinitionException.class,
                () -> DefinitionsJson.parse("{\n  \"partners\": {,\n}", "broken.json"));
        assertTrue(e.problems().get(0).startsWith("broken.json: not valid JSON at line 2"), e.problems().toString());
    }

    @Test
    void javaDefinitionsAreCheckedTheSameWay() {
        DefinitionException e = assertThrows(DefinitionException.class, () -> Definitions.builder()
                .mashup(MashupDefinition.builder("m").path("/metrics").call("a", "nobody", "/x?{q}=1").build())
                .build());
        assertTrue(e.problems().stream().anyMatch(p -> p.contains("reserved")), e.problems().toString());
        assertTrue(e.problems().stream().anyMatch(p -> p.contains("unknown partner \"nobody\"")), e.problems().toString());
        assertTrue(e.problems().stream().anyMatch(p -> p.contains("query name")), e.problems().toString());
    }

    @Test
    void theDashboardsPathsAreReservedLikeMetricsAndHealth() {
        for (String path : List.of("/dashboard", "/dashboard/data")) {
            DefinitionException e = assertThrows(DefinitionException.class, () -> Definitions.builder()
                    .partner(Partner.builder("p", "http://127.0.0.1:1").build())
                    .mashup(MashupDefinition.builder("m").path(path).call("a", "p", "/x").build())
                    .build());
            assertEquals(List.of("mashups.m.path: \"" + path + "\" is reserved for the server's own endpoint"),
                    e.problems());
        }
    }

    @Test
    void traceContextHeadersCannotBeForwarded() {
        String json = """
                {"partners": {"weather": {"baseUri": "http://127.0.0.1:1"}},
                 "mashups": {"travel": {"calls": [{"partner": "weather", "template": "/w",
                                                   "forwardHeaders": ["X-Request-Id", "Traceparent", "tracestate"]}]}}}
                """;
        DefinitionException e = assertThrows(DefinitionException.class, () -> DefinitionsJson.parse(json, "x"));
        assertEquals(2, e.problems().size(), e.problems().toString());
        assertTrue(e.problems().get(0).startsWith("mashups.travel.calls[0].forwardHeaders: \"Traceparent\" is set by "
                + "the server on every call"), e.problems().toString());
        assertTrue(e.problems().get(1).startsWith("mashups.travel.calls[0].forwardHeaders: \"tracestate\""),
                e.problems().toString());
    }
}
