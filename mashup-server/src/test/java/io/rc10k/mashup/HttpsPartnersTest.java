package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.broker.Partner;
import io.rc10k.broker.PartnerTls;
import io.rc10k.broker.Protocol;
import io.rc10k.mashup.internal.routing.DefinitionsJson;
import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubCertificate;
import io.rc10k.stubs.StubOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Mashups over https partners in every mode: HTTP/1.1 and h2 (agreed by ALPN) to stubs serving a
 * certificate made for the test, and a partner whose certificate nobody trusts, whose part says
 * {@code tls_failed} while the others are intact.
 */
class HttpsPartnersTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    static Path files;
    private static PartnerStubs stubs;
    private static Definitions definitions;

    @BeforeAll
    static void start() throws Exception {
        StubCertificate certificate = StubCertificate.generate("localhost", "127.0.0.1");
        stubs = PartnerStubs.start(StubOptions.builder().tls(certificate).build());
        PartnerTls trustStubs = PartnerTls.DEFAULT.withCaFile(certificate.writePem(files.resolve("stubs.pem")));
        String base = stubs.uri().toString();
        definitions = Definitions.builder()
                .partner(Partner.builder("weather", base).tls(trustStubs).build())
                .partner(Partner.builder("hotels", base).protocol(Protocol.H2).tls(trustStubs).build())
                // The JDK's trust store: it has never seen the stubs' certificate.
                .partner(Partner.builder("untrusted", base).build())
                .mashup(MashupDefinition.builder("trip").deadline(Duration.ofSeconds(10))
                        .parameter(ParameterDefinition.required("city"))
                        .call("weather", "weather", "/weather?city={city}")
                        .call("hotels", "hotels", "/hotels?city={city}")
                        .call("how", "hotels", "/echo")
                        .build())
                .mashup(MashupDefinition.builder("mixed").deadline(Duration.ofSeconds(10))
                        .call("weather", "weather", "/weather?city=Rome")
                        .call("untrusted", "untrusted", "/stub")
                        .build())
                .build();
    }

    @AfterAll
    static void stop() {
        stubs.close();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void mashupsCallHttpsPartnersAndAnUntrustedCertificateFailsOnlyItsPart(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            ContentResponse trip = server.get("/mashup/trip?city=Lisbon");
            assertEquals(200, trip.getStatus(), trip.getContentAsString());
            assertEquals("true", trip.getHeaders().get("Mashup-Complete"), trip.getContentAsString());
            JsonNode parts = JSON.readTree(trip.getContent()).get("parts");
            assertEquals("Lisbon", parts.at("/weather/body/city").asText(), parts.toString());
            assertEquals("Lisbon", parts.at("/hotels/body/city").asText(), parts.toString());
            assertEquals("HTTP/2.0", parts.at("/how/body/protocol").asText(), parts.toString());
            assertEquals(true, parts.at("/how/body/secure").asBoolean(), parts.toString());

            ContentResponse mixed = server.get("/mashup/mixed");
            assertEquals(200, mixed.getStatus(), mixed.getContentAsString());
            assertEquals("false", mixed.getHeaders().get("Mashup-Complete"), mixed.getContentAsString());
            JsonNode mixedParts = JSON.readTree(mixed.getContent()).get("parts");
            assertEquals("Rome", mixedParts.at("/weather/body/city").asText(), mixedParts.toString());
            assertEquals("tls_failed", mixedParts.at("/untrusted/error").asText(), mixedParts.toString());
        }
    }

    @Test
    void aDefinitionsFileNamesHttpsPartnersAndTheirCertificates() throws Exception {
        String ca = files.resolve("stubs.pem").toString().replace("\\", "\\\\");
        String base = stubs.uri().toString();
        Definitions read = DefinitionsJson.parse("""
                {"partners": {
                   "weather": {"baseUri": "%s", "tls": {"caFile": "%s"}},
                   "hotels": {"baseUri": "%s", "protocol": "h2", "tls": {"caFile": "%s", "verifyHostname": false}}},
                 "mashups": {"trip": {"calls": [
                   {"partner": "weather", "template": "/weather?city=Oslo"},
                   {"partner": "hotels", "template": "/echo"}]}}}
                """.formatted(base, ca, base, ca), "https.json");
        assertEquals(Protocol.H2, read.partners().get("hotels").protocol());
        assertEquals(false, read.partners().get("hotels").tls().verifyHostname());
        try (TestServer server = TestServer.start(Mode.ASYNC, read)) {
            ContentResponse trip = server.get("/mashup/trip");
            assertEquals("true", trip.getHeaders().get("Mashup-Complete"), trip.getContentAsString());
            assertEquals("HTTP/2.0", JSON.readTree(trip.getContent()).at("/parts/hotels/body/protocol").asText());
        }

        DefinitionException wrong = assertThrows(DefinitionException.class, () -> DefinitionsJson.parse("""
                {"partners": {
                   "a": {"baseUri": "https://127.0.0.1:1", "tls": {"caFile": "/no/such.pem"}},
                   "b": {"baseUri": "http://127.0.0.1:1", "tls": {"verifyHostname": false}},
                   "c": {"baseUri": "https://127.0.0.1:1", "protocol": "h2c"},
                   "d": {"baseUri": "https://127.0.0.1:1", "tls": {"caFile": "x.pem", "trustStore": "y.p12", "colour": 1}}},
                 "mashups": {}}
                """, "wrong.json"));
        assertEquals(List.of(
                "partners.a.tls.caFile: /no/such.pem does not exist",
                "partners.b.tls: given for http://127.0.0.1:1/ (accepted: only with https)",
                "partners.c.protocol: h2c is cleartext HTTP/2 but baseUri is https://127.0.0.1:1/ (accepted for "
                        + "https: http/1.1, h2)",
                "partners.d.tls.colour: unknown field (known: caFile, keyStore, keyStorePassword, trustStore, "
                        + "trustStorePassword, verifyHostname)",
                "mashups: none defined (accepted: at least one)"), wrong.problems());
        wrong.located().forEach(p -> assertEquals(true, p.line() > 0 && p.column() > 0, p.toString()));
    }
}
