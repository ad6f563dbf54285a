package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.broker.Partner;
import io.rc10k.mashup.internal.observability.MashupMetrics;
import io.rc10k.stubs.PartnerStubs;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.Test;

/**
 * Async mode writes composites with non-blocking I/O: clients that do not read their multi-MiB
 * answers hold no pool thread, so a server with a small pool keeps answering everyone else. With a
 * blocking write each such client would hold one of the eight threads until it read or timed out.
 */
class SlowReaderTest {
    private static final int SLOW_READERS = 12;
    private static final int PART_BYTES = 1_000_000;
    /** Enough parts that a composite outgrows the largest send buffer the kernel would give the socket. */
    private static final int CALLS = Math.max(5, (int) (largestSendBuffer() / PART_BYTES) + 2);

    @Test
    void clientsThatDoNotReadLargeCompositesHoldNoThreadAndOthersAreStillAnswered() throws Exception {
        try (PartnerStubs stubs = PartnerStubs.start()) {
            MashupDefinition.Builder large = MashupDefinition.builder("large").deadline(Duration.ofSeconds(20));
            for (int i = 0; i < CALLS; i++) {
                large.call("part" + i, "stub", "/stub?bytes=" + PART_BYTES + "&id=" + i);
            }
            Definitions definitions = Definitions.builder()
                    .partner(Partner.builder("stub", stubs.uri().toString()).build())
                    .mashup(large.build())
                    .mashup(MashupDefinition.builder("small").deadline(Duration.ofSeconds(20))
                            .call("only", "stub", "/stub?id=small").build())
                    .build();
            MashupOptions options = MashupOptions.builder().mode(Mode.ASYNC).maxThreads(8).build();
            try (TestServer server = TestServer.start(options, definitions)) {
                MashupMetrics metrics = server.server.getBean(MashupMetrics.class);
                List<Socket> slow = new ArrayList<>();
                try {
                    for (int i = 0; i < SLOW_READERS; i++) {
                        slow.add(requestAndDoNotRead(server, "/mashup/large"));
                    }
                    // Every large composite is composed and being written: the partners have all answered.
                    awaitCondition(() -> stubs.stats().served() >= (long) SLOW_READERS * CALLS,
                            () -> "partners served " + stubs.stats().served() + " of " + SLOW_READERS * CALLS);

                    List<CompletableFuture<ContentResponse>> small = new ArrayList<>();
                    for (int i = 0; i < 40; i++) {
                        small.add(CompletableFuture.supplyAsync(() -> {
                            try {
                                return server.get("/mashup/small");
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        }));
                    }
                    for (CompletableFuture<ContentResponse> answer : small) {
                        // Far below the 30 s idle timeout that would end a blocked write at last.
                        ContentResponse response = answer.get(20, TimeUnit.SECONDS);
                        assertEquals(200, response.getStatus(), response.getContentAsString());
                        assertEquals("true", response.getHeaders().get("Mashup-Complete"));
                    }
                    // The large answers are still being written while the small ones were answered. A small
                    // one may be counted a moment after its client has it all, hence the wait for exactly 12.
                    assertTrue(metrics.inboundInFlight() >= SLOW_READERS, metrics.inboundInFlight() + " in flight");
                    awaitCondition(() -> metrics.inboundInFlight() == SLOW_READERS,
                            () -> metrics.inboundInFlight() + " in flight, not the " + SLOW_READERS + " large ones");

                    for (Socket socket : slow) {
                        String body = readAnswer(socket);
                        assertTrue(body.startsWith("{\"mashup\":\"large\",\"complete\":true"), body.substring(0, 80));
                        assertTrue(body.length() > CALLS * PART_BYTES, "length " + body.length());
                    }
                    awaitCondition(() -> metrics.inboundInFlight() == 0,
                            () -> metrics.inboundInFlight() + " requests still in flight");
                } finally {
                    for (Socket socket : slow) {
                        socket.close();
                    }
                }
            }
        }
    }

    /** Sends a GET on a socket with a small receive window and leaves the answer unread. */
    private static Socket requestAndDoNotRead(TestServer server, String path) throws IOException {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(4096);
        socket.connect(new InetSocketAddress("127.0.0.1", server.uri.getPort()), 5_000);
        socket.setSoTimeout(30_000);
        OutputStream out = socket.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return socket;
    }

    /** Reads a whole {@code Connection: close} answer and returns its body. */
    private static String readAnswer(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        in.transferTo(all);
        String text = all.toString(StandardCharsets.UTF_8);
        int bodyStart = text.indexOf("\r\n\r\n");
        assertTrue(text.startsWith("HTTP/1.1 200"), text.substring(0, Math.min(200, text.length())));
        return text.substring(bodyStart + 4);
    }

    /** Linux's ceiling for a socket's send buffer (net.ipv4.tcp_wmem), else 4 MiB. */
    private static long largestSendBuffer() {
        try {
            String[] fields = Files.readAllLines(Path.of("/proc/sys/net/ipv4/tcp_wmem"))
                    .get(0).trim().split("\\s+");
            return Long.parseLong(fields[fields.length - 1]);
        } catch (IOException | RuntimeException e) {
            return 4L << 20;
        }
    }

    private static void awaitCondition(BooleanSupplier condition,
            Supplier<String> state) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not reached in 30 s: " + state.get());
            }
            Thread.sleep(20);
        }
    }
}
