package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.mashup.internal.observability.MashupMetrics;
import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The drain's answer over a real socket: a keep-alive connection opened and used before a graceful
 * stop, sent a mashup request while the stop waits for an admitted one, gets 503,
 * {@code Retry-After: 1}, {@code Connection: close} and {@code {"error":"server_stopping",…}}, is
 * closed after it, and the refusal is counted — in every mode.
 */
class GracefulMashupsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static PartnerStubs stubs;
    private static Definitions definitions;
    private static HttpClient client;

    @BeforeAll
    static void start() throws Exception {
        stubs = PartnerStubs.start(StubOptions.builder().maxStallMillis(10_000).build());
        definitions = TestServer.definitions(stubs);
        client = new HttpClient();
        client.start();
    }

    @AfterAll
    static void stop() throws Exception {
        client.stop();
        stubs.close();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aRequestOnAnOldKeepAliveConnectionDuringTheDrainIsToldServerStoppingAndCounted(Mode mode) throws Exception {
        TestServer.assumeModeRunsHere(mode);
        Server server = MashupServer.createServer(MashupOptions.builder().mode(mode).port(0).build(), definitions);
        server.start();
        ServerConnector connector = (ServerConnector) server.getConnectors()[0];
        int port = connector.getLocalPort();
        // Jetty's graceful stop shortens every open connection's idle timeout to its shutdown idle timeout
        // (at most 1 s by default), so a keep-alive connection idle that long is closed during the drain
        // instead of answered. This test is about a request that does arrive on one: keep it open for the
        // whole drain, however long this machine takes between the first answer and the second request.
        // (The stop then waits for every connection to close: the held request's closes after its answer.)
        connector.setShutdownIdleTimeout(60_000);
        MashupMetrics metrics = server.getBean(MashupMetrics.class);
        GracefulHandler graceful = server.getDescendant(GracefulHandler.class);
        CompletableFuture<Void> stopping = null;
        try (Socket old = new Socket()) {
            old.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            old.setSoTimeout(30_000);
            OutputStream out = old.getOutputStream();
            InputStream in = old.getInputStream();
            out.write(get("/mashup/echo?q=1"));
            Answer first = Answer.read(in);
            assertEquals(200, first.status, first.toString());
            assertFalse("close".equalsIgnoreCase(first.headers.get("connection")), "kept alive: " + first);

            // The first answer's bytes can reach us before its request leaves the in-flight count: wait for
            // that, or the count of 1 below could be this request's, and the held one be refused by the stop.
            Await.until(() -> metrics.inboundInFlight() == 0, () -> "in flight: " + metrics.inboundInFlight());

            // Held 8 s at its partner: the drain lasts at least that long, however slow this machine.
            CompletableFuture<ContentResponse> held = new CompletableResponseListener(client.newRequest(
                    "http://127.0.0.1:" + port + "/mashup/wait?ms=8000").headers(h -> h.put(HttpHeader.CONNECTION, "close"))
                    .timeout(60, TimeUnit.SECONDS)).send();
            Await.until(() -> metrics.inboundInFlight() == 1, () -> "in flight: " + metrics.inboundInFlight());
            stopping = CompletableFuture.runAsync(() -> {
                try {
                    server.stop();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Await.until(graceful::isShutdown, () -> "the graceful stop has not begun");

            out.write(get("/mashup/echo?q=2"));
            Answer refused = Answer.read(in);
            assertEquals(503, refused.status, refused.toString());
            assertEquals("1", refused.headers.get("retry-after"), refused.toString());
            assertEquals("close", refused.headers.get("connection"), refused.toString());
            assertEquals("application/json", refused.headers.get("content-type"), refused.toString());
            JsonNode body = JSON.readTree(refused.body);
            assertEquals("server_stopping", body.get("error").asText(), refused.toString());
            assertTrue(body.get("detail").asText().contains("stopping"), refused.toString());
            assertEquals(-1, in.read(), "the server closed the connection after the refusal");
            old.close(); // the server's half of it waits for ours before the stop can count it closed
            assertEquals(1.0, stoppingCount(metrics), "counted as server_stopping");
            assertFalse(held.isDone(), "the refusal came while the drain still waited for the held request");

            ContentResponse answer = held.get(60, TimeUnit.SECONDS);
            assertEquals(200, answer.getStatus(), "the admitted request is answered during the drain");
            stopping.get(60, TimeUnit.SECONDS);
        } finally {
            if (stopping == null) {
                server.stop();
            } else {
                stopping.get(60, TimeUnit.SECONDS);
            }
        }
    }

    private static double stoppingCount(MashupMetrics metrics) {
        return new PrometheusText(metrics.scrape()).sum("mashup_requests_total",
                PrometheusText.label("outcome", "server_stopping").and(PrometheusText.label("mashup", "any")));
    }

    private static byte[] get(String path) {
        return ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** One HTTP/1.1 answer with a {@code Content-Length}, read off a raw socket. */
    private record Answer(int status, Map<String, String> headers, byte[] body) {
        static Answer read(InputStream in) throws IOException {
            String statusLine = line(in);
            int status = Integer.parseInt(statusLine.split(" ")[1]);
            Map<String, String> headers = new LinkedHashMap<>();
            for (String line = line(in); !line.isEmpty(); line = line(in)) {
                int colon = line.indexOf(':');
                headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
            }
            byte[] body = in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0")));
            return new Answer(status, headers, body);
        }

        private static String line(InputStream in) throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            for (int b = in.read(); b != '\n'; b = in.read()) {
                if (b < 0) {
                    throw new IOException("the connection closed mid-answer after: " + line);
                }
                if (b != '\r') {
                    line.write(b);
                }
            }
            return line.toString(StandardCharsets.US_ASCII);
        }

        @Override
        public String toString() {
            return status + " " + headers + " " + new String(body, StandardCharsets.UTF_8);
        }
    }
}
