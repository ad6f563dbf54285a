package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.CallOptions;
import io.rc10k.broker.CircuitBreakerSettings;
import io.rc10k.broker.Hedging;
import io.rc10k.broker.Partner;
import io.rc10k.broker.Protocol;
import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Hedged calls in every mode, against a partner stub that holds only the first request of each id
 * for 60 s ({@code firstDelay}): the hedge, sent 50 ms after the first attempt, answers; the first
 * attempt is cancelled; the metrics count the hedge sent and won. Unhedged, the call would wait for
 * its 10 s call timeout, and the test waits at most 30 s for a 200 complete answer.
 */
class HedgingTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static PartnerStubs stubs;
    private static Definitions definitions;

    @BeforeAll
    static void start() throws Exception {
        stubs = PartnerStubs.start(StubOptions.builder().h2c(true).build());
        String base = stubs.uri().toString();
        CallOptions hedged = CallOptions.NONE.withHedging(new Hedging(Duration.ofMillis(50), 2));
        definitions = Definitions.builder()
                .partner(Partner.builder("stub", base).circuitBreaker(CircuitBreakerSettings.DISABLED).build())
                .partner(Partner.builder("h2", base).protocol(Protocol.H2C)
                        .circuitBreaker(CircuitBreakerSettings.DISABLED).build())
                .mashup(MashupDefinition.builder("hedged").deadline(Duration.ofSeconds(60))
                        .parameter(ParameterDefinition.required("id"))
                        .call(new CallDefinition("h1", "stub", "/stub?firstDelay=60000&id=h1-{id}", List.of(), hedged))
                        .call(new CallDefinition("h2", "h2", "/stub?firstDelay=60000&id=h2-{id}", List.of(), hedged))
                        .build())
                .build();
    }

    @AfterAll
    static void stop() {
        stubs.close();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aHedgeAnswersWhenTheFirstAttemptIsSlow(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            BrokerClient broker = server.server.getBean(BrokerClient.class);
            ContentResponse response = server.client.newRequest(server.uri.resolve("/mashup/hedged?id=" + mode))
                    .timeout(30, TimeUnit.SECONDS).send();
            assertEquals(200, response.getStatus(), response.getContentAsString());
            assertEquals("true", response.getHeaders().get("Mashup-Complete"), response.getContentAsString());
            JsonNode body = JSON.readTree(response.getContent());
            assertEquals("h1-" + mode, body.at("/parts/h1/body/id").asText(), body.toString());
            assertEquals("h2-" + mode, body.at("/parts/h2/body/id").asText(), body.toString());
            String metrics = server.client.GET(server.uri.resolve("/metrics")).getContentAsString();
            for (String partner : List.of("stub", "h2")) {
                assertEquals(1, counter(metrics, partner, "won"), metrics);
                assertTrue(counter(metrics, partner, "sent") >= 1, metrics);
            }
            // The slow first attempts were cancelled: no connection carries a call, no admission is held.
            Await.until(() -> broker.stats("stub").connectionsActive() == 0 && broker.stats("h2").connectionsActive() == 0
                    && broker.exchangesInFlight() == 0 && broker.stats("stub").inFlight() == 0
                    && broker.stats("h2").inFlight() == 0, () -> broker.stats("stub") + " " + broker.stats("h2"));
        }
    }

    private static long counter(String metrics, String partner, String result) {
        Matcher m = Pattern.compile("(?m)^mashup_partner_hedges_total\\{partner=\"" + partner + "\",result=\"" + result
                + "\"} (\\d+)\\.0$").matcher(metrics);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }
}
