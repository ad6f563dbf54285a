package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.broker.Partner;
import io.rc10k.mashup.internal.observability.SpanExport;
import io.rc10k.stubs.PartnerStubs;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/**
 * The span export ({@code --otlp-endpoint}) end to end: a mashup server over partner stubs exports to
 * a real OTLP/HTTP receiver on loopback, which decodes what arrived.
 */
class SpanExportTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT_ID = "00f067aa0ba902b7";
    private static PartnerStubs stubs;
    private static Definitions definitions;

    @BeforeAll
    static void start() throws Exception {
        stubs = PartnerStubs.start();
        definitions = Definitions.builder()
                .partner(Partner.builder("stub", stubs.uri().toString()).retries(0).build())
                .mashup(MashupDefinition.builder("traced").deadline(Duration.ofSeconds(5))
                        .call("echo", "stub", "/echo")
                        .call("error", "stub", "/stub?status=503")
                        .build())
                .build();
    }

    @AfterAll
    static void stop() {
        stubs.close();
    }

    private static TestServer exportingTo(OtlpReceiver receiver, Mode mode) throws Exception {
        return TestServer.start(MashupOptions.defaults().withMode(mode).withAdminPort(-1)
                .withOtlpEndpoint(receiver.endpoint()), definitions);
    }

    private static ContentResponse traced(TestServer server, String traceparent) throws Exception {
        return server.client.newRequest(server.uri.resolve("/mashup/traced"))
                .headers(h -> {
                    if (traceparent != null) {
                        h.put("traceparent", traceparent);
                    }
                })
                .timeout(30, TimeUnit.SECONDS).send();
    }

    /** The answer's {@code traceresponse} as {trace id, span id, flags}. */
    private static String[] traceresponse(ContentResponse response) {
        String[] fields = response.getHeaders().get("traceresponse").split("-");
        return new String[] {fields[1], fields[2], fields[3]};
    }

    private static OtlpReceiver.Span only(List<OtlpReceiver.Span> spans, int kind, String name) {
        List<OtlpReceiver.Span> matching = spans.stream().filter(s -> s.kind() == kind && s.name().equals(name))
                .toList();
        assertEquals(1, matching.size(), kind + " " + name + " in " + spans);
        return matching.get(0);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aSampledMashupExportsItsServerSpanAndAClientSpanPerCallWithTheIdsThePartnersSaw(Mode mode)
            throws Exception {
        try (OtlpReceiver receiver = OtlpReceiver.start(); TestServer server = exportingTo(receiver, mode)) {
            ContentResponse response = traced(server, "00-" + TRACE_ID + "-" + PARENT_ID + "-01");
            assertEquals(200, response.getStatus(), response.getContentAsString());
            String[] answer = traceresponse(response);
            JsonNode parts = JSON.readTree(response.getContent()).get("parts");
            String seenByEcho = parts.at("/echo/body/headers/traceparent").asText();

            List<OtlpReceiver.Span> spans = receiver.awaitTrace(TRACE_ID, 3);
            assertEquals(3, spans.size(), spans.toString());
            OtlpReceiver.Span request = only(spans, OtlpReceiver.Span.SERVER, "GET /mashup/traced");
            assertEquals(answer[1], request.spanId(), "the server span is the traceresponse's span");
            assertEquals(PARENT_ID, request.parentSpanId(), "a child of the caller's span");
            assertEquals(200L, request.attributes().get("http.response.status_code"));
            assertEquals(false, request.attributes().get("rc10k.complete"));
            assertEquals("/mashup/traced", request.attributes().get("http.route"));
            assertTrue(request.endNanos() > request.startNanos(), request.toString());

            OtlpReceiver.Span echo = only(spans, OtlpReceiver.Span.CLIENT, "GET /echo");
            assertEquals(parts.at("/echo/spanId").asText(), echo.spanId());
            assertEquals("00-" + TRACE_ID + "-" + echo.spanId() + "-01", seenByEcho, "the id the partner received");
            assertEquals(request.spanId(), echo.parentSpanId());
            assertEquals("echo", echo.attributes().get("rc10k.part"));
            assertEquals(200L, echo.attributes().get("http.response.status_code"));
            assertEquals("127.0.0.1", echo.attributes().get("server.address"));
            assertEquals((long) stubs.uri().getPort(), echo.attributes().get("server.port"));
            assertNull(echo.attributes().get("error.type"));

            OtlpReceiver.Span error = only(spans, OtlpReceiver.Span.CLIENT, "GET /stub?status=503");
            assertEquals(parts.at("/error/spanId").asText(), error.spanId());
            assertEquals(request.spanId(), error.parentSpanId());
            assertEquals("503", error.attributes().get("error.type"));
        }
    }

    @Test
    void anUnsampledTraceIsNotExportedAndATraceTheServerStartsIsSampledAndExported() throws Exception {
        String unsampled = "0af7651916cd43dd8448eb211c80319c";
        try (OtlpReceiver receiver = OtlpReceiver.start(); TestServer server = exportingTo(receiver, Mode.ASYNC)) {
            ContentResponse notRecorded = traced(server, "00-" + unsampled + "-" + PARENT_ID + "-00");
            assertEquals("00", traceresponse(notRecorded)[2], "the caller's decision is passed on");
            String[] started = traceresponse(traced(server, null));
            assertEquals("01", started[2], "a server that records starts its traces sampled");
            List<OtlpReceiver.Span> spans = receiver.awaitTrace(started[0], 3);
            assertEquals("", only(spans, OtlpReceiver.Span.SERVER, "GET /mashup/traced").parentSpanId(),
                    "the root of the trace it started");
            // Exports leave in the order requests end: the unsampled one would have been in this one or before.
            assertFalse(receiver.spans().stream().anyMatch(s -> s.traceId().equals(unsampled)), receiver.spans()
                    .toString());
        }
    }

    @Test
    void exportsThatFailAreLoggedOnceAndSoIsTheirRecovery() throws Exception {
        Logger log = (Logger) LoggerFactory.getLogger(SpanExport.class);
        LinkedBlockingQueue<ILoggingEvent> lines = new LinkedBlockingQueue<>();
        AppenderBase<ILoggingEvent> capture = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent event) {
                lines.add(event);
            }
        };
        capture.start();
        log.addAppender(capture);
        Level was = log.getLevel();
        log.setLevel(Level.INFO); // the tests' configuration logs warnings only
        try (OtlpReceiver receiver = OtlpReceiver.start(); TestServer server = exportingTo(receiver, Mode.ASYNC)) {
            receiver.refuseWith(400); // not one the exporter retries
            traced(server, null);
            ILoggingEvent failed = next(lines, Level.WARN);
            assertTrue(failed.getFormattedMessage().startsWith("could not export 3 spans to " + receiver.endpoint()
                    + "/v1/traces: the endpoint answered with an error"), failed.getFormattedMessage());
            traced(server, null); // fails too, silently
            receiver.refuseWith(0);
            String[] accepted = traceresponse(traced(server, null));
            receiver.awaitTrace(accepted[0], 3);
            // Nothing in between: a failing export is told once.
            ILoggingEvent recovered = next(lines, null);
            assertEquals(Level.INFO, recovered.getLevel(), recovered.getFormattedMessage());
            Matcher lost = Pattern.compile("exporting spans to " + Pattern.quote(receiver.endpoint() + "/v1/traces")
                    + " again; (\\d+) spans were lost while it failed").matcher(recovered.getFormattedMessage());
            assertTrue(lost.matches(), recovered.getFormattedMessage());
            // The second request's spans failed on their own, or (usually) went with the third's.
            long lostSpans = Long.parseLong(lost.group(1));
            assertTrue(lostSpans == 3 || lostSpans == 6, lost.group());
            assertEquals(9 - lostSpans, server.server.getBean(SpanExport.class).exported());
        } finally {
            log.detachAppender(capture);
            log.setLevel(was);
        }
    }

    /** The next line the export logs at {@code level} (null: at any), waiting (bounded) for it. */
    private static ILoggingEvent next(LinkedBlockingQueue<ILoggingEvent> lines, Level level)
            throws InterruptedException {
        while (true) {
            ILoggingEvent event = lines.poll(30, TimeUnit.SECONDS);
            assertTrue(event != null, "no " + (level == null ? "" : level + " ") + "line within 30 s");
            if (level == null || event.getLevel() == level) {
                return event;
            }
        }
    }

    @Test
    void aStopExportsWhatIsStillWaiting() throws Exception {
        try (OtlpReceiver receiver = OtlpReceiver.start()) {
            String[] answer;
            try (TestServer server = exportingTo(receiver, Mode.ASYNC)) {
                answer = traceresponse(traced(server, "00-" + TRACE_ID + "-" + PARENT_ID + "-01"));
            }
            // No wait: the stop returned after the last export had been answered.
            assertEquals(3, receiver.spans().stream().filter(s -> s.traceId().equals(answer[0])).count(),
                    receiver.spans().toString());
        }
    }

    @Test
    void withoutAnEndpointThereIsNoExportAndTracesStartUnsampled() throws Exception {
        try (TestServer server = TestServer.start(MashupOptions.defaults().withAdminPort(-1), definitions)) {
            assertNull(server.server.getBean(SpanExport.class));
            assertEquals("00", traceresponse(traced(server, null))[2]);
        }
    }

    @Test
    void theEndpointWithoutAPathSendsToItsTracesPath() {
        assertEquals(URI.create("http://collector:4318/v1/traces"),
                SpanExport.tracesUrl(URI.create("http://collector:4318")));
        assertEquals(URI.create("http://collector:4318/v1/traces"),
                SpanExport.tracesUrl(URI.create("http://collector:4318/")));
        assertEquals(URI.create("https://otlp.example/tenant/v1/traces"),
                SpanExport.tracesUrl(URI.create("https://otlp.example/tenant/v1/traces")));
        for (String bad : List.of("ftp://collector:4318", "collector:4318", "http://collector:4318/?a=b")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> MashupOptions.defaults().withOtlpEndpoint(URI.create(bad)));
            assertTrue(e.getMessage().startsWith("--otlp-endpoint: \"" + bad + "\" (accepted: "), e.getMessage());
        }
    }

    @Test
    void eachRequestsSpansAreExportedOnce() throws Exception {
        try (OtlpReceiver receiver = OtlpReceiver.start(); TestServer server = exportingTo(receiver, Mode.ASYNC)) {
            String first = traceresponse(traced(server, null))[0];
            String second = traceresponse(traced(server, null))[0];
            receiver.awaitTrace(second, 3);
            assertEquals(3, receiver.spans().stream().filter(s -> s.traceId().equals(first)).count(),
                    receiver.spans().toString());
        }
    }
}
