package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.mashup.internal.routing.DefinitionsJson;
import io.rc10k.stubs.PartnerStubs;
import java.util.List;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Calls that name a method and a body template: the partner receives the method, the type and the body
 * with each parameter escaped for it, in every mode; what cannot work is refused when the definitions load.
 */
class CallMethodsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aPostCarriesItsBodyWithTheParametersEscapedForItsType(Mode mode) throws Exception {
        try (PartnerStubs stubs = PartnerStubs.start()) {
            Definitions definitions = DefinitionsJson.parse("""
                    {"partners": {"stub": {"baseUri": "%s"}},
                     "mashups": {"book": {"parameters": {"city": {"required": true}, "nights": {"default": "2"}},
                       "calls": [
                         {"name": "json", "partner": "stub", "template": "/echo", "method": "POST",
                          "body": "{\\"city\\": \\"{city}\\", \\"nights\\": {nights}}"},
                         {"name": "form", "partner": "stub", "template": "/echo", "method": "put",
                          "contentType": "application/x-www-form-urlencoded", "body": "city={city}&n={nights}"},
                         {"name": "plain", "partner": "stub", "template": "/echo"}]}}}
                    """.formatted(stubs.uri()), "methods.json");
            try (TestServer server = TestServer.start(mode, definitions)) {
                ContentResponse response = server.get("/mashup/book?city=Z%C3%BCrich%20%22old%22%5C");
                assertEquals(200, response.getStatus(), response.getContentAsString());
                JsonNode parts = JSON.readTree(response.getContent()).get("parts");

                JsonNode json = parts.at("/json/body");
                assertEquals("POST", json.get("method").asText(), json.toString());
                assertEquals("application/json", json.at("/headers/content-type").asText(), json.toString());
                JsonNode sent = JSON.readTree(json.get("body").asText());
                assertEquals("Zürich \"old\"\\", sent.get("city").asText(), json.toString());
                assertEquals(2, sent.get("nights").asInt(), json.toString());

                JsonNode form = parts.at("/form/body");
                assertEquals("PUT", form.get("method").asText(), form.toString());
                assertEquals("city=Z%C3%BCrich+%22old%22%5C&n=2", form.get("body").asText(), form.toString());

                assertEquals("GET", parts.at("/plain/body/method").asText(), parts.toString());
                assertEquals(0, parts.at("/plain/body/bodyBytes").asInt(), parts.toString());
            }
        }
    }

    @Test
    void whatCannotWorkIsRefusedWhenTheDefinitionsLoad() {
        DefinitionException e = assertThrows(DefinitionException.class, () -> DefinitionsJson.parse("""
                {"partners": {"p": {"baseUri": "http://127.0.0.1:9"}},
                 "mashups": {"m": {"parameters": {"q": {}}, "calls": [
                    {"name": "a", "partner": "p", "template": "/a", "method": "POST", "hedgeAfterMillis": 50},
                    {"name": "b", "partner": "p", "template": "/b", "body": "{q}"},
                    {"name": "c", "partner": "p", "template": "/c", "method": "POST", "body": "{\\"x\\": \\"{nope}\\"}"},
                    {"name": "d", "partner": "p", "template": "/d", "method": "FETCH"},
                    {"name": "e", "partner": "p", "template": "/e", "method": "DELETE", "cacheSeconds": 5},
                    {"name": "f", "partner": "p", "template": "/f", "method": "POST", "contentType": "text/plain"}]}}}
                """, "wrong.json"));
        assertEquals(List.of(
                "mashups.m.calls[0].hedgeAfterMillis: a POST call is never hedged: a second attempt would repeat its "
                        + "effect (accepted: GET, HEAD)",
                "mashups.m.calls[1].body: a GET call carries no body (accepted: with POST, PUT, PATCH or DELETE)",
                "mashups.m.calls[2].body: {nope} is not a parameter of the mashup (known: q)",
                "mashups.m.calls[3].method: \"FETCH\" (accepted: GET, HEAD, POST, PUT, PATCH, DELETE)",
                "mashups.m.calls[4].cacheSeconds: a DELETE call is never cached (accepted: GET, HEAD)",
                "mashups.m.calls[5]: contentType without a body (accepted: with body)"),
                e.problems().stream().sorted().toList());
    }
}
