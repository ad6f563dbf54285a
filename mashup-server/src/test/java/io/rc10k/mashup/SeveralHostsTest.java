package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.mashup.internal.routing.DefinitionsJson;
import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.net.ServerSocket;
import java.util.List;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A partner on three hosts, one of them down, from a definitions file: every mashup completes, the down
 * host is ejected, and /metrics says so per host.
 */
class SeveralHostsTest {
    @ParameterizedTest
    @EnumSource(Mode.class)
    void oneHostOfThreeDownIsEjectedAndEveryMashupCompletes(Mode mode) throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        try (PartnerStubs stubs = PartnerStubs.start(StubOptions.builder().ports(List.of(0, 0)).build())) {
            Definitions definitions = DefinitionsJson.parse("""
                    {"partners": {"weather": {
                        "baseUris": ["%s", "http://127.0.0.1:%d", "%s"],
                        "ejection": {"consecutiveFailures": 2, "coolDownMillis": 600000},
                        "circuitBreaker": {"enabled": false}}},
                     "mashups": {"trip": {"calls": [
                        {"name": "a", "partner": "weather", "template": "/weather?city=Oslo"},
                        {"name": "b", "partner": "weather", "template": "/weather?city=Rome"},
                        {"name": "c", "partner": "weather", "template": "/weather?city=Lima"}]}}}
                    """.formatted(stubs.uri(0), closed, stubs.uri(1)), "hosts.json");
            try (TestServer server = TestServer.start(mode, definitions)) {
                for (int i = 0; i < 20; i++) {
                    ContentResponse trip = server.get("/mashup/trip");
                    assertEquals(200, trip.getStatus(), trip.getContentAsString());
                    assertEquals("true", trip.getHeaders().get("Mashup-Complete"), i + ": " + trip.getContentAsString());
                }
                String metrics = server.metricsOnceAnswered();
                String down = "host=\"127.0.0.1:" + closed + "\",partner=\"weather\"";
                assertTrue(metrics.contains("mashup_partner_host_ejected{" + down + "} 1.0"), metrics);
                assertTrue(metrics.contains("mashup_partner_host_ejections_total{" + down + "} 1.0"), metrics);
                assertTrue(metrics.contains("mashup_partner_host_ejected{host=\"" + stubs.uri(0).getAuthority()
                        + "\",partner=\"weather\"} 0.0"), metrics);
            }
        }
    }
}
