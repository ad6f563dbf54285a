package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubCertificate;
import io.rc10k.stubs.StubOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Calls with a request body on every wire — the broker's own HTTP/1.1 loops, h2c, and HTTP/1.1 and h2
 * over TLS: the partner receives the bytes, their length and their type; a body larger than a socket
 * buffer is written whole; and a call with a body is not repeated after a reset.
 */
class RequestBodyTest {
    @TempDir
    static Path files;
    private static PartnerStubs cleartext;
    private static PartnerStubs secure;
    private static BrokerClient broker;

    @BeforeAll
    static void start() throws Exception {
        cleartext = PartnerStubs.start(StubOptions.builder().h2c(true).build());
        StubCertificate certificate = StubCertificate.generate("localhost", "127.0.0.1");
        secure = PartnerStubs.start(StubOptions.builder().tls(certificate).build());
        PartnerTls trust = PartnerTls.DEFAULT.withCaFile(certificate.writePem(files.resolve("stubs.pem")));
        broker = BrokerClient.builder()
                .partner(Partner.builder("h1", cleartext.uri().toString()).build())
                .partner(Partner.builder("h2c", cleartext.uri().toString()).protocol(Protocol.H2C).build())
                .partner(Partner.builder("tls-h1", secure.uri().toString()).tls(trust).build())
                .partner(Partner.builder("tls-h2", secure.uri().toString()).protocol(Protocol.H2).tls(trust)
                        .build())
                .build();
        broker.start();
    }

    @AfterAll
    static void stop() throws Exception {
        broker.stop();
        cleartext.close();
        secure.close();
    }

    @Test
    void thePartnerReceivesTheBodyItsLengthAndItsTypeOnEveryWire() throws Exception {
        String json = "{\"city\":\"Zürich\",\"note\":\"a \\\"quoted\\\" word\"}";
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        for (String partner : List.of("h1", "h2c", "tls-h1", "tls-h2")) {
            Outcome echoed = broker.send(Call.to(partner).method("POST").path("/echo")
                    .header("Content-Type", "application/json").body(bytes).build()).await();
            assertEquals(Outcome.Kind.OK, echoed.kind(), partner + ": " + echoed.failure());
            String seen = echoed.bodyAsString();
            assertTrue(seen.contains("\"method\":\"POST\""), partner + ": " + seen);
            assertTrue(seen.contains("\"content-type\":\"application/json\""), partner + ": " + seen);
            assertTrue(seen.contains("\"bodyBytes\":" + bytes.length), partner + ": " + seen);
            assertTrue(seen.contains("\"body\":" + quote(json)), partner + ": " + seen);
        }
    }

    @Test
    void aBodyLargerThanASocketBufferIsWrittenWholeAndTheConnectionServesTheNextCall() throws Exception {
        byte[] large = new byte[3 * 1024 * 1024];
        Arrays.fill(large, (byte) 'x');
        for (String partner : List.of("h1", "h2c", "tls-h1", "tls-h2")) {
            for (int i = 0; i < 3; i++) {
                Outcome echoed = broker.send(Call.to(partner).method("PUT").path("/echo").body(large).build()).await();
                assertEquals(Outcome.Kind.OK, echoed.kind(), partner + ": " + echoed.failure());
                assertTrue(echoed.bodyAsString().contains("\"method\":\"PUT\"") && echoed.bodyAsString()
                        .contains("\"bodyBytes\":" + large.length), partner + ": " + echoed.bodyAsString());
                Outcome next = broker.send(Call.to(partner).path("/echo").build()).await();
                assertTrue(next.bodyAsString().contains("\"method\":\"GET\"") && next.bodyAsString()
                        .contains("\"bodyBytes\":0"), partner + ": " + next.bodyAsString());
            }
        }
    }

    @Test
    void aPostWithoutABodySaysContentLengthZeroAndACallWithABodyIsNotRepeatedAfterAReset() throws Exception {
        Outcome empty = broker.send(Call.to("h1").method("POST").path("/echo").build()).await();
        assertTrue(empty.bodyAsString().contains("\"content-length\":\"0\""), empty.bodyAsString());

        Outcome post = broker.send(Call.to("h1").method("POST").path("/stub?fault=reset")
                .body("{}".getBytes(StandardCharsets.UTF_8)).build()).await();
        assertEquals(Outcome.Kind.RESET, post.kind(), String.valueOf(post.failure()));
        assertEquals(1, post.attempts(), "its effect may have happened: not sent again");
        Outcome get = broker.send(Call.to("h1").path("/stub?fault=reset").build()).await();
        assertEquals(2, get.attempts(), "a GET is (one retry by default)");

        assertTrue(assertThrows(IllegalArgumentException.class, () -> broker.send(Call.to("h1").path("/echo")
                .body(new byte[1]).build())).getMessage().contains("method GET carries no body"));
    }

    private static String quote(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
