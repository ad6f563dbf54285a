package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A partner served from several hosts: calls spread over them, a host that keeps failing is ejected
 * and the others take its calls, and the last host in is never ejected.
 */
class PartnerHostsTest {
    private static final Pattern HOST = Pattern.compile("\"port\":(\\d+)");
    private static PartnerStubs stubs;

    @BeforeAll
    static void start() {
        stubs = PartnerStubs.start(StubOptions.builder().ports(List.of(0, 0)).h2c(true).build());
    }

    @AfterAll
    static void stop() {
        stubs.close();
    }

    /** A port nothing listens on: a host that is down. */
    private static String downHost() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return "http://127.0.0.1:" + socket.getLocalPort();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Protocol.class, names = {"HTTP_1_1", "H2C"})
    void aHostThatIsDownIsEjectedAndTheMashupsComplete(Protocol protocol) throws Exception {
        String down = downHost();
        Partner partner = Partner.builder("spread", stubs.uri(0).toString()).protocol(protocol)
                .hosts(List.of(stubs.uri(0).toString(), down, stubs.uri(1).toString()))
                .ejection(new Ejection(3, Duration.ofMinutes(5)))
                .circuitBreaker(CircuitBreakerSettings.DISABLED).build();
        BrokerClient broker = BrokerClient.builder().partner(partner).build();
        broker.start();
        try {
            Map<String, Integer> served = new TreeMap<>();
            int afterEjection = 0;
            for (int round = 0; round < 20; round++) {
                boolean ejected = broker.stats("spread").hosts().get(1).ejected();
                FanOutResult result = broker.fanOut(Duration.ofSeconds(10))
                        .add(Call.to("spread").path("/echo").build())
                        .add(Call.to("spread").path("/echo").build())
                        .add(Call.to("spread").path("/echo").build())
                        .start().toCompletableFuture().get(30, TimeUnit.SECONDS);
                for (Outcome outcome : result.outcomes()) {
                    // A call that met the down host was retried on another (one retry by default).
                    assertEquals(Outcome.Kind.OK, outcome.kind(), round + ": " + outcome + " " + outcome.failure());
                    Matcher host = HOST.matcher(outcome.bodyAsString());
                    assertTrue(host.find(), outcome.bodyAsString());
                    served.merge(host.group(1), 1, Integer::sum);
                    if (ejected) {
                        afterEjection++;
                        assertEquals(1, outcome.attempts(), "after the ejection no call meets the down host");
                    }
                }
            }
            PartnerStats stats = broker.stats("spread");
            List<String> hosts = stats.hosts().stream().map(PartnerStats.Host::host).toList();
            assertEquals(List.of(stubs.uri(0).getAuthority(), down.substring(7), stubs.uri(1).getAuthority()), hosts);
            assertTrue(stats.hosts().get(1).ejected(), stats.toString());
            assertEquals(1, stats.hosts().get(1).ejections(), stats.toString());
            assertFalse(stats.hosts().get(0).ejected() || stats.hosts().get(2).ejected(), stats.toString());
            assertTrue(afterEjection > 30, "most rounds ran with the host ejected: " + afterEjection);
            // Both live hosts took calls, and only they answered.
            assertEquals(2, served.size(), served.toString());
            served.values().forEach(n -> assertTrue(n >= 10, "calls spread over the live hosts: " + served));
        } finally {
            broker.stop();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Protocol.class, names = {"HTTP_1_1", "H2C"})
    void theLastHostInIsNeverEjected(Protocol protocol) throws Exception {
        Partner partner = Partner.builder("gone", downHost()).protocol(protocol)
                .hosts(List.of(downHost(), downHost(), downHost())).retries(0)
                .ejection(new Ejection(1, Duration.ofMinutes(5)))
                .circuitBreaker(CircuitBreakerSettings.DISABLED).build();
        BrokerClient broker = BrokerClient.builder().partner(partner).build();
        broker.start();
        try {
            for (int i = 0; i < 12; i++) {
                Outcome outcome = broker.send(Call.to("gone").path("/stub").build()).await();
                assertEquals(Outcome.Kind.CONNECT_FAILED, outcome.kind(), String.valueOf(outcome.failure()));
            }
            List<PartnerStats.Host> hosts = broker.stats("gone").hosts();
            assertEquals(2, hosts.stream().filter(PartnerStats.Host::ejected).count(), hosts.toString());
            assertEquals(0, hosts.stream().mapToInt(PartnerStats.Host::inFlight).sum(), hosts.toString());
        } finally {
            broker.stop();
        }
    }

    @org.junit.jupiter.api.Test
    void hostsShareTheirSchemeAndBasePath() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Partner.builder("p", "http://a:1/x")
                .hosts(List.of("http://a:1/x", "http://b:1/y"))).getMessage()
                .startsWith("p.baseUris[1]: \"http://b:1/y\" (accepted: the scheme and base path of baseUris[0]"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Partner.builder("p", "http://a:1")
                .hosts(List.of("http://a:1", "https://b:1"))).getMessage().startsWith("p.baseUris[1]:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Partner.builder("p", "http://a:1")
                .hosts(List.of("http://a:1", "http://a:1/"))).getMessage().contains("listed twice"));
    }
}
