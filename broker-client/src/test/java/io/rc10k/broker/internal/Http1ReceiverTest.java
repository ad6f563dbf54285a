package io.rc10k.broker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.broker.Partner;
import io.rc10k.broker.fuzz.RawPartner;
import io.rc10k.broker.fuzz.ResponsePlan;
import io.rc10k.broker.fuzz.ResponsePlan.Ending;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link Http1Receiver} on real sockets: a partner on loopback that writes exactly the bytes each test gives
 * ({@link RawPartner}), the broker's HTTP/1.1 wire reading them. What the receiver makes of the bytes: the
 * answer, the fault that ends the call at once, and whether the connection may serve the next call.
 */
class Http1ReceiverTest {
    private static final AtomicInteger IDS = new AtomicInteger();
    private static RawPartner partner;
    private static QueuedThreadPool pool;
    private static Http1Wire wire;

    @BeforeAll
    static void start() throws Exception {
        partner = RawPartner.start();
        pool = new QueuedThreadPool(8);
        pool.setName("http1-receiver-test");
        pool.start();
        wire = new Http1Wire(List.of(Partner.builder("raw", "http://127.0.0.1:" + partner.port()).build()), pool, 1);
        wire.start();
    }

    @AfterAll
    static void stop() throws Exception {
        wire.stop();
        pool.stop();
        partner.close();
    }

    /** What one call heard from its wire: whether its request went out, the headers reported, its end. */
    private static final class Heard implements Wire.Events {
        final CompletableFuture<Heard> ended = new CompletableFuture<>();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        volatile boolean sent;
        /** The status the response's headers were reported with; 0 when no headers were reported. */
        volatile int headersStatus;
        volatile int status;
        volatile Throwable failure;
        volatile boolean kept;

        @Override
        public void onBegin() {
        }

        @Override
        public void onSent() {
            sent = true;
        }

        @Override
        public void onHeaders(int code, HttpFields headers) {
            headersStatus = code;
        }

        @Override
        public void onContent(ByteBuffer content) {
            byte[] piece = new byte[content.remaining()];
            content.get(piece);
            bytes.writeBytes(piece);
        }

        @Override
        public void onComplete(int code, HttpFields headers, Throwable cause, boolean keptOpen) {
            status = code;
            failure = cause;
            kept = keptOpen;
            ended.complete(this);
        }

        String body() {
            return bytes.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static Heard call(String bytes, Ending ending) throws Exception {
        int id = IDS.incrementAndGet();
        partner.register(id, ResponsePlan.whole("test", bytes.getBytes(StandardCharsets.ISO_8859_1), ending));
        Heard heard = new Heard();
        wire.newCall("raw", "GET", URI.create("http://127.0.0.1:" + partner.port() + "/fuzz/" + id), null, null,
                TimeUnit.SECONDS.toNanos(20), heard).start();
        return heard.ended.get(30, TimeUnit.SECONDS);
    }

    @Test
    void interimAnswersAreSkippedAndTheRealOneEndsTheCallOnAConnectionKept() throws Exception {
        Heard heard = call("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", Ending.KEEP_OPEN);
        assertNull(heard.failure);
        assertEquals(200, heard.status);
        assertEquals(200, heard.headersStatus, "the interim answers' heads are not the response's");
        assertEquals("ok", heard.body());
        assertTrue(heard.kept);
    }

    @Test
    void whatHttp11DoesNotAllowEndsTheCallMalformedAtOnce() throws Exception {
        List<String> faults = List.of(
                "HTTP/1.1 100 Continue\r\n\r\n".repeat(9) + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n",
                "HTTP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n",
                "HTTP/1.1 600 Beyond\r\nContent-Length: 0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
        for (String bytes : faults) {
            Heard heard = call(bytes, Ending.KEEP_OPEN); // the partner keeps it open: no waiting for its close
            assertTrue(heard.sent, bytes);
            assertInstanceOf(Failures.MalformedResponseException.class, heard.failure, bytes);
            assertFalse(heard.kept, bytes);
        }
    }

    @Test
    void aBodyDelimitedByTheStreamsEndEndsWithItAndAnEndInsideTheHeadIsAReset() throws Exception {
        Heard whole = call("HTTP/1.1 200 OK\r\n\r\nuntil the end", Ending.CLOSE);
        assertNull(whole.failure);
        assertEquals("until the end", whole.body());
        assertFalse(whole.kept);
        Heard cut = call("HTTP/1.1 200 OK\r\nContent-", Ending.CLOSE);
        assertInstanceOf(EOFException.class, cut.failure, "cut short, not wrong: " + cut.failure);
        assertEquals(0, cut.headersStatus);
    }

    @Test
    void anAnswerWhoseFramingLeavesDoubtIsReadButItsConnectionNotKept() throws Exception {
        List<String> doubtful = List.of(
                "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
                "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA",
                "HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n");
        for (String bytes : doubtful) {
            Heard heard = call(bytes, Ending.KEEP_OPEN);
            assertNull(heard.failure, bytes);
            assertFalse(heard.kept, bytes);
        }
        assertTrue(call("HTTP/1.1 204 No Content\r\n\r\n", Ending.KEEP_OPEN).kept, "a plain 204 is kept");
    }
}
