package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rc10k.broker.BrokerClient;
import io.rc10k.mashup.internal.observability.MashupMetrics;
import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.io.InputStream;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The server over real partner stubs on loopback, in every mode. */
class MashupServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static PartnerStubs stubs;
    private static PartnerStubs elsewhere;
    private static Definitions definitions;

    @BeforeAll
    static void start() throws Exception {
        // Well past the partial mashup's 3 s deadline: its stalled part must end by timing out.
        stubs = PartnerStubs.start(StubOptions.builder().h2c(true).maxStallMillis(10_000).build());
        elsewhere = PartnerStubs.start();
        definitions = TestServer.definitions(stubs);
    }

    @AfterAll
    static void stop() throws Exception {
        stubs.close();
        elsewhere.close();
    }

    private static JsonNode json(ContentResponse response) throws Exception {
        assertEquals("application/json", response.getMediaType());
        return JSON.readTree(response.getContent());
    }

    /** The composite without its timings, which differ from run to run. */
    private static JsonNode withoutTimesOrSpans(JsonNode node) {
        JsonNode copy = node.deepCopy();
        strip(copy);
        return copy;
    }

    private static void strip(JsonNode node) {
        if (node instanceof ObjectNode object) {
            object.remove("elapsedMillis");
            object.remove("spanId"); // random per call
            object.elements().forEachRemaining(MashupServerTest::strip);
        }
    }

    @Test
    void noAnswerOnEitherPortNamesJettyOrItsVersion() throws Exception {
        try (TestServer server = TestServer.start(Mode.ASYNC, definitions)) {
            List<String> answers = new ArrayList<>();
            for (String path : List.of("/mashup/travel?city=Paris", "/mashup/nowhere", "/health/ready", "/metrics")) {
                answers.add(AllowedMethodsTest.raw(server.uri, "GET " + path + " HTTP/1.1", ""));
            }
            for (String path : List.of("/health/ready", "/metrics", "/dashboard", "/nowhere")) {
                answers.add(AllowedMethodsTest.raw(server.admin(), "GET " + path + " HTTP/1.1", ""));
            }
            // Refused by Jetty itself, before any handler: its error handler answers.
            answers.add(AllowedMethodsTest.raw(server.uri, "GET /mashup/%00 HTTP/1.1", ""));
            answers.add(AllowedMethodsTest.raw(server.uri, "GET /mashup/travel HTTP/1.1", "X-Big: "
                    + "x".repeat(9_000) + "\r\n"));
            for (String answer : answers) {
                String head = answer.substring(0, answer.indexOf("\r\n\r\n"));
                assertFalse(head.toLowerCase(Locale.ROOT).contains("\r\nserver:"), head);
                assertFalse(head.toLowerCase(Locale.ROOT).contains("jetty"), head);
                assertFalse(head.toLowerCase(Locale.ROOT).contains("x-powered-by"), head);
            }
            assertTrue(answers.get(0).startsWith("HTTP/1.1 200 "), answers.get(0));
            assertTrue(answers.get(answers.size() - 1).startsWith("HTTP/1.1 431 "), answers.get(answers.size() - 1));
        }
    }

    @Test
    void everyModeReturnsTheSameComposite() throws Exception {
        List<JsonNode> composites = new ArrayList<>();
        List<Mode> modes = new ArrayList<>(List.of(Mode.ASYNC, Mode.SYNC));
        if (Runtime.version().feature() >= 21) {
            modes.add(Mode.VIRTUAL);
        }
        for (Mode mode : modes) {
            try (TestServer server = TestServer.start(mode, definitions)) {
                for (String path : List.of("/mashup/travel?city=Paris", "/mashup/partial", "/mashup/broken")) {
                    ContentResponse response = server.get(path);
                    composites.add(withoutTimesOrSpans(json(response)).deepCopy());
                    assertNotNull(response.getHeaders().get("Mashup-Complete"));
                }
            }
        }
        int perMode = 3;
        for (int m = 1; m < modes.size(); m++) {
            for (int i = 0; i < perMode; i++) {
                assertEquals(composites.get(i), composites.get(m * perMode + i), modes.get(m) + " differs from async");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void completeCompositeEmbedsEveryPartnersJson(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            ContentResponse response = server.get("/mashup/travel?city=Paris");
            assertEquals(200, response.getStatus());
            assertEquals("true", response.getHeaders().get("Mashup-Complete"));
            JsonNode body = json(response);
            assertEquals("travel", body.get("mashup").asText());
            assertTrue(body.get("complete").asBoolean());
            assertEquals("Paris", body.at("/parts/weather/body/city").asText());
            assertEquals(200, body.at("/parts/hotels/status").asInt());
            assertEquals("Paris", body.at("/parts/flights/body/to").asText(), "the h2c partner answered too");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void partialResultsKeepTheGoodPartsAndNameEachError(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            ContentResponse response = server.get("/mashup/partial");
            assertEquals(200, response.getStatus());
            assertEquals("false", response.getHeaders().get("Mashup-Complete"));
            JsonNode body = json(response);
            assertEquals("fast", body.at("/parts/fast/body/id").asText());
            assertEquals("timeout", body.at("/parts/stalled/error").asText());
            assertEquals("http_error", body.at("/parts/broken/error").asText());
            assertEquals(503, body.at("/parts/broken/status").asInt());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void statusRulesHold(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            assertEquals(504, server.get("/mashup/slow").getStatus(), "every part timed out");
            ContentResponse broken = server.get("/mashup/broken");
            assertEquals(502, broken.getStatus(), "every part failed");
            JsonNode body = json(broken);
            assertEquals("reset", body.at("/parts/reset/error").asText());
            assertEquals("malformed_json", body.at("/parts/garbage/error").asText());
            ContentResponse missing = server.get("/mashup/travel");
            assertEquals(400, missing.getStatus());
            assertEquals("city", json(missing).get("parameter").asText());
            assertEquals(404, server.get("/mashup/nowhere").getStatus());
            assertEquals(200, server.get("/health").getStatus());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void hostileValuesArriveEncodedAtTheConfiguredPartnerOnly(Mode mode) throws Exception {
        List<String> hostile = List.of("../../etc/passwd", "a%2Fb", "x%00y", "x\u0000y", "line\r\nX-Injected: 1",
                "@127.0.0.1:" + elsewhere.port(), "http://127.0.0.1:" + elsewhere.port() + "/stub",
                "//127.0.0.1:" + elsewhere.port(), "a&fault=reset", "#frag");
        try (TestServer server = TestServer.start(mode, definitions)) {
            elsewhere.resetStats();
            for (String value : hostile) {
                String encoded = URLEncoder.encode(value, StandardCharsets.UTF_8);
                ContentResponse query = server.get("/mashup/echo?q=" + encoded);
                assertEquals(200, query.getStatus(), value);
                assertEquals(value, json(query).at("/parts/echo/body/id").asText(), "query value reached as sent");
                // Jetty answers an ambiguous path with a 400 and closes the connection without announcing it
                // (no Connection: close), so each hostile path goes on a connection of its own.
                ContentResponse path = server.client.newRequest(server.uri.resolve("/mashup/pathecho/"
                        + encoded.replace("+", "%20"))).headers(h -> h.put("Connection", "close"))
                        .timeout(30, TimeUnit.SECONDS).send();
                if (value.contains("/") || value.contains("%") || value.chars().anyMatch(c -> c < 0x20)) {
                    // Jetty refuses ambiguous or control characters in a path (%2F, %00, %25, CR, LF) itself:
                    // a 400 before any call is made.
                    assertTrue(path.getStatus() == 200 || path.getStatus() == 400, value + " -> " + path.getStatus());
                    if (path.getStatus() == 200) {
                        assertEquals(value, json(path).at("/parts/echo/body/id").asText(), "path value reached as sent");
                    } else {
                        assertEquals("bad_request", json(path).get("error").asText(), path.getContentAsString());
                    }
                } else {
                    assertEquals(200, path.getStatus(), value);
                    assertEquals(value, json(path).at("/parts/echo/body/id").asText());
                }
            }
            assertEquals(0, elsewhere.stats().served(), "a call left the configured partner");
        }
    }

    @Test
    void theServersPoolIsTheBrokersExecutorAndAsyncStartsNoOtherRequestPool() throws Exception {
        Set<String> before = threadNames();
        try (TestServer server = TestServer.start(Mode.ASYNC, definitions)) {
            BrokerClient broker = server.server.getBean(BrokerClient.class);
            assertSame(server.server.getThreadPool(), broker.executor());
            QueuedThreadPool pool = (QueuedThreadPool) server.server.getThreadPool();
            List<CompletableFuture<ContentResponse>> all = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                all.add(new CompletableResponseListener(server.client.newRequest(
                        server.uri.resolve("/mashup/travel?city=Lima")).timeout(30, TimeUnit.SECONDS)).send());
            }
            for (CompletableFuture<ContentResponse> f : all) {
                assertEquals(200, f.get(60, TimeUnit.SECONDS).getStatus());
            }
            Set<String> started = threadNames();
            started.removeAll(before);
            String poolName = pool.getName();
            assertTrue(started.stream().allMatch(n -> n.startsWith(poolName) || n.startsWith("mashup-scheduler")
                    || n.startsWith("HttpClient") || n.startsWith("stub")),
                    "async mode started threads outside the shared pool: " + started);
        }
    }

    @Test
    void theMainConnectorHasTheAcceptorsAndSelectorsAskedFor() throws Exception {
        Server server = MashupServer.createServer(MashupOptions.builder().port(0).adminPort(-1)
                .maxThreads(32).acceptors(0).selectors(3).build(), definitions);
        server.start();
        try {
            ServerConnector main = (ServerConnector) server.getConnectors()[0];
            assertEquals(0, main.getAcceptors());
            assertEquals(3, main.getSelectorManager().getSelectorCount());
        } finally {
            server.stop();
        }
    }

    @Test
    void thePoolAndTheMainConnectorHaveTheSizesAndIdleTimeoutAskedFor() throws Exception {
        Server server = MashupServer.createServer(MashupOptions.builder().port(0).adminPort(-1).maxThreads(32)
                .minThreads(3).reservedThreads(0).idleTimeoutMillis(1_234).acceptQueue(77).build(), definitions);
        server.start();
        try {
            QueuedThreadPool pool = (QueuedThreadPool) server.getThreadPool();
            assertEquals(3, pool.getMinThreads());
            assertEquals(0, pool.getReservedThreads());
            ServerConnector main = (ServerConnector) server.getConnectors()[0];
            assertEquals(77, main.getAcceptQueueSize());
            assertEquals(1_234, main.getIdleTimeout());
        } finally {
            server.stop();
        }
    }

    @Test
    void aKeptAliveConnectionLeftIdleIsClosedByTheServerAfterTheIdleTimeout() throws Exception {
        try (TestServer server = TestServer.start(MashupOptions.builder().idleTimeoutMillis(200).build(),
                definitions); Socket socket = new Socket(server.uri.getHost(), server.uri.getPort())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                head.append((char) in.read());
            }
            assertTrue(head.toString().startsWith("HTTP/1.1 200"), head.toString());
            assertFalse(head.toString().toLowerCase(Locale.ROOT).contains("connection: close"), head.toString());
            long length = Long.parseLong(head.toString().replaceAll("(?is).*content-length: *(\\d+).*", "$1"));
            assertEquals(length, in.skip(length));
            // Kept alive, then idle: the server ends it (a read sees the end) long before the read's own bound.
            assertEquals(-1, in.read(), "the server closed the idle connection");
        }
    }

    private static Set<String> threadNames() {
        Set<String> names = new HashSet<>();
        Thread.getAllStackTraces().keySet().forEach(t -> names.add(t.getName()));
        return names;
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void beyondMaxInFlightRequestsGet503WithRetryAfterAtOnce(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(MashupOptions.builder().mode(mode).maxInFlight(2).build(),
                definitions)) {
            // Held for 8 s: long enough that both are still in flight when the next request arrives,
            // however slowly this machine gets there.
            List<CompletableFuture<ContentResponse>> held = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                held.add(new CompletableResponseListener(server.client.newRequest(
                        server.uri.resolve("/mashup/wait?ms=8000")).timeout(30, TimeUnit.SECONDS)).send());
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            MashupMetrics metrics = server.server.getBean(MashupMetrics.class);
            while (metrics.inboundInFlight() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(2, metrics.inboundInFlight(), "both held requests admitted");
            ContentResponse shed = server.get("/mashup/travel?city=Paris");
            assertEquals(503, shed.getStatus());
            assertEquals("1", shed.getHeaders().get("Retry-After"));
            assertEquals("overloaded", json(shed).get("error").asText());
            assertEquals(200, server.get("/health").getStatus(), "health is never shed");
            assertTrue(server.get("/metrics").getContentAsString()
                    .contains("mashup_requests_total{mashup=\"any\",outcome=\"shed\"}"));
            for (CompletableFuture<ContentResponse> f : held) {
                assertEquals(200, f.get(30, TimeUnit.SECONDS).getStatus(), "admitted requests still complete");
            }
            // The held requests' answers reach the client a moment before their slots are given back.
            long again = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            int status = server.get("/mashup/travel?city=Paris").getStatus();
            while (status == 503 && System.nanoTime() < again) {
                Thread.sleep(20);
                status = server.get("/mashup/travel?city=Paris").getStatus();
            }
            assertEquals(200, status, "served again once below the limit");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void metricsCarryTheDesignNames(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            server.get("/mashup/travel?city=Rome");
            server.get("/mashup/partial");
            String metrics = server.metricsOnceAnswered();
            for (String name : List.of("jvm_threads_live_threads", "jvm_threads_peak_threads", "jetty_threads_busy",
                    "jetty_threads_current", "mashup_inbound_inflight", "mashup_outbound_inflight",
                    "mashup_outbound_connections{", "mashup_requests_total{mashup=\"travel\",outcome=\"complete\"}",
                    "mashup_requests_total{mashup=\"partial\",outcome=\"partial\"}",
                    "mashup_partner_calls_total{outcome=\"ok\",partner=\"weather\"}",
                    "mashup_partner_calls_total{outcome=\"timeout\",partner=\"stub\"}",
                    "mashup_request_seconds_count{mashup=\"travel\"}", "mashup_request_seconds_sum",
                    "mashup_request_seconds_max", "mashup_request_seconds_bucket")) {
                assertTrue(metrics.contains(name), name + " missing from /metrics");
            }
            assertTrue(metrics.contains("mashup_inbound_inflight 0.0"), "in-flight gauge back to 0");
        }
    }

    @Test
    void syncModeWithMoreRequestsThanPoolThreadsQueuesThemButNeverStarvesTheirPartnerAnswers() throws Exception {
        // 40 blocking requests on a pool of 16: were all its threads blocked in servlets, the partner
        // answers they wait for would sit in the pool's queue and every wave would end at the deadline.
        // Each request waits 1 s on its partner, so that more requests than may block at once arrive
        // while the first ones still block, however slowly this machine sends them.
        try (TestServer server = TestServer.start(MashupOptions.builder().mode(Mode.SYNC).maxThreads(16).build(),
                definitions)) {
            List<CompletableFuture<ContentResponse>> all = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                all.add(new CompletableResponseListener(server.client.newRequest(
                        server.uri.resolve("/mashup/wait?ms=1000")).timeout(60, TimeUnit.SECONDS)).send());
            }
            for (CompletableFuture<ContentResponse> f : all) {
                ContentResponse response = f.get(60, TimeUnit.SECONDS);
                assertEquals(200, response.getStatus());
                assertEquals("true", response.getHeaders().get("Mashup-Complete"), "no part timed out");
            }
            assertSame(server.server.getThreadPool(), server.server.getBean(BrokerClient.class).executor(),
                    "one pool, shared");
            QoSHandler queue = server.server.getDescendant(
                    QoSHandler.class);
            assertTrue(queue.getTotalSuspendedRequestCount() > 0, "the excess waited suspended, holding no thread");
            assertEquals(0, queue.getTotalExpiredRequestCount(), "none waited too long");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void threadHoldTimeIsRecordedOncePerRequestAndIsAPartOfTheRequestOnlyInAsyncMode(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            for (int i = 0; i < 5; i++) {
                assertEquals(200, server.get("/mashup/wait?ms=200").getStatus());
            }
            // Both timers are recorded once the response is written: wait, bounded, for the fifth.
            String metrics = server.get("/metrics").getContentAsString();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!(sample(metrics, "mashup_thread_hold_seconds_count{mashup=\"wait\"}") >= 5)
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
                metrics = server.get("/metrics").getContentAsString();
            }
            assertEquals(5, sample(metrics, "mashup_thread_hold_seconds_count{mashup=\"wait\"}"));
            assertEquals(5, sample(metrics, "mashup_partner_call_seconds_count{partner=\"stub\"}"));
            double held = sample(metrics, "mashup_thread_hold_seconds_sum{mashup=\"wait\"}");
            double served = sample(metrics, "mashup_request_seconds_sum{mashup=\"wait\"}");
            if (mode == Mode.ASYNC) {
                // The thread is held while routing and while writing, not while the partner answers.
                assertTrue(held < served, "async D " + held + " s < S " + served + " s");
            } else {
                // The request's thread is held from before routing until after the response is written.
                assertTrue(held >= served, "blocking D " + held + " s >= S " + served + " s");
            }
        }
    }

    /** The value of one series in Prometheus text, e.g. {@code name{label="x"} 5.0}. */
    private static double sample(String metrics, String series) {
        for (String line : metrics.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        return Double.NaN;
    }
}
