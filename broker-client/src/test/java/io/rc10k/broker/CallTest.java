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

/**
 * {@link Call}: inert and immutable, what it holds alone checked when built and the rest when sent or added,
 * the same description sent alone or in a fan-out.
 */
class CallTest {
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
    void aCallSendsNothingUntilSentThenCarriesWhatWasSet() throws Exception {
        long before = stubs.stats().served();
        Call.Builder builder = Call.to("echo").path("/echo?x=1").header("X-Note", "typed");
        Call echo = builder.build();
        builder.header("X-Later", "not in the call built before");
        assertEquals(before, stubs.stats().served(), "nothing sent before send()");
        assertEquals(0, broker.exchangesInFlight());

        Outcome outcome = broker.send(echo).await();
        assertEquals(Outcome.Kind.OK, outcome.kind(), String.valueOf(outcome.failure()));
        String seen = outcome.bodyAsString();
        assertTrue(seen.contains("\"method\":\"GET\"") && seen.contains("\"path\":\"/echo\"")
                && seen.contains("\"query\":\"x=1\"") && seen.contains("\"x-note\":\"typed\"")
                && !seen.contains("x-later"), seen);
        Outcome again = broker.send(echo).await();
        assertEquals(Outcome.Kind.OK, again.kind(), "a call may be sent again: " + again.failure());

        Outcome head = broker.send(Call.to("echo").method("head").path("/stub").build()).await();
        assertEquals(Outcome.Kind.OK, head.kind(), String.valueOf(head.failure()));
        assertEquals(0, head.body().length);
    }

    @Test
    void whatACallHoldsAloneIsCheckedWhenBuiltAndTheRestWhenSent() {
        Call.Builder weather = Call.to("weather");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> weather.header("Connection", "close"))
                .getMessage().contains("hop-by-hop"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> weather.method("G E T"))
                .getMessage().contains("accepted: GET, HEAD, POST"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Call.to("weather").path(in -> "x").build())
                .getMessage().contains("comes after no call"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Call.to("weather").method("POST")
                .hedging(new Hedging(Duration.ofMillis(50), 1)).build()).getMessage().contains("cannot be hedged"));

        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> broker.send(Call.to("nobody").build()));
        assertTrue(unknown.getMessage().contains("unknown partner \"nobody\" (known: "), unknown.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> broker.send(weather.path("http://evil.example/x").build()))
                .getMessage().contains("names a scheme or host"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> broker.send(weather.path("../admin").build()))
                .getMessage().contains("dot, separator or parameter segment"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> broker.send(Call.to("weather").after(0).path("weather").build()))
                .getMessage().contains("add it to a fan-out"));
        assertEquals(0, broker.exchangesInFlight(), "a refused call is never admitted");
    }

    @Test
    void aFanOutTakesCallsAndStartsThemWithItself() throws Exception {
        // As in docs/broker-client.md.
        FanOutResult result = broker.fanOut(Duration.ofSeconds(10))
                .add(Call.to("weather").path("weather?city=Paris").build())
                .add(Call.to("echo").path("echo?q=1").header("X-Note", "fan-out").build())
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
            Outcome echoed = own.send(Call.to("keyed").path("/echo").header("X-Api-Key", "forwarded")
                    .header("X-Note", "kept").build()).await();
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
