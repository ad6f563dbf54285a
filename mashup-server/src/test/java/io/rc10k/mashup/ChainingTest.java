package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.broker.CircuitBreakerSettings;
import io.rc10k.broker.Partner;
import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Chained calls in every mode, against real partner stubs: a call that takes a value from an earlier
 * part's JSON body is made once that part has answered, with the value percent-encoded as an inbound
 * value is — so what a partner answers cannot send the next call anywhere but its own partner.
 */
class ChainingTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static PartnerStubs stubs;
    private static Definitions definitions;

    @BeforeAll
    static void start() throws Exception {
        stubs = PartnerStubs.start(StubOptions.builder().build());
        String base = stubs.uri().toString();
        definitions = Definitions.builder()
                .partner(Partner.builder("stub", base).retries(0).circuitBreaker(CircuitBreakerSettings.DISABLED)
                        .build())
                .partner(Partner.builder("other", base).circuitBreaker(CircuitBreakerSettings.DISABLED).build())
                .mashup(MashupDefinition.builder("chain").deadline(Duration.ofSeconds(30))
                        .parameter(ParameterDefinition.required("q"))
                        // The first part answers after 200 ms with {"id": q}; the second needs that id.
                        .call("first", "stub", "/stub?delay=200&id={q}")
                        .call("second", "other", "/echo?city={first.body.id}")
                        .call("alone", "other", "/stub?id=alone")
                        .build())
                .mashup(MashupDefinition.builder("stamped").deadline(Duration.ofSeconds(30))
                        .call("first", "stub", "/stub?delay=200&id=one&stamp=true")
                        .call("second", "other", "/stub?id={first.body.id}&stamp=true")
                        .build())
                .mashup(MashupDefinition.builder("broken").deadline(Duration.ofSeconds(30))
                        .call("first", "stub", "/stub?status=500")
                        .call("second", "other", "/echo?city={first.body.id}")
                        .build())
                .mashup(MashupDefinition.builder("dots").deadline(Duration.ofSeconds(30))
                        .call("first", "stub", "/stub?id=..")
                        .call("second", "other", "/stub/{first.body.id}")
                        .build())
                .build();
    }

    @AfterAll
    static void stop() {
        stubs.close();
    }

    private static JsonNode get(TestServer server, String pathAndQuery, int status) throws Exception {
        ContentResponse response = server.client.newRequest(server.uri.resolve(pathAndQuery))
                .timeout(30, TimeUnit.SECONDS).send();
        assertEquals(status, response.getStatus(), response.getContentAsString());
        return JSON.readTree(response.getContent());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aLaterCallTakesItsValueFromAnEarlierPartsAnswer(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            JsonNode body = get(server, "/mashup/chain?q=Lyon", 200);
            assertTrue(body.get("complete").asBoolean(), body.toString());
            assertEquals("city=Lyon", body.at("/parts/second/body/query").asText(), body.toString());
            // Two stages: the second call went out only once the first had answered (its value is the proof),
            // so the mashup took at least both calls' times, one after the other.
            assertTrue(body.get("elapsedMillis").asLong() >= body.at("/parts/first/elapsedMillis").asLong()
                    + body.at("/parts/second/elapsedMillis").asLong(), body.toString());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void thePartnerReceivesAChainedCallOnlyAfterItAnsweredTheCallItDependsOn(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            JsonNode body = get(server, "/mashup/stamped", 200);
            assertTrue(body.get("complete").asBoolean(), body.toString());
            // The stub's own clock: it answered the first call delayMillis after receiving it, and received
            // the second no earlier than that.
            long firstReceived = body.at("/parts/first/body/receivedAtMicros").asLong();
            long firstAnswered = firstReceived + 1_000 * body.at("/parts/first/body/delayMillis").asLong();
            long secondReceived = body.at("/parts/second/body/receivedAtMicros").asLong();
            assertTrue(firstReceived > 0 && secondReceived >= firstAnswered, body.toString());
            assertEquals("one", body.at("/parts/second/body/id").asText(), body.toString());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aValueFromAPartCannotLeaveTheConfiguredPartner(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            String hostile = "../../admin?x=1&y=2#f http://evil.example/";
            JsonNode body = get(server, "/mashup/chain?q=" + URLEncoder.encode(hostile, StandardCharsets.UTF_8), 200);
            assertEquals(hostile, body.at("/parts/first/body/id").asText(), body.toString());
            // The stubs' /echo saw its own path and one query value holding the whole text, percent-encoded.
            assertEquals("/echo", body.at("/parts/second/body/path").asText(), body.toString());
            assertEquals("city=..%2F..%2Fadmin%3Fx%3D1%26y%3D2%23f%20http%3A%2F%2Fevil.example%2F",
                    body.at("/parts/second/body/query").asText(), body.toString());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aLaterCallWithoutItsValueIsSkippedUnsent(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            Await.idle(stubs);
            long before = stubs.stats().served();
            JsonNode broken = get(server, "/mashup/broken", 502);
            assertEquals("http_error", broken.at("/parts/first/error").asText(), broken.toString());
            assertEquals("skipped", broken.at("/parts/second/error").asText(), broken.toString());
            JsonNode dots = get(server, "/mashup/dots", 200);
            assertEquals("skipped", dots.at("/parts/second/error").asText(), dots.toString());
            Await.idle(stubs);
            assertEquals(2, stubs.stats().served() - before, "only the first calls reached the partner: "
                    + stubs.stats().toJson());
        }
    }
}
