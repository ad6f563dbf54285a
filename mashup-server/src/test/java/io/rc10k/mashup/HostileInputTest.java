package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.Partner;
import io.rc10k.broker.PartnerStats;
import io.rc10k.stubs.PartnerStubs;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Hostile input: every bad request gets a 4xx with a JSON body, nothing is forwarded that must not be, the server stays healthy. */
class HostileInputTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static PartnerStubs stubs;
    private static Definitions definitions;

    @BeforeAll
    static void start() throws Exception {
        stubs = PartnerStubs.start();
        definitions = Definitions.builder()
                .partner(Partner.builder("stub", stubs.uri().toString()).build())
                .mashup(MashupDefinition.builder("segment").deadline(Duration.ofSeconds(2))
                        .parameter(ParameterDefinition.required("x"))
                        .call("echo", "stub", "/{x}")
                        .build())
                .mashup(MashupDefinition.builder("echo").deadline(Duration.ofSeconds(2))
                        .parameter(ParameterDefinition.required("q"))
                        .call("echo", "stub", "/stub?id={q}")
                        .build())
                .mashup(MashupDefinition.builder("headers").deadline(Duration.ofSeconds(2))
                        .call(new CallDefinition("named", "stub", "/echo", List.of("Authorization", "Cookie")))
                        .call("unnamed", "stub", "/echo")
                        .build())
                .build();
    }

    @AfterAll
    static void stop() {
        stubs.close();
    }

    private static JsonNode json(ContentResponse response) throws Exception {
        assertEquals("application/json", response.getMediaType(), response.getContentAsString());
        return JSON.readTree(response.getContent());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void dotSegmentsFromQueryValuesAreRefusedBeforeAnyCall(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            // The stub's served count would not see a call to "/..", "/." or "/" (it counts only its
            // answering paths), so count at the broker: every call it starts is in flight or has an outcome.
            BrokerClient broker = server.server.getBean(BrokerClient.class);
            for (String value : new String[] {"..", ".", ""}) {
                ContentResponse response = server.get("/mashup/segment?x=" + value);
                assertEquals(400, response.getStatus(), "x=" + value);
                assertEquals("x", json(response).get("parameter").asText());
            }
            assertEquals(0, callsStarted(broker), "no call was made");
            assertEquals(200, server.get("/mashup/segment?x=echo").getStatus());
            assertEquals(1, callsStarted(broker), "the one good value made its call, and the count saw it");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void authorizationAndCookieReachOnlyTheCallThatNamesThem(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            ContentResponse response = server.client.newRequest(server.uri.resolve("/mashup/headers"))
                    .headers(h -> h.put("Authorization", "Bearer secret").put("Cookie", "session=s1")
                            .put("X-Other", "1"))
                    .send();
            JsonNode body = json(response);
            assertEquals("Bearer secret", body.at("/parts/named/body/headers/authorization").asText());
            assertEquals("session=s1", body.at("/parts/named/body/headers/cookie").asText());
            JsonNode unnamed = body.at("/parts/unnamed/body/headers");
            assertTrue(unnamed.get("authorization") == null && unnamed.get("cookie") == null, unnamed.toString());
            assertTrue(body.at("/parts/named/body/headers").get("x-other") == null, "only named headers travel");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void malformedRequestsGetJsonErrorsAndTheServerStaysHealthy(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            // Refused by Jetty before any mashup code: still JSON, and the connection is not reused — asked to
            // keep it alive, the server says Connection: close and closes it (the read below reaches the end;
            // a connection left open would time the read out).
            for (String path : List.of("/mashup/echo/..%2F..%2Fx", "/mashup/x%00y", "/mashup/a%0D%0Ab")) {
                String raw = rawGet(server, path, "", false);
                assertTrue(raw.startsWith("HTTP/1.1 400"), path + ": " + raw);
                assertTrue(raw.contains("Content-Type: application/json"), raw);
                assertTrue(raw.contains("Connection: close"), raw);
            }
            String oversize = rawGet(server, "/mashup/echo?q=a", "X-Big: " + "b".repeat(20_000) + "\r\n");
            assertTrue(oversize.startsWith("HTTP/1.1 431"), oversize);
            assertTrue(oversize.contains("\"error\":\"headers_too_large\""), oversize);
            String longUri = rawGet(server, "/mashup/echo?q=" + "u".repeat(20_000), "");
            assertTrue(longUri.startsWith("HTTP/1.1 414") || longUri.startsWith("HTTP/1.1 431"), longUri);

            ContentResponse badUtf8 = server.get("/mashup/echo?q=%C3%28");
            assertEquals(400, badUtf8.getStatus(), "invalid UTF-8: " + badUtf8.getContentAsString());
            assertEquals("application/json", badUtf8.getMediaType());
            assertEquals("bad_request", json(badUtf8).get("error").asText(), badUtf8.getContentAsString());

            ContentResponse tooLong = server.get("/mashup/echo?q=" + "v".repeat(1_000));
            assertEquals(400, tooLong.getStatus());
            assertEquals("q", json(tooLong).get("parameter").asText());

            // A thousand distinct parameters in ~5.5 KB (under the 8 KB header limit); sent raw, since
            // Jetty's client will not send a request line that long.
            StringBuilder many = new StringBuilder("/mashup/echo?q=ok");
            for (int i = 0; i < 1_000; i++) {
                many.append("&p").append(Integer.toString(i, 36)).append("=1");
            }
            String thousand = rawGet(server, many.toString(), "");
            assertTrue(thousand.startsWith("HTTP/1.1 200"), "a thousand unknown parameters are ignored: " + thousand);
            assertEquals(200, server.get("/health").getStatus());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void slowClientsDoNotStopTheServerFromServingOthers(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            List<Socket> slow = new ArrayList<>();
            try {
                // 200 slowloris connections, each with half a request line sent and nothing more.
                for (int i = 0; i < 200; i++) {
                    Socket s = new Socket(server.uri.getHost(), server.uri.getPort());
                    s.getOutputStream().write("GET /mashup/echo?q=".getBytes(StandardCharsets.US_ASCII));
                    s.getOutputStream().flush();
                    slow.add(s);
                }
                for (int i = 0; i < 20; i++) {
                    assertEquals(200, server.get("/mashup/echo?q=fine" + i).getStatus());
                }
                assertEquals(200, server.get("/health").getStatus());
            } finally {
                for (Socket s : slow) {
                    s.close();
                }
            }
        }
    }

    /** Calls the server's broker has started on the stub partner: ended ones by outcome, plus those in flight. */
    private static long callsStarted(BrokerClient broker) {
        PartnerStats stats = broker.stats("stub");
        return stats.outcomes().values().stream().mapToLong(Long::longValue).sum() + stats.inFlight();
    }

    /** One request over a plain socket with {@code Connection: close}, read to the end. */
    private static String rawGet(TestServer server, String path, String extraHeaders) throws Exception {
        return rawGet(server, path, extraHeaders, true);
    }

    /**
     * One request over a plain socket, read to the end of the connection: with {@code askClose} false the
     * request asks for nothing, so the read ends only if the server closes the connection itself (a read
     * that waits 30 s fails the test).
     */
    private static String rawGet(TestServer server, String path, String extraHeaders, boolean askClose)
            throws Exception {
        try (Socket socket = new Socket(server.uri.getHost(), server.uri.getPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: x\r\n" + (askClose ? "Connection: close\r\n" : "")
                    + extraHeaders + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            String text = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            assertFalse(text.isEmpty(), path + ": no answer");
            return text;
        }
    }
}
