package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A fan-out's requests to an h2c partner leave in one write: a raw h2c partner that reads what the client sent
 * with one {@code read} finds all C HEADERS frames in it. (Written one by one, the first would wake the
 * partner's read alone.) The partner answers each stream, so the fan-out's outcomes are checked too.
 */
class H2cWriteBatchTest {
    private static final int C = 6;
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    @Test
    void aFanOutsRequestsToOneConnectionArriveInOneRead() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            BlockingQueue<Integer> headersPerRead = new LinkedBlockingQueue<>();
            CompletableFuture<Void> partner = CompletableFuture.runAsync(() -> serve(server, headersPerRead));
            BrokerClient broker = BrokerClient.builder().partner(Partner.builder("raw", "http://127.0.0.1:"
                    + server.getLocalPort()).protocol(Protocol.H2C).maxConnections(1).retries(0).build()).build();
            broker.start();
            try {
                // The connection first: a fan-out that opens it may have its first call written as it connects.
                assertEquals(Outcome.Kind.OK, broker.send(Call.to("raw").path("/warm").build()).await().kind());
                assertEquals(1, headersPerRead.poll(30, TimeUnit.SECONDS));
                for (int round = 0; round < 3; round++) {
                    FanOut fanOut = broker.fanOut(Duration.ofSeconds(20));
                    for (int i = 0; i < C; i++) {
                        fanOut.add(Call.to("raw").path("/part?i=" + i).build());
                    }
                    FanOutResult result = fanOut.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
                    for (Outcome outcome : result.outcomes()) {
                        assertEquals(Outcome.Kind.OK, outcome.kind(), String.valueOf(outcome.failure()));
                        assertEquals("{}", outcome.bodyAsString());
                    }
                    Integer seen = headersPerRead.poll(30, TimeUnit.SECONDS);
                    assertEquals(C, seen, "round " + round + ": HEADERS frames in the read that saw the first");
                    assertEquals(null, headersPerRead.poll(), "no read held the rest");
                }
            } finally {
                broker.stop();
                partner.cancel(true);
            }
        }
    }

    /**
     * One connection: the preface and the client's settings, an empty SETTINGS of its own, then per read the
     * number of HEADERS frames it holds (reported when there are any), each answered 200 with {@code {}}.
     */
    private static void serve(ServerSocket server, BlockingQueue<Integer> headersPerRead) {
        try (Socket socket = server.accept()) {
            socket.setSoTimeout(30_000);
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            new DataInputStream(in).readFully(new byte[PREFACE.length]);
            out.write(frame(0x4, 0, 0, new byte[0])); // SETTINGS, nothing to change
            out.flush();
            byte[] buffer = new byte[64 * 1024];
            int kept = 0;
            while (true) {
                int read = in.read(buffer, kept, buffer.length - kept);
                if (read < 0) {
                    return;
                }
                int end = kept + read;
                int at = 0;
                List<Integer> streams = new ArrayList<>();
                while (end - at >= 9) {
                    int length = ((buffer[at] & 0xff) << 16) | ((buffer[at + 1] & 0xff) << 8) | (buffer[at + 2] & 0xff);
                    if (end - at < 9 + length) {
                        break;
                    }
                    int type = buffer[at + 3];
                    int stream = ByteBuffer.wrap(buffer, at + 5, 4).getInt() & 0x7fff_ffff;
                    if (type == 0x1) {
                        streams.add(stream);
                    }
                    at += 9 + length;
                }
                System.arraycopy(buffer, at, buffer, 0, end - at);
                kept = end - at;
                if (!streams.isEmpty()) {
                    headersPerRead.add(streams.size());
                }
                for (int stream : streams) {
                    out.write(frame(0x1, 0x4, stream, new byte[] {(byte) 0x88})); // :status 200 (static index 8)
                    out.write(frame(0x0, 0x1, stream, "{}".getBytes(StandardCharsets.US_ASCII)));
                }
                out.flush();
            }
        } catch (IOException e) {
            // the client stopped
        }
    }

    private static byte[] frame(int type, int flags, int stream, byte[] payload) {
        ByteBuffer frame = ByteBuffer.allocate(9 + payload.length);
        frame.put((byte) (payload.length >>> 16)).put((byte) (payload.length >>> 8)).put((byte) payload.length);
        frame.put((byte) type).put((byte) flags).putInt(stream).put(payload);
        return frame.array();
    }
}
