package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.broker.Outcome;
import io.rc10k.mashup.Composite;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** The composite and its status rules, on outcomes built by hand (the integration tests use real partners). */
class CompositeTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Outcome ok(String partner, String type, String body) {
        return Outcome.response(partner, 200, type, body.getBytes(StandardCharsets.UTF_8), 5_000_000, 1);
    }

    private static Outcome failed(String partner, Outcome.Kind kind) {
        return Outcome.failure(partner, kind, 0, new TimeoutException(), 1_000_000_000, 1);
    }

    private static JsonNode body(Composite.Response r) throws Exception {
        return JSON.readTree(r.body());
    }

    @Test
    void jsonBodiesAreEmbeddedAndTextBecomesAString() throws Exception {
        Composite.Response r = Composite.compose("m", List.of("a", "b"), List.of(
                ok("a", "application/json", "{\"x\":[1,2]}"), ok("b", "text/plain; charset=utf-8", "hi \"there\"")),
                7);
        assertEquals(200, r.status());
        assertTrue(r.complete());
        JsonNode json = body(r);
        assertEquals("m", json.get("mashup").asText());
        assertEquals(7, json.get("elapsedMillis").asLong());
        assertEquals(2, json.at("/parts/a/body/x/1").asInt());
        assertEquals("hi \"there\"", json.at("/parts/b/body").asText());
        assertEquals(200, json.at("/parts/a/status").asInt());
    }

    @Test
    void partialResultKeepsTheGoodPartsAndNamesTheError() throws Exception {
        Composite.Response r = Composite.compose("m", List.of("a", "b"), List.of(
                ok("a", "application/json", "{}"), failed("b", Outcome.Kind.TIMEOUT)), 1000);
        assertEquals(200, r.status());
        assertFalse(r.complete());
        assertEquals("timeout", body(r).at("/parts/b/error").asText());
        assertEquals(1000, body(r).at("/parts/b/elapsedMillis").asLong());
    }

    @Test
    void aFailedRequiredPartDecidesTheStatusAndIsNamed() throws Exception {
        List<String> names = List.of("a", "b", "c");
        boolean[] required = {false, true, true};
        Composite.Response failed = Composite.compose("m", names, List.of(ok("a", "application/json", "{}"),
                failed("b", Outcome.Kind.RESET), failed("c", Outcome.Kind.CANCELLED)), null, required, 1, 5);
        assertEquals(502, failed.status());
        assertEquals("failed", failed.outcome());
        assertEquals("b", body(failed).get("failedRequired").asText());
        // The fan-out's word decides which required part caused it, not the order of the parts.
        Composite.Response timedOut = Composite.compose("m", names, List.of(ok("a", "application/json", "{}"),
                failed("b", Outcome.Kind.CANCELLED), failed("c", Outcome.Kind.TIMEOUT)), null, required, 2, 5);
        assertEquals(504, timedOut.status());
        assertEquals("timeout", timedOut.outcome());
        assertEquals("c", body(timedOut).get("failedRequired").asText());
        // Without the fan-out's word, the first required part that is not a success decides.
        Composite.Response garbled = Composite.compose("m", names, List.of(ok("a", "application/json", "{}"),
                ok("b", "application/json", "{"), ok("c", "application/json", "{}")), null, required, -1, 5);
        assertEquals(502, garbled.status());
        assertEquals("b", body(garbled).get("failedRequired").asText());
        // Required parts that all succeed change nothing.
        Composite.Response fine = Composite.compose("m", names, List.of(failed("a", Outcome.Kind.RESET),
                ok("b", "application/json", "{}"), ok("c", "application/json", "{}")), null, required, -1, 5);
        assertEquals(200, fine.status());
        assertFalse(body(fine).has("failedRequired"));
    }

    @Test
    void everyPartTimedOutIs504AndEveryPartFailedIs502() {
        assertEquals(504, Composite.compose("m", List.of("a", "b"), List.of(failed("a", Outcome.Kind.TIMEOUT),
                failed("b", Outcome.Kind.TIMEOUT)), 1).status());
        assertEquals(502, Composite.compose("m", List.of("a", "b"), List.of(failed("a", Outcome.Kind.TIMEOUT),
                failed("b", Outcome.Kind.RESET)), 1).status());
        assertEquals(502, Composite.compose("m", List.of("a"), List.of(
                Outcome.response("a", 503, "application/json", new byte[0], 1, 1)), 1).status());
    }

    @Test
    void malformedJsonAndUnknownTypesArePartErrors() throws Exception {
        Composite.Response r = Composite.compose("m", List.of("a", "b", "c"), List.of(
                ok("a", "application/json", "{\"x\":"), ok("b", "image/png", "PNG"),
                ok("c", "application/json", "{} {}")), 1);
        assertEquals(502, r.status());
        JsonNode json = body(r);
        assertEquals("malformed_json", json.at("/parts/a/error").asText());
        assertEquals("unsupported_content_type", json.at("/parts/b/error").asText());
        assertEquals("malformed_json", json.at("/parts/c/error").asText(), "two values are not one JSON body");
        assertEquals(200, json.at("/parts/a/status").asInt());
    }

    @Test
    void eachPartNamesItsSpanIdWhenGivenAndOnlyThen() throws Exception {
        List<Outcome> outcomes = List.of(ok("a", "application/json", "{}"), failed("b", Outcome.Kind.TIMEOUT));
        Composite.Response r = Composite.compose("m", List.of("a", "b"), outcomes,
                new long[] {0x00f067aa0ba902b7L, 0xb7ad6b7169203331L}, 1);
        String text = new String(r.body(), StandardCharsets.UTF_8);
        assertTrue(text.contains("\"a\":{\"status\":200,\"elapsedMillis\":5,\"spanId\":\"00f067aa0ba902b7\",\"body\":{}}"),
                text);
        assertTrue(text.contains("\"b\":{\"error\":\"timeout\",\"elapsedMillis\":1000,\"spanId\":\"b7ad6b7169203331\"}"),
                text);
        assertFalse(new String(Composite.compose("m", List.of("a", "b"), outcomes, 1).body(), StandardCharsets.UTF_8)
                .contains("spanId"));
    }
}
