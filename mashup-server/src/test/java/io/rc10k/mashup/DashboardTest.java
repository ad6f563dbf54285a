package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code /dashboard} and {@code /dashboard/data} over real sockets, without a browser (DashboardIT has
 * one): served on the admin port only, the page under a policy that admits its own script and style,
 * the data the same numbers as {@code /metrics}.
 */
class DashboardTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static PartnerStubs stubs;
    private static Definitions definitions;

    @BeforeAll
    static void startStubs() throws Exception {
        stubs = PartnerStubs.start(StubOptions.builder().h2c(true).build());
        definitions = TestServer.definitions(stubs);
    }

    @AfterAll
    static void stopStubs() {
        stubs.close();
    }

    private static URI admin(TestServer server) {
        return server.admin();
    }

    private static ContentResponse get(TestServer server, URI uri) throws Exception {
        return server.client.newRequest(uri).timeout(30, TimeUnit.SECONDS).send();
    }

    @Test
    void theAdminPortServesThePageUnderAPolicyThatAdmitsOnlyItsOwnScriptStyleAndOrigin() throws Exception {
        try (TestServer server = TestServer.start(Mode.ASYNC, definitions)) {
            ContentResponse page = get(server, admin(server).resolve("/dashboard"));
            assertEquals(200, page.getStatus());
            assertEquals("text/html", page.getMediaType());
            String html = page.getContentAsString();
            String policy = page.getHeaders().get("Content-Security-Policy");
            assertEquals("default-src 'none'; script-src " + sha256(between(html, "<script>", "</script>"))
                    + "; style-src " + sha256(between(html, "<style>", "</style>")) + "; connect-src 'self'; "
                    + "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'", policy);
            assertEquals("nosniff", page.getHeaders().get("X-Content-Type-Options"));
            assertRestrictivePermissionsPolicy(page.getHeaders().get("Permissions-Policy"));
            assertTrue(html.contains("fetch('dashboard/data'"), "the page polls its data relative to itself");
            assertEquals(count(html, "http://"), count(html, "http://www.w3.org/2000/svg"),
                    "the page names no server but the SVG namespace");
            assertFalse(html.contains("https://") || html.contains("src=") || html.contains("@import"), html);
        }
    }

    @Test
    void theMainPortAnswers404ForTheDashboardWithOrWithoutObservabilityOnAdminOnly() throws Exception {
        for (boolean adminOnly : List.of(false, true)) {
            MashupOptions options = MashupOptions.builder().observabilityOnAdminOnly(adminOnly).build();
            try (TestServer server = TestServer.start(options, definitions)) {
                for (String path : List.of("/dashboard", "/dashboard/data")) {
                    ContentResponse response = server.get(path);
                    assertEquals(404, response.getStatus(), path);
                    assertEquals("application/json", response.getMediaType());
                    assertTrue(response.getContentAsString().contains("the dashboard is served on the admin port only"),
                            response.getContentAsString());
                    assertEquals(200, get(server, admin(server).resolve(path)).getStatus(), path);
                }
                assertEquals(404, get(server, admin(server).resolve("/dashboard/other")).getStatus());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void dataShowsTheNumbersMetricsShowsOnAQuietServer(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            for (int i = 0; i < 3; i++) {
                assertEquals(200, server.get("/mashup/travel?city=Paris").getStatus());
            }
            assertEquals(400, server.get("/mashup/travel").getStatus());
            assertEquals(404, server.get("/mashup/none").getStatus());
            assertEquals(200, server.get("/mashup/echo?q=x").getStatus());
            server.metricsOnceAnswered();

            ContentResponse response = get(server, admin(server).resolve("/dashboard/data"));
            assertEquals(200, response.getStatus());
            assertEquals("application/json", response.getMediaType());
            assertEquals("no-store", response.getHeaders().get("Cache-Control"));
            assertEquals("nosniff", response.getHeaders().get("X-Content-Type-Options"));
            assertRestrictivePermissionsPolicy(response.getHeaders().get("Permissions-Policy"));
            JsonNode data = JSON.readTree(response.getContent());
            PrometheusText metrics = new PrometheusText(get(server, admin(server).resolve("/metrics"))
                    .getContentAsString());
            String context = data + "\n" + metrics.text;

            assertEquals(mode.label(), data.get("mode").asText());
            assertEquals(0, data.at("/inbound/inFlight").asInt(), context);
            assertEquals(0, data.at("/outbound/inFlight").asInt(), context);
            assertTrue(metrics.value("jvm_threads_peak_threads") >= data.at("/threads/peak").asDouble(), context);
            assertTrue(data.at("/threads/live").asInt() > 0 && data.at("/threads/current").asInt() > 0, context);

            Map<String, Double> outcomes = new TreeMap<>();
            data.at("/requests/outcomes").properties().forEach(e -> outcomes.put(e.getKey(), e.getValue().asDouble()));
            assertEquals(new TreeMap<>(metrics.sumBy("mashup_requests_total", "outcome")), outcomes, context);
            assertEquals(Map.of("complete", 4.0, "bad_request", 1.0, "not_found", 1.0), outcomes);
            assertEquals(metrics.sum("mashup_request_seconds_count", labels -> true),
                    data.at("/requests/count").asDouble(), context);
            close(metrics.sum("mashup_request_seconds_sum", labels -> true), data.at("/requests/sumSeconds"), context);
            close(metrics.max("mashup_request_seconds_max", labels -> true), data.at("/requests/maxSeconds"), context);

            List<String> partners = new ArrayList<>();
            data.get("partners").properties().forEach(e -> partners.add(e.getKey()));
            assertEquals(List.of("flights", "hotels", "stub", "weather"), partners, "every partner, in order");
            for (String p : partners) {
                JsonNode partner = data.at("/partners/" + p);
                var labels = PrometheusText.label("partner", p);
                assertEquals(metrics.sum("mashup_partner_calls_total", labels), partner.get("calls").asDouble(), p);
                assertEquals(metrics.sum("mashup_partner_call_seconds_count", labels), partner.get("count").asDouble(),
                        p);
                close(metrics.sum("mashup_partner_call_seconds_sum", labels), partner.get("sumSeconds"), p);
                close(metrics.max("mashup_partner_call_seconds_max", labels), partner.get("maxSeconds"), p);
                assertEquals(metrics.sum("mashup_partner_circuit_state", labels), partner.get("circuit").asDouble(), p);
                assertTrue(partner.get("connections").isNumber(), p);
            }
            assertEquals(1, data.at("/partners/stub/calls").asInt(), "the echo mashup called stub once: " + context);
            assertEquals(3, data.at("/partners/weather/count").asInt(), "three travel mashups: " + context);
        }
    }

    /** Every feature the policy names is allowed nowhere ({@code feature=()}), and the usual suspects are named. */
    private static void assertRestrictivePermissionsPolicy(String policy) {
        assertNotNull(policy, "no Permissions-Policy");
        List<String> features = new ArrayList<>();
        for (String directive : policy.split(",\\s*")) {
            assertTrue(directive.matches("[a-z-]+=\\(\\)"), "allows something: " + directive + " in " + policy);
            features.add(directive.substring(0, directive.indexOf('=')));
        }
        for (String feature : List.of("camera", "microphone", "geolocation", "payment", "usb", "clipboard-read",
                "display-capture", "fullscreen")) {
            assertTrue(features.contains(feature), feature + " is not named: " + policy);
        }
        assertEquals(features.size(), Set.copyOf(features).size(), "a feature named twice: " + policy);
    }

    private static void close(double expected, JsonNode actual, String context) {
        assertTrue(actual.isNumber(), context);
        assertEquals(expected, actual.asDouble(), 1e-9 * Math.max(1, Math.abs(expected)), context);
    }

    private static int count(String text, String part) {
        return text.split(Pattern.quote(part), -1).length - 1;
    }

    private static String between(String text, String open, String close) {
        return text.substring(text.indexOf(open) + open.length(), text.indexOf(close));
    }

    private static String sha256(String text) throws Exception {
        return "'sha256-" + Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256")
                .digest(text.getBytes(StandardCharsets.UTF_8))) + "'";
    }
}
