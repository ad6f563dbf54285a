package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.CallOptions;
import io.rc10k.broker.CircuitBreakerSettings;
import io.rc10k.broker.Partner;
import io.rc10k.broker.Protocol;
import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Required parts in every mode, against real partner stubs: a required part that fails ends the
 * mashup at once — the other calls cancelled, their connections closed — and the composite names it.
 * In the failing mashup the other calls would take 60 s and the deadline is 60 s, while the test waits
 * at most 30 s for the answer: without the feature the answer could not come in time.
 */
class RequiredPartsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final CallOptions REQUIRED = CallOptions.NONE.withRequired(true);
    private static PartnerStubs stubs;
    private static Definitions definitions;

    @BeforeAll
    static void start() throws Exception {
        stubs = PartnerStubs.start(StubOptions.builder().h2c(true).build());
        String base = stubs.uri().toString();
        definitions = Definitions.builder()
                // No breaker: the failing calls are the point; retries off so that one failure is one call.
                .partner(Partner.builder("stub", base).retries(0).callTimeout(Duration.ofSeconds(90))
                        .circuitBreaker(CircuitBreakerSettings.DISABLED).build())
                .mashup(MashupDefinition.builder("late").deadline(Duration.ofMillis(500))
                        .call("fast", "stub", "/stub")
                        .call(new CallDefinition("account", "stub", "/stub?delay=60000", List.of(), REQUIRED))
                        .build())
                .mashup(MashupDefinition.builder("optionalFails").deadline(Duration.ofSeconds(30))
                        .call("broken", "stub", "/stub?status=500")
                        .call(new CallDefinition("account", "stub", "/stub?id=ok", List.of(), REQUIRED))
                        .build())
                .mashup(MashupDefinition.builder("garbled").deadline(Duration.ofSeconds(30))
                        .call("fine", "stub", "/stub")
                        .call(new CallDefinition("account", "stub", "/stub?fault=malformed-json", List.of(), REQUIRED))
                        .build())
                .build();
    }

    @AfterAll
    static void stop() {
        stubs.close();
    }

    private static ContentResponse get(TestServer server, String mashup) throws Exception {
        return server.client.newRequest(server.uri.resolve("/mashup/" + mashup)).timeout(30, TimeUnit.SECONDS).send();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aFailedRequiredPartAnswers502AtOnceAndCancelsTheOtherCalls(Mode mode) throws Exception {
        // Stubs of its own: no other test's connections or calls beside this one's.
        try (PartnerStubs own = PartnerStubs.start(StubOptions.builder().h2c(true).build());
                TestServer server = TestServer.start(mode, failing(own))) {
            BrokerClient broker = server.server.getBean(BrokerClient.class);
            ContentResponse response = get(server, "failing");
            assertEquals(502, response.getStatus(), response.getContentAsString());
            assertEquals("false", response.getHeaders().get("Mashup-Complete"));
            JsonNode body = JSON.readTree(response.getContent());
            assertEquals("account", body.get("failedRequired").asText(), body.toString());
            assertFalse(body.get("complete").asBoolean());
            assertEquals(503, body.at("/parts/account/status").asInt(), body.toString());
            assertEquals("http_error", body.at("/parts/account/error").asText(), body.toString());
            assertEquals("cancelled", body.at("/parts/slow/error").asText(), body.toString());
            assertEquals("cancelled", body.at("/parts/slow2/error").asText(), body.toString());
            // No connection carries a call any more: the cancelled HTTP/1.1 call's connection was closed,
            // the cancelled h2c stream reset. Without the cancel both would stay busy for the 60 s delay.
            Await.until(() -> broker.stats("stub").connectionsActive() == 0 && broker.stats("h2").connectionsActive() == 0,
                    () -> "a cancelled call still holds a connection: " + broker.stats("stub") + broker.stats("h2"));
            // Nothing but the HTTP/1.1 call is held at the stub (it sees that close only when it writes, 60 s
            // on): the h2c call was reset, or never sent. The next test makes sure it reached the stub first.
            Await.until(() -> own.stats().inFlight() <= 1, () -> "calls still held: " + own.stats().toJson());
            Await.until(() -> broker.exchangesInFlight() == 0, () -> broker.exchangesInFlight() + " exchanges in flight");
            String metrics = server.metricsOnceAnswered();
            assertTrue(metrics.contains("mashup_requests_total{mashup=\"failing\",outcome=\"failed\"} 1.0"), metrics);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void theStubSeesTheCallsARequiredFailureCancelledAbandoned(Mode mode) throws Exception {
        // The required part's partner is a socket of the test's own that answers 503 only once the stub
        // holds both slow calls: the cancellation then has something to reach, whatever the machine's pace.
        try (PartnerStubs own = PartnerStubs.start(StubOptions.builder().h2c(true).build());
                ServerSocket account = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CountDownLatch answer = new CountDownLatch(1);
            CompletableFuture<Void> partner = CompletableFuture.runAsync(() -> {
                try (Socket socket = account.accept()) {
                    InputStream in = socket.getInputStream();
                    String head = "";
                    while (!head.endsWith("\r\n\r\n")) {
                        int b = in.read();
                        if (b < 0) {
                            return;
                        }
                        head += (char) b;
                    }
                    if (answer.await(30, TimeUnit.SECONDS)) {
                        socket.getOutputStream().write(("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                                + "\r\n").getBytes(StandardCharsets.US_ASCII));
                        socket.getOutputStream().flush();
                        in.read(); // until the broker closes or the test ends
                    }
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Definitions definitions = failing(own, Partner.builder("account", "http://127.0.0.1:"
                    + account.getLocalPort()).retries(0).circuitBreaker(CircuitBreakerSettings.DISABLED).build(),
                    "/account");
            try (TestServer server = TestServer.start(mode, definitions)) {
                CountDownLatch answered = new CountDownLatch(1);
                int[] status = {0};
                server.client.newRequest(server.uri.resolve("/mashup/failing")).timeout(30, TimeUnit.SECONDS)
                        .send(result -> {
                            status[0] = result.getResponse().getStatus();
                            answered.countDown();
                        });
                Await.until(() -> own.stats().inFlight() == 2, () -> "the stub should hold both slow calls: "
                        + own.stats().toJson());
                answer.countDown();
                assertTrue(answered.await(30, TimeUnit.SECONDS), "no answer");
                assertEquals(502, status[0]);
                // The h2c call's stream was reset: the stub counts it abandoned and ends it at once. The
                // HTTP/1.1 call's connection was closed, which that stub sees only when it writes (60 s on).
                Await.until(() -> own.stats().abandoned() == 1 && own.stats().inFlight() == 1,
                        () -> "the stub did not see the h2c call abandoned: " + own.stats().toJson());
                BrokerClient broker = server.server.getBean(BrokerClient.class);
                Await.until(() -> broker.stats("stub").connectionsActive() == 0,
                        () -> "the cancelled HTTP/1.1 call still holds its connection: " + broker.stats("stub"));
            } finally {
                answer.countDown();
            }
            partner.get(30, TimeUnit.SECONDS);
        }
    }

    private static Definitions failing(PartnerStubs own) throws DefinitionException {
        return failing(own, null, "/stub?status=503");
    }

    /**
     * Two slow calls (HTTP/1.1 and h2c, 60 s) beside a required one that fails: to {@code account}, or to
     * the stubs when it is null. No breaker and no retry: one failure is one call.
     */
    private static Definitions failing(PartnerStubs own, Partner account, String accountTemplate)
            throws DefinitionException {
        String base = own.uri().toString();
        Definitions.Builder definitions = Definitions.builder()
                .partner(Partner.builder("stub", base).retries(0).callTimeout(Duration.ofSeconds(90))
                        .circuitBreaker(CircuitBreakerSettings.DISABLED).build())
                .partner(Partner.builder("h2", base).protocol(Protocol.H2C).callTimeout(Duration.ofSeconds(90))
                        .circuitBreaker(CircuitBreakerSettings.DISABLED).build());
        if (account != null) {
            definitions.partner(account);
        }
        return definitions
                .mashup(MashupDefinition.builder("failing").deadline(Duration.ofSeconds(60))
                        .call("slow", "stub", "/stub?delay=60000")
                        .call(new CallDefinition("account", account == null ? "stub" : account.name(), accountTemplate,
                                List.of(), REQUIRED))
                        .call("slow2", "h2", "/stub?delay=60000")
                        .build())
                .build();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aRequiredPartThatMissesTheDeadlineAnswers504(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            ContentResponse response = get(server, "late");
            assertEquals(504, response.getStatus(), response.getContentAsString());
            JsonNode body = JSON.readTree(response.getContent());
            assertEquals("account", body.get("failedRequired").asText(), body.toString());
            assertEquals("timeout", body.at("/parts/account/error").asText(), body.toString());
            // Without the rule, one good part of two would be a 200 partial answer.
            assertEquals(200, body.at("/parts/fast/status").asInt(), body.toString());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void anOptionalPartsFailureLeavesTheAnswerPartial(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            ContentResponse response = get(server, "optionalFails");
            assertEquals(200, response.getStatus(), response.getContentAsString());
            JsonNode body = JSON.readTree(response.getContent());
            assertFalse(body.has("failedRequired"), body.toString());
            assertEquals("ok", body.at("/parts/account/body/id").asText(), body.toString());
            assertEquals("http_error", body.at("/parts/broken/error").asText(), body.toString());
        }
    }

    @Test
    void aRequiredPartWithAnUnusableBodyFailsTheMashup() throws Exception {
        try (TestServer server = TestServer.start(Mode.ASYNC, definitions)) {
            ContentResponse response = get(server, "garbled");
            assertEquals(502, response.getStatus(), response.getContentAsString());
            JsonNode body = JSON.readTree(response.getContent());
            assertEquals("account", body.get("failedRequired").asText(), body.toString());
            assertEquals("malformed_json", body.at("/parts/account/error").asText(), body.toString());
        }
    }
}
