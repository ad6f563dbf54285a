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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/**
 * The span export ({@code --otlp-endpoint}, or the OpenTelemetry SDK's own settings) end to end: a mashup
 * server over partner stubs exports to a real OTLP/HTTP receiver on loopback, which decodes what arrived.
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
        return TestServer.start(MashupOptions.builder().mode(mode).adminPort(-1)
                .otlpEndpoint(receiver.endpoint()).build(), definitions);
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
            assertEquals(SpanExport.SERVICE_NAME, receiver.resources().get(0).get("service.name"));

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
        try (TestServer server = TestServer.start(MashupOptions.builder().adminPort(-1).build(), definitions)) {
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
                    () -> MashupOptions.builder().otlpEndpoint(URI.create(bad)).build());
            assertTrue(e.getMessage().startsWith("--otlp-endpoint: \"" + bad + "\" (accepted: "), e.getMessage());
        }
    }

    @Test
    void theOpenTelemetrySettingsAloneTurnTheExportOnWithTheirHeadersAndServiceName() throws Exception {
        try (OtlpReceiver receiver = OtlpReceiver.start();
                SystemProperties otel = SystemProperties.set(Map.of("otel.traces.exporter", "otlp",
                        "otel.exporter.otlp.endpoint", receiver.endpoint().toString(),
                        "otel.exporter.otlp.headers", "authorization=Bearer collector-token",
                        "otel.service.name", "mashups-eu"));
                TestServer server = TestServer.start(MashupOptions.builder().adminPort(-1).build(), definitions)) {
            String[] started = traceresponse(traced(server, null));
            assertEquals("01", started[2], "a server that records starts its traces sampled");
            assertEquals(3, receiver.awaitTrace(started[0], 3).size());
            assertEquals("Bearer collector-token", receiver.headers().get(0).get("authorization"));
            assertEquals("mashups-eu", receiver.resources().get(0).get("service.name"));
        }
    }

    @Test
    void theCommandLinesEndpointWinsOverTheSettings() throws Exception {
        try (OtlpReceiver receiver = OtlpReceiver.start();
                SystemProperties otel = SystemProperties.set(Map.of("otel.traces.exporter", "zipkin",
                        "otel.exporter.otlp.traces.endpoint", "http://127.0.0.1:9/v1/traces"));
                TestServer server = exportingTo(receiver, Mode.ASYNC)) {
            String[] started = traceresponse(traced(server, null));
            assertEquals(3, receiver.awaitTrace(started[0], 3).size());
        }
    }

    @Test
    void theConfiguredSamplerDecidesTheFlagsThePartnersReceive() throws Exception {
        String continued = "00-" + TRACE_ID + "-" + PARENT_ID + "-01";
        // The caller's decision is followed; of the traces the server starts, a ratio of 0 records none.
        try (OtlpReceiver receiver = OtlpReceiver.start();
                SystemProperties otel = SystemProperties.set(Map.of("otel.traces.sampler", "parentbased_traceidratio",
                        "otel.traces.sampler.arg", "0"));
                TestServer server = exportingTo(receiver, Mode.ASYNC)) {
            ContentResponse started = traced(server, null);
            String[] startedTrace = traceresponse(started);
            assertEquals("00", startedTrace[2]);
            assertTrue(echoed(started).endsWith("-00"), echoed(started));
            ContentResponse sampled = traced(server, continued);
            assertEquals("01", traceresponse(sampled)[2]);
            assertTrue(echoed(sampled).endsWith("-01"), echoed(sampled));
            receiver.awaitTrace(TRACE_ID, 3);
            // Spans leave in the order requests end: the first one's would have been in this export or before.
            assertFalse(receiver.spans().stream().anyMatch(s -> s.traceId().equals(startedTrace[0])),
                    receiver.spans().toString());
        }
        // Not parent based: even a caller's sampled trace is not recorded, and its partners are told so.
        try (OtlpReceiver receiver = OtlpReceiver.start()) {
            try (SystemProperties otel = SystemProperties.set(Map.of("otel.traces.sampler", "traceidratio",
                    "otel.traces.sampler.arg", "0"));
                    TestServer server = exportingTo(receiver, Mode.ASYNC)) {
                ContentResponse notRecorded = traced(server, continued);
                assertEquals("00", traceresponse(notRecorded)[2]);
                assertTrue(echoed(notRecorded).endsWith("-00"), echoed(notRecorded));
            }
            // The stop sent whatever was waiting (aStopExportsWhatIsStillWaiting): nothing was.
            assertEquals(List.of(), receiver.spans());
        }
    }

    @Test
    void aBadSettingFailsTheStartNamingIt() throws Exception {
        try (SystemProperties otel = SystemProperties.set(Map.of("otel.traces.exporter", "zipkin"))) {
            Server server = MashupServer.createServer(MashupOptions.builder().port(0).adminPort(-1).build(),
                    definitions);
            try {
                Exception e = assertThrows(Exception.class, server::start);
                String messages = "";
                for (Throwable t = e; t != null; t = t.getCause()) {
                    messages += t.getMessage() + "\n";
                }
                assertTrue(messages.contains("span export (OTEL_* settings)") && messages.contains("zipkin"), messages);
            } finally {
                server.stop();
            }
        }
    }

    /**
     * Without settings no OpenTelemetry class is loaded, not even the API's: a fresh JVM serves a traced
     * mashup and lists every class it loaded.
     */
    @Test
    void withoutSettingsNoOpenTelemetryClassIsEvenLoaded() throws Exception {
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xlog:class+load=info", "-cp", System.getProperty("java.class.path"), NoExport.class.getName())
                .redirectErrorStream(true);
        builder.environment().keySet().removeIf(name -> name.startsWith("OTEL_"));
        Process process = builder.start();
        String output;
        try {
            output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the JVM ends");
        } finally {
            process.destroyForcibly();
        }
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("served 200 00-" + TRACE_ID), output);
        assertTrue(output.contains(" io.rc10k.mashup.internal.observability.TraceContext "), "the log lists classes");
        List<String> loaded = output.lines().filter(line -> line.contains("io.opentelemetry")).toList();
        assertEquals(List.of(), loaded);
    }

    /** {@link #withoutSettingsNoOpenTelemetryClassIsEvenLoaded}'s JVM: one traced mashup, without settings. */
    static final class NoExport {
        public static void main(String[] args) throws Exception {
            start();
            try (TestServer server = TestServer.start(MashupOptions.builder().adminPort(-1).build(), definitions)) {
                ContentResponse response = traced(server, "00-" + TRACE_ID + "-" + PARENT_ID + "-01");
                System.out.println("served " + response.getStatus() + " " + response.getHeaders().get("traceresponse"));
            } finally {
                stop();
            }
        }
    }

    /** What the echo partner received as its {@code traceparent}. */
    private static String echoed(ContentResponse response) throws Exception {
        return JSON.readTree(response.getContent()).at("/parts/echo/body/headers/traceparent").asText();
    }

    @Test
    void eachRequestsSpansAreExportedOnce() throws Exception {
        try (OtlpReceiver receiver = OtlpReceiver.start(); TestServer server = exportingTo(receiver, Mode.ASYNC)) {
            String first = traceresponse(traced(server, null))[0];
            String second = traceresponse(traced(server, null))[0];
            // The server ends a request's spans just after writing its answer: wait for both traces whole.
            receiver.awaitTrace(first, 3);
            receiver.awaitTrace(second, 3);
            assertEquals(3, receiver.spans().stream().filter(s -> s.traceId().equals(first)).count(),
                    receiver.spans().toString());
        }
    }
}
