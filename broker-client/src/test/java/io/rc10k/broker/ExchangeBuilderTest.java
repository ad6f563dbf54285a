package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.PartnerStubs;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link BrokerClient#newExchange}: inert until started, each setting checked when set, usable in a fan-out. */
class ExchangeBuilderTest {
    private static PartnerStubs stubs;
    private static BrokerClient broker;

    @BeforeAll
    static void start() throws Exception {
        stubs = PartnerStubs.start();
        broker = BrokerClient.builder()
                .partner(Partner.builder("weather", stubs.uri().toString()).build())
                .partner(Partner.builder("echo", stubs.uri().toString()).build())
                .build();
        broker.start();
    }

    @AfterAll
    static void stop() throws Exception {
        broker.stop();
        stubs.close();
    }

    @Test
    void aNewExchangeSendsNothingUntilStartedThenCarriesWhatWasSet() throws Exception {
        long before = stubs.stats().served();
        ExchangeBuilder echo = broker.newExchange("echo").path("/echo?x=1").header("X-Note", "typed");
        assertEquals(before, stubs.stats().served(), "nothing sent before start()");
        assertEquals(0, broker.exchangesInFlight());

        Outcome outcome = echo.start().await();
        assertEquals(Outcome.Kind.OK, outcome.kind(), String.valueOf(outcome.failure()));
        String seen = outcome.bodyAsString();
        assertTrue(seen.contains("\"method\":\"GET\"") && seen.contains("\"path\":\"/echo\"")
                && seen.contains("\"query\":\"x=1\"") && seen.contains("\"x-note\":\"typed\""), seen);

        Outcome head = broker.newExchange("echo").method("head").path("/stub").start().await();
        assertEquals(Outcome.Kind.OK, head.kind(), String.valueOf(head.failure()));
        assertEquals(0, head.body().length);
    }

    @Test
    void eachSettingIsCheckedWhenItIsSet() {
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> broker.newExchange("nobody"));
        assertTrue(unknown.getMessage().contains("unknown partner \"nobody\" (known: "), unknown.getMessage());
        ExchangeBuilder weather = broker.newExchange("weather");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> weather.path("http://evil.example/x"))
                .getMessage().contains("names a scheme or host"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> weather.path("../admin"))
                .getMessage().contains("dot, separator or parameter segment"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> weather.header("Connection", "close"))
                .getMessage().contains("hop-by-hop"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> weather.method("G E T"))
                .getMessage().contains("accepted: GET, HEAD, POST"));
    }

    @Test
    void aFanOutTakesNewExchangesAndStartsThemWithItself() throws Exception {
        // As in docs/broker-client.md.
        FanOutResult result = broker.fanOut(Duration.ofSeconds(10))
                .add(broker.newExchange("weather").path("weather?city=Paris"))
                .add(broker.newExchange("echo").path("echo?q=1").header("X-Note", "fan-out"))
                .start()
                .toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertEquals(List.of(Outcome.Kind.OK, Outcome.Kind.OK), result.outcomes().stream().map(Outcome::kind).toList());
        assertTrue(result.outcomes().get(0).bodyAsString().contains("Paris"), result.outcomes().get(0).bodyAsString());
        assertTrue(result.outcomes().get(1).bodyAsString().contains("\"x-note\":\"fan-out\""),
                result.outcomes().get(1).bodyAsString());
    }

    @Test
    void aPartnersOwnHeadersGoOnEveryCallOverTheCallersAndAreNeverShown() throws Exception {
        Partner keyed = Partner.builder("keyed", stubs.uri().toString())
                .header("X-Api-Key", "s3cret-value").header("X-Client", "rc10k").build();
        assertTrue(keyed.toString().contains("headers=[X-Api-Key, X-Client] (values hidden)"), keyed.toString());
        assertTrue(!keyed.toString().contains("s3cret-value"), keyed.toString());
        BrokerClient own = BrokerClient.builder().partner(keyed).build();
        own.start();
        try {
            Outcome echoed = own.newExchange("keyed").path("/echo").header("X-Api-Key", "forwarded")
                    .header("X-Note", "kept").start().await();
            String seen = echoed.bodyAsString();
            assertTrue(seen.contains("\"x-api-key\":\"s3cret-value\"") && seen.contains("\"x-client\":\"rc10k\"")
                    && seen.contains("\"x-note\":\"kept\"") && !seen.contains("forwarded"), seen);
        } finally {
            own.stop();
        }
        String base = stubs.uri().toString();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Partner.builder("p", base).header("Host", "x"))
                .getMessage().contains("hop-by-hop or set by the client"));
        String broken = assertThrows(IllegalArgumentException.class,
                () -> Partner.builder("p", base).header("X-Key", "line\r\nX-Evil: 1")).getMessage();
        assertTrue(broken.startsWith("p.headers.X-Key: the value") && !broken.contains("Evil"), broken);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Partner.builder("p", base).header("X-Key", "a")
                .header("x-key", "b")).getMessage().contains("given twice"));
    }
}
