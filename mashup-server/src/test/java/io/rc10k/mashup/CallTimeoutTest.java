package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.mashup.internal.routing.DefinitionsJson;
import io.rc10k.stubs.PartnerStubs;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A call's own {@code timeoutMillis}: a part that stalls ends {@code timeout} at its bound, and the
 * mashup answers then, not at its own (far later) deadline.
 */
class CallTimeoutTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aStalledCallEndsAtItsOwnTimeoutNotAtTheMashupsDeadline(Mode mode) throws Exception {
        try (PartnerStubs stubs = PartnerStubs.start()) {
            // The stall holds its answer for a minute, the mashup's deadline too: only the call's bound ends it
            // within the client's 30 s.
            Definitions definitions = DefinitionsJson.parse("""
                    {"partners": {"stub": {"baseUri": "%s", "retries": 0}},
                     "mashups": {"bounded": {"deadlineMillis": 60000, "calls": [
                        {"name": "fast", "partner": "stub", "template": "/weather?city=Oslo"},
                        {"name": "stalled", "partner": "stub", "template": "/stub?fault=stall", "timeoutMillis": 300}]}}}
                    """.formatted(stubs.uri()), "timeout.json");
            try (TestServer server = TestServer.start(mode, definitions)) {
                ContentResponse response = server.get("/mashup/bounded");
                assertEquals(200, response.getStatus(), response.getContentAsString());
                JsonNode parts = JSON.readTree(response.getContent()).get("parts");
                assertEquals("Oslo", parts.at("/fast/body/city").asText(), parts.toString());
                assertEquals("timeout", parts.at("/stalled/error").asText(), parts.toString());
            }
        }
    }

    @Test
    void aCallsTimeoutMayNotPassItsMashupsDeadline() {
        DefinitionException e = assertThrows(DefinitionException.class, () -> DefinitionsJson.parse("""
                {"partners": {"p": {"baseUri": "http://127.0.0.1:9"}},
                 "mashups": {"m": {"deadlineMillis": 1000, "calls": [
                    {"partner": "p", "template": "/x", "timeoutMillis": 1500},
                    {"partner": "p", "template": "/y", "timeoutMillis": 0}]}}}
                """, "t.json"));
        assertTrue(e.problems().contains("mashups.m.calls[0].timeoutMillis: 1500 is past the mashup's deadline "
                + "(accepted: 1 to its deadlineMillis, 1000)"), e.problems().toString());
        assertTrue(e.problems().contains("mashups.m.calls[1].timeoutMillis: 0 (accepted: 1 to 600000)"),
                e.problems().toString());
    }
}
