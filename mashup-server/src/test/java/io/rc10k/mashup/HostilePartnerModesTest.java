package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.CircuitBreakerSettings;
import io.rc10k.broker.Partner;
import io.rc10k.stubs.HostilePartner;
import io.rc10k.stubs.Misbehaviour;
import io.rc10k.stubs.Misbehaviour.Expect;
import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.time.Duration;
import java.util.List;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/**
 * Every misbehaviour of the {@link HostilePartner} in every mode, end to end: the faulty part carries
 * the error the misbehaviour allows — never {@code timeout} unless the partner only stalls, since the
 * deadline is far and the partner holds a faulty connection open longer still — while the good part is
 * intact; a malformed answer is logged once, naming the partner and the fault; the next call to the
 * partner is answered correctly; nothing stays in flight. (HostileMatrixTest in broker-client checks the
 * connections and the retries, over both wires.)
 */
class HostilePartnerModesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration DEADLINE = Duration.ofSeconds(8);
    private static final Duration STALL_DEADLINE = Duration.ofMillis(300);

    private static PartnerStubs stubs;
    private static HostilePartner hostile;
    private static Definitions definitions;

    @BeforeAll
    static void start() throws Exception {
        stubs = PartnerStubs.start(StubOptions.builder().build());
        hostile = HostilePartner.builder().maxStallMillis(30_000).build().start();
        Definitions.Builder b = Definitions.builder()
                .partner(Partner.builder("good", stubs.uri().toString()).build())
                // Every misbehaviour every time: a breaker would rightly start refusing the partner.
                .partner(Partner.builder("hostile", hostile.uri().toString()).maxResponseBytes(1 << 20)
                        .circuitBreaker(CircuitBreakerSettings.DISABLED).build())
                .mashup(MashupDefinition.builder("next").deadline(DEADLINE).call("ok", "hostile", "/ok").build());
        for (Misbehaviour m : Misbehaviour.values()) {
            b.mashup(MashupDefinition.builder("m-" + m.token())
                    .deadline(m.expected() == Expect.STALL ? STALL_DEADLINE : DEADLINE)
                    .call("good", "good", "/weather?city=Paris")
                    .call("bad", "hostile", "/" + path(m))
                    .build());
        }
        definitions = b.build();
    }

    @AfterAll
    static void stop() throws Exception {
        hostile.close();
        stubs.close();
    }

    private static String path(Misbehaviour m) {
        return switch (m) {
            case TRICKLE_HEAD, TRICKLE_BODY, PROCESSING_FOREVER -> m.token() + "?every=1";
            case CONTENT_LENGTH_HUGE -> m.token() + "?every=10";
            default -> m.token();
        };
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void everyMisbehaviourEndsItsPartAsItShouldAndTheNextCallIsCorrect(Mode mode) throws Exception {
        // The broker's exchange logs what it refused; its class is internal to the broker, its logger name is not.
        Logger log = (Logger) LoggerFactory.getLogger("io.rc10k.broker.internal.RealExchange");
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        log.addAppender(lines);
        try (TestServer server = TestServer.start(mode, definitions)) {
            BrokerClient broker = server.server.getBean(BrokerClient.class);
            for (Misbehaviour m : Misbehaviour.values()) {
                int logged = lines.list.size();
                ContentResponse response = server.get("/mashup/m-" + m.token());
                JsonNode body = JSON.readTree(response.getContent());
                assertEquals(200, response.getStatus(), m + " in " + mode + ": " + response.getContentAsString());
                assertEquals("Paris", body.at("/parts/good/body/city").asText(), m + ": the good part is intact");
                JsonNode bad = body.at("/parts/bad");
                Expect observed = observed(bad);
                assertNotNull(observed, m + " in " + mode + ": " + bad);
                assertTrue(m.allows(observed), m + " in " + mode + ": " + bad + " (expected " + m.allowed() + ")");
                if (observed == Expect.MALFORMED) {
                    Await.until(() -> lines.list.size() > logged, () -> m + ": no log line for the malformed answer");
                    List<ILoggingEvent> mine = lines.list.subList(logged, lines.list.size());
                    assertEquals(1, mine.size(), m + ": " + mine);
                    String line = mine.get(0).getFormattedMessage();
                    assertTrue(line.contains("partner hostile") && line.contains("/" + m.token())
                            && line.contains("malformed"), line);
                }
                JsonNode next = JSON.readTree(server.get("/mashup/next").getContent());
                assertTrue(next.at("/parts/ok/body/ok").asBoolean(), m + " in " + mode + ": the next call: " + next);
                Await.until(() -> broker.exchangesInFlight() == 0 && broker.bufferedBytes() == 0,
                        () -> m + ": in flight " + broker.exchangesInFlight() + ", buffered " + broker.bufferedBytes());
            }
        } finally {
            log.detachAppender(lines);
        }
    }

    /** The part in the fixture's terms; null for an error no misbehaviour should cause. */
    private static Expect observed(JsonNode part) {
        if (part.has("status") && !part.has("error")) {
            return Expect.OK;
        }
        return switch (part.path("error").asText()) {
            // An answer came whole; judging its body is the composite's business, not the wire's.
            case "http_error", "malformed_json", "unsupported_content_type" -> Expect.OK;
            case "malformed" -> Expect.MALFORMED;
            case "reset" -> Expect.RESET;
            case "timeout" -> Expect.STALL;
            case "too_large" -> Expect.TOO_LARGE;
            default -> null;
        };
    }
}
