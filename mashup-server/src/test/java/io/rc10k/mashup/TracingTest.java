package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.broker.Partner;
import io.rc10k.broker.Protocol;
import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * W3C Trace Context end to end: what the partner stubs' {@code /echo} received from each call of a
 * mashup, and what the mashup answered, in every mode.
 */
class TracingTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT_ID = "00f067aa0ba902b7";
    private static final String TRACESTATE = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE";
    private static final Pattern TRACEPARENT = Pattern.compile("00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])");
    private static final List<String> PARTS = List.of("a", "b", "c");
    private static PartnerStubs stubs;
    private static Definitions definitions;

    @BeforeAll
    static void start() throws Exception {
        stubs = PartnerStubs.start(StubOptions.builder().h2c(true).build());
        definitions = Definitions.builder()
                .partner(Partner.builder("stub", stubs.uri().toString()).build())
                .partner(Partner.builder("h2", stubs.uri().toString()).protocol(Protocol.H2C).build())
                .mashup(MashupDefinition.builder("traced").deadline(Duration.ofSeconds(5))
                        .call("a", "stub", "/echo")
                        .call(new CallDefinition("b", "stub", "/echo", List.of("X-Request-Id")))
                        .call("c", "h2", "/echo")
                        .build())
                .build();
    }

    @AfterAll
    static void stop() {
        stubs.close();
    }

    /** What one call carried: the trace id, its span id and the flags, as the partner received them. */
    private record Seen(String traceId, String spanId, String flags, String tracestate) {
    }

    private static ContentResponse get(TestServer server, Map<String, String> headers) throws Exception {
        return server.client.newRequest(server.uri.resolve("/mashup/traced"))
                .headers(h -> headers.forEach(h::put))
                .timeout(30, TimeUnit.SECONDS)
                .send();
    }

    /** Each part's trace context at its partner, checked against the part's own {@code spanId}. */
    private static List<Seen> seenByPartners(ContentResponse response) throws Exception {
        assertEquals(200, response.getStatus(), response.getContentAsString());
        JsonNode parts = JSON.readTree(response.getContent()).get("parts");
        return PARTS.stream().map(name -> {
            JsonNode part = parts.get(name);
            JsonNode headers = part.at("/body/headers");
            String traceparent = headers.path("traceparent").asText(null);
            assertNotNull(traceparent, name + ": " + part);
            Matcher m = TRACEPARENT.matcher(traceparent);
            assertTrue(m.matches(), name + ": " + traceparent);
            assertEquals(part.get("spanId").asText(), m.group(2), name + ": the part names the span its call sent");
            return new Seen(m.group(1), m.group(2), m.group(3), headers.path("tracestate").asText(null));
        }).toList();
    }

    /** The answer's {@code traceresponse}: trace id, the mashup request's own span id, flags. */
    private static Matcher traceresponse(ContentResponse response) {
        String value = response.getHeaders().get("traceresponse");
        assertNotNull(value, "traceresponse header");
        Matcher m = TRACEPARENT.matcher(value);
        assertTrue(m.matches(), value);
        return m;
    }

    private static void assertDistinctSpans(List<Seen> seen, String... others) {
        Set<String> spans = new HashSet<>(List.of(others));
        for (Seen s : seen) {
            assertTrue(spans.add(s.spanId()), "span " + s.spanId() + " is used once: " + seen);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void theInboundTraceReachesEveryPartnerWithASpanPerCall(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            ContentResponse response = get(server, Map.of("traceparent", "00-" + TRACE_ID + "-" + PARENT_ID + "-01",
                    "tracestate", TRACESTATE, "X-Request-Id", "r-1"));
            List<Seen> seen = seenByPartners(response);
            for (Seen s : seen) {
                assertEquals(new Seen(TRACE_ID, s.spanId(), "01", TRACESTATE), s);
            }
            Matcher answer = traceresponse(response);
            assertEquals(TRACE_ID, answer.group(1));
            assertEquals("01", answer.group(3));
            assertDistinctSpans(seen, PARENT_ID, answer.group(2));
            JsonNode forwarded = JSON.readTree(response.getContent()).at("/parts/b/body/headers");
            assertEquals("r-1", forwarded.path("x-request-id").asText(), "forwarded headers travel with the trace");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aRequestWithoutTraceparentStartsOneTraceForAllItsCalls(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            Set<String> traces = new HashSet<>();
            for (int i = 0; i < 2; i++) {
                ContentResponse response = get(server, Map.of("tracestate", TRACESTATE));
                List<Seen> seen = seenByPartners(response);
                String traceId = seen.get(0).traceId();
                assertFalse(traceId.matches("0+"), traceId);
                for (Seen s : seen) {
                    assertEquals(new Seen(traceId, s.spanId(), "00", null), s,
                            "one trace, not sampled, no tracestate without a traceparent");
                }
                Matcher answer = traceresponse(response);
                assertEquals(traceId, answer.group(1));
                assertEquals("00", answer.group(3));
                assertDistinctSpans(seen, answer.group(2));
                traces.add(traceId);
            }
            assertEquals(2, traces.size(), "each request starts its own trace");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aMalformedTraceparentStartsAFreshTraceAndItsTracestateIsDropped(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            String upper = "00-" + TRACE_ID.toUpperCase(Locale.ROOT) + "-" + PARENT_ID + "-01";
            ContentResponse response = get(server, Map.of("traceparent", upper, "tracestate", TRACESTATE));
            List<Seen> seen = seenByPartners(response);
            String traceId = seen.get(0).traceId();
            assertNotEquals(TRACE_ID, traceId);
            for (Seen s : seen) {
                assertEquals(new Seen(traceId, s.spanId(), "00", null), s);
            }
            assertEquals(traceId, traceresponse(response).group(1));
            assertDistinctSpans(seen, PARENT_ID);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void twoTraceparentsStartAFreshTraceAndTwoTracestateFieldsAreOneList(Mode mode) throws Exception {
        String traceparent = "00-" + TRACE_ID + "-" + PARENT_ID + "-01";
        try (TestServer server = TestServer.start(mode, definitions)) {
            ContentResponse twice = server.client.newRequest(server.uri.resolve("/mashup/traced"))
                    .headers(h -> h.add("traceparent", traceparent).add("traceparent", traceparent))
                    .timeout(30, TimeUnit.SECONDS).send();
            for (Seen s : seenByPartners(twice)) {
                assertNotEquals(TRACE_ID, s.traceId(), "a duplicated traceparent is not continued");
            }
            ContentResponse split = server.client.newRequest(server.uri.resolve("/mashup/traced"))
                    .headers(h -> h.add("traceparent", traceparent).add("tracestate", "rojo=00f067aa0ba902b7")
                            .add("tracestate", "congo=t61rcWkgMzE"))
                    .timeout(30, TimeUnit.SECONDS).send();
            for (Seen s : seenByPartners(split)) {
                assertEquals(new Seen(TRACE_ID, s.spanId(), "01", TRACESTATE), s, "sent on as one field");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void partsThatFailStillNameTheirSpan(Mode mode) throws Exception {
        Definitions failing = Definitions.builder()
                .partner(Partner.builder("stub", stubs.uri().toString()).retries(0).build())
                .mashup(MashupDefinition.builder("failing").deadline(Duration.ofSeconds(5))
                        .call("error", "stub", "/stub?status=500")
                        .call("echo", "stub", "/echo")
                        .build())
                .build();
        try (TestServer server = TestServer.start(mode, failing)) {
            ContentResponse response = server.client.newRequest(server.uri.resolve("/mashup/failing"))
                    .headers(h -> h.put("traceparent", "00-" + TRACE_ID + "-" + PARENT_ID + "-01"))
                    .timeout(30, TimeUnit.SECONDS).send();
            JsonNode parts = JSON.readTree(response.getContent()).get("parts");
            assertEquals("http_error", parts.at("/error/error").asText(), parts.toString());
            assertTrue(parts.at("/error/spanId").asText().matches("[0-9a-f]{16}"), parts.toString());
            assertNotEquals(parts.at("/error/spanId").asText(), parts.at("/echo/spanId").asText());
            assertEquals(TRACE_ID, traceresponse(response).group(1));
            assertNull(parts.at("/error/body").textValue());
        }
    }
}
