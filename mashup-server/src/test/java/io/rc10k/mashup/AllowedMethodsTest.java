package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.http.HttpMethod;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The server serves GET and HEAD only; every other method is a 405 with {@code Allow: GET, HEAD} and the
 * JSON error shape, on the main port and the admin port alike, whatever the path. TRACE above all: it must
 * never echo the request's headers back (cross-site tracing). Sent over a plain socket, so that the bytes
 * the server answers with are the bytes checked.
 */
class AllowedMethodsTest {
    private static final String SECRET = "s3cr3t-7f1d";
    /** Paths of every kind: a mashup, an unknown one, the observability and dashboard paths, and none at all. */
    private static final List<String> PATHS = List.of("/mashup/m", "/nowhere", "/health/ready", "/metrics",
            "/dashboard", "/");

    /**
     * One request over a plain socket, read to the end of the connection: with {@code Connection: close}, and
     * {@code Host: x} unless {@code headers} name a host.
     */
    static String raw(URI server, String requestLine, String headers) throws Exception {
        try (Socket socket = new Socket(server.getHost(), server.getPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            String host = headers.startsWith("Host: ") || headers.contains("\r\nHost: ") ? "" : "Host: x\r\n";
            out.write((requestLine + "\r\n" + host + "Connection: close\r\n" + headers + "\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            String text = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            assertFalse(text.isEmpty(), requestLine + ": no answer");
            return text;
        }
    }

    private static void assertRefused(String answer, String what) {
        assertTrue(answer.startsWith("HTTP/1.1 405 "), what + ":\n" + answer);
        assertTrue(answer.contains("\r\nConnection: close\r\n"), what + ":\n" + answer);
        assertTrue(answer.contains("\r\nAllow: GET, HEAD\r\n"), what + ":\n" + answer);
        assertTrue(answer.contains("\r\nContent-Type: application/json\r\n"), what + ":\n" + answer);
        assertTrue(answer.contains("{\"error\":\"method_not_allowed\",\"detail\":"), what + ":\n" + answer);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void traceIsRefusedOnBothPortsAndEchoesNothing(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, AdminConnectorTest.definitions())) {
            for (URI port : List.of(server.uri, server.admin())) {
                for (String path : PATHS) {
                    String answer = raw(port, "TRACE " + path + " HTTP/1.1", "Cookie: session=" + SECRET
                            + "\r\nAuthorization: Bearer " + SECRET + "\r\nX-Probe: " + SECRET + "\r\n");
                    assertRefused(answer, "TRACE " + port + path);
                    assertFalse(answer.contains(SECRET), "the answer echoes a request header:\n" + answer);
                    assertFalse(answer.toLowerCase(Locale.ROOT).contains("message/http"), answer);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void everyMethodButGetAndHeadIsRefusedOnBothPorts(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, AdminConnectorTest.definitions())) {
            for (URI port : List.of(server.uri, server.admin())) {
                for (String method : List.of("OPTIONS", "PUT", "DELETE", "PATCH", "POST", "PROPFIND", "BREW")) {
                    assertRefused(raw(port, method + " /health/ready HTTP/1.1", "Content-Length: 0\r\n"),
                            method + " " + port);
                }
                assertRefused(raw(port, "OPTIONS * HTTP/1.1", ""), "OPTIONS * " + port);
                // The connection closes after the refusal: a CONNECT would otherwise keep it open for its tunnel.
                assertRefused(raw(port, "CONNECT example.com:443 HTTP/1.1", "Host: example.com:443\r\n"),
                        "CONNECT " + port);
                // A body the server never reads does not stand in the way of the answer.
                assertRefused(raw(port, "POST /mashup/m HTTP/1.1", "Content-Length: 5\r\n\r\nhello"), "POST " + port);
            }
            ContentResponse head = server.client.newRequest(server.admin().resolve("/health/ready"))
                    .method(HttpMethod.HEAD).timeout(30, TimeUnit.SECONDS).send();
            assertEquals(200, head.getStatus(), "HEAD is served");
            assertEquals(200, server.client.newRequest(server.admin().resolve("/health/ready"))
                    .timeout(30, TimeUnit.SECONDS).send().getStatus(), "GET is served");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void theJettyClientSeesTheSame405(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, AdminConnectorTest.definitions())) {
            for (HttpMethod method : List.of(HttpMethod.TRACE, HttpMethod.OPTIONS, HttpMethod.PUT, HttpMethod.DELETE)) {
                ContentResponse response = server.client.newRequest(server.uri.resolve("/mashup/m")).method(method)
                        .headers(h -> h.put("X-Probe", SECRET)).timeout(30, TimeUnit.SECONDS).send();
                assertEquals(405, response.getStatus(), method + ": " + response.getContentAsString());
                assertEquals("GET, HEAD", response.getHeaders().get("Allow"));
                assertFalse(response.getContentAsString().contains(SECRET), response.getContentAsString());
            }
        }
    }
}
