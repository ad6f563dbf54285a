package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.mashup.internal.modes.InlineMashups;
import io.rc10k.stubs.PartnerStubs;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.util.thread.Invocable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Async mode tells Jetty that its mashup GETs do not block, so that Jetty serves them on the thread
 * that read them; what may block (a body to read, a servlet's error page, /metrics) is handed to the
 * pool and still answered.
 */
class InlineMashupsTest {
    @ParameterizedTest
    @EnumSource(Mode.class)
    void onlyAsyncModeServesRequestsWhereTheyWereRead(Mode mode) throws Exception {
        try (PartnerStubs stubs = PartnerStubs.start();
                TestServer server = TestServer.start(mode, TestServer.definitions(stubs))) {
            // Jetty's selectors run a non-blocking server's requests themselves instead of handing them over.
            assertEquals(mode == Mode.ASYNC ? Invocable.InvocationType.NON_BLOCKING
                    : Invocable.InvocationType.BLOCKING, server.server.getInvocationType());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void requestsThatMayBlockAreStillAnswered(Mode mode) throws Exception {
        try (PartnerStubs stubs = PartnerStubs.start();
                TestServer server = TestServer.start(MashupOptions.builder().mode(mode).adminPort(-1).build(),
                        TestServer.definitions(stubs))) {
            ContentResponse post = server.client.newRequest(server.uri.resolve("/mashup/echo?q=hi"))
                    .method(HttpMethod.POST).body(new StringRequestContent("x".repeat(100_000)))
                    .timeout(30, TimeUnit.SECONDS).send();
            assertEquals(405, post.getStatus(), post.getContentAsString());

            ContentResponse metrics = server.get("/metrics");
            assertEquals(200, metrics.getStatus(), metrics.getContentAsString());
            assertTrue(metrics.getContentAsString().contains("mashup_"), metrics.getContentAsString());

            ContentResponse mashup = server.get("/mashup/echo?q=hi");
            assertEquals(200, mashup.getStatus(), mashup.getContentAsString());
            assertEquals("true", mashup.getHeaders().get("Mashup-Complete"), mashup.getContentAsString());
        }
    }

    @Test
    void aClientPipeliningAnswersThatCompleteAtOnceHasEveryNinthHandedToThePool() throws Exception {
        int pipelined = 50;
        try (PartnerStubs stubs = PartnerStubs.start();
                TestServer server = TestServer.start(Mode.ASYNC, TestServer.definitions(stubs));
                Socket socket = new Socket(server.uri.getHost(), server.uri.getPort())) {
            InlineMashups inline = (InlineMashups) server.server.getHandler();
            long before = inline.runsEnded();
            // Refusals of an unknown mashup complete at once; all of them are on the wire before the first is read.
            StringBuilder requests = new StringBuilder();
            for (int i = 0; i < pipelined; i++) {
                requests.append("GET /mashup/no-such-").append(i).append(" HTTP/1.1\r\nHost: test\r\n")
                        .append(i == pipelined - 1 ? "Connection: close\r\n" : "").append("\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(requests.toString().getBytes(StandardCharsets.US_ASCII));
            out.flush();
            socket.setSoTimeout(30_000);
            List<String> statusLines = readAnswers(new BufferedInputStream(socket.getInputStream()));

            assertEquals(pipelined, statusLines.size(), statusLines.toString());
            statusLines.forEach(line -> assertEquals("HTTP/1.1 404 Not Found", line));
            // Requests 9, 18, 27, 36 and 45 each end a run of 8 served where they were read.
            assertEquals(pipelined / (InlineMashups.AT_ONCE_RUN_MAX + 1), inline.runsEnded() - before);
        }
    }

    /** Status lines of the answers until the server closes, skipping each answer's body. */
    private static List<String> readAnswers(InputStream in) throws IOException {
        List<String> statusLines = new ArrayList<>();
        for (String status = line(in); status != null; status = line(in)) {
            statusLines.add(status);
            long length = 0;
            boolean chunked = false;
            for (String header = line(in); header != null && !header.isEmpty(); header = line(in)) {
                String lower = header.toLowerCase(java.util.Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Long.parseLong(lower.substring(15).trim());
                } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                    chunked = true;
                }
            }
            if (chunked) {
                for (long size = Long.parseLong(line(in).trim(), 16); size > 0; size = Long.parseLong(line(in).trim(), 16)) {
                    in.skipNBytes(size);
                    line(in);
                }
                line(in);
            } else {
                in.skipNBytes(length);
            }
        }
        return statusLines;
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                return line.size() == 0 ? null : line.toString(StandardCharsets.US_ASCII);
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.US_ASCII);
    }
}
