package io.rc10k.stubs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.Misbehaviour.Expect;
import io.rc10k.stubs.RawH2.Frame;
import java.io.ByteArrayOutputStream;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.function.Predicate;
import org.eclipse.jetty.http.MetaData;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The hostile h2c partner as a raw h2c client ({@link RawH2}) sees it on loopback: the frames of the answers
 * and misbehaviours, flow control, how each connection ends, and the counters.
 */
class HostileH2PartnerTest {
    /** The misbehaviours that close their side (FIN) at once instead of holding until the cap. */
    private static final Set<H2Misbehaviour> CLOSE_AT_ONCE = Set.of(H2Misbehaviour.GOAWAY_THEN_CLOSE,
            H2Misbehaviour.CLOSE_MID_HEADERS, H2Misbehaviour.CLOSE_MID_DATA);

    /** Holds end at this short cap, so the tests that reach it are quick. */
    private static HostileH2Partner quick;
    /** Serves what ends by itself: with the default cap, a slow machine never cuts it short. */
    private static HostileH2Partner patient;

    @BeforeAll
    static void start() {
        quick = HostileH2Partner.builder().maxStallMillis(100).build().start();
        patient = HostileH2Partner.builder().build().start();
    }

    @AfterAll
    static void stop() {
        quick.close();
        patient.close();
    }

    @ParameterizedTest
    @EnumSource(H2Misbehaviour.class)
    void everyMisbehaviourIsCountedAndEndsItsStreamOrItsConnection(H2Misbehaviour m) throws Exception {
        long cappedBefore = quick.cappedConnections();
        try (RawH2 raw = RawH2.connect(quick.uri(), 65_535)) {
            raw.get(1, "/" + m.token());
            if (m == H2Misbehaviour.RESET_ON_REQUEST) {
                assertThrows(SocketException.class, () -> raw.next(f -> false), "a TCP reset");
            } else if (m.allows(Expect.OK)) {
                // The answer ends the stream; the connection stays open.
                Frame end = raw.next(f -> f.stream() == 1 && f.has(RawH2.END_STREAM) && f.type() != RawH2.PUSH_PROMISE);
                assertNotNull(end, m + ": the connection closed before the stream ended");
            } else {
                // Held, or closed at once: the connection ends either way, nothing ends the stream cleanly for a
                // client that reads past the fault.
                assertNull(raw.next(f -> false), m + ": the connection ends");
                if (!CLOSE_AT_ONCE.contains(m)) {
                    assertEquals(cappedBefore + 1, quick.cappedConnections(), m + ": closed at the stall cap");
                }
            }
        }
        assertEquals(1, quick.requests(m), m + ": counted once");
    }

    @Test
    void okAnswersEveryStreamOfOneConnection() throws Exception {
        long accepted = patient.connectionsAccepted();
        long ok = patient.okAnswers();
        try (RawH2 raw = RawH2.connect(patient.uri(), 65_535)) {
            for (int stream = 1; stream <= 5; stream += 2) {
                raw.get(stream, "/ok");
                assertEquals(200, status(raw, stream));
                assertEquals("{\"ok\":true}", body(raw, stream));
            }
        }
        assertEquals(accepted + 1, patient.connectionsAccepted());
        assertEquals(ok + 3, patient.okAnswers());
    }

    @Test
    void anUnknownPathIsA404ListingTheMisbehavioursAndABadParameterA400() throws Exception {
        long refused = patient.refusals();
        try (RawH2 raw = RawH2.connect(patient.uri(), 65_535)) {
            raw.get(1, "/nope");
            assertEquals(404, status(raw, 1));
            assertTrue(body(raw, 1).contains("continuation-flood (too-large)"));
            raw.get(3, "/body-over-max?bytes=-1");
            assertEquals(400, status(raw, 3));
            assertTrue(body(raw, 3).startsWith("bytes: \"-1\""));
        }
        assertEquals(refused + 2, patient.refusals());
    }

    @Test
    void aBodySendsAsMuchAsTheWindowsAllowAndTheRestAsTheyOpen() throws Exception {
        try (RawH2 raw = RawH2.connect(patient.uri(), 1_000)) {
            raw.get(1, "/body-over-max?bytes=5000");
            // The partner reads frames in order: the PING ACK comes once it has sent all the window allowed.
            raw.frame(RawH2.PING, 0, 0, new byte[8]);
            assertEquals(1_000, dataUntil(raw, f -> f.type() == RawH2.PING && f.has(RawH2.ACK)));
            raw.frame(RawH2.WINDOW_UPDATE, 0, 1, ByteBuffer.allocate(4).putInt(4_000).array());
            assertEquals(4_000, dataUntil(raw, f -> f.type() == RawH2.DATA && f.has(RawH2.END_STREAM))
                   );
        }
    }

    @Test
    void windowOverrunSendsOneBytePastTheWindow() throws Exception {
        try (RawH2 raw = RawH2.connect(patient.uri(), 1_000)) {
            raw.get(1, "/window-overrun");
            raw.frame(RawH2.PING, 0, 0, new byte[8]);
            assertEquals(1_001, dataUntil(raw, f -> f.type() == RawH2.PING && f.has(RawH2.ACK)));
        }
    }

    @Test
    void brokenFramesAreSentAsNamed() throws Exception {
        try (RawH2 raw = RawH2.connect(patient.uri(), 65_535)) {
            raw.get(1, "/rst-stream");
            assertArrayEquals(new byte[] {0, 0, 0, 2}, raw.next(f -> f.type() == RawH2.RST_STREAM).payload());
            raw.get(3, "/bad-hpack");
            assertArrayEquals(new byte[] {(byte) 0x80}, raw.next(f -> f.type() == RawH2.HEADERS).payload());
        }
        try (RawH2 raw = RawH2.connect(patient.uri(), 65_535)) {
            raw.get(1, "/frame-over-max-frame-size");
            raw.next(f -> f.type() == RawH2.HEADERS);
            assertEquals(16_385, raw.next(f -> f.type() == RawH2.DATA).payload().length);
        }
        try (RawH2 raw = RawH2.connect(patient.uri(), 65_535)) {
            raw.get(1, "/streams-on-unopened-ids");
            assertEquals(3, raw.next(f -> f.type() == RawH2.HEADERS).stream());
        }
        try (RawH2 raw = RawH2.connect(patient.uri(), 65_535)) {
            raw.get(1, "/goaway-then-close");
            Frame goAway = raw.next(f -> f.type() == RawH2.GOAWAY);
            assertEquals(0, ByteBuffer.wrap(goAway.payload()).getInt(), "the last stream id, below the request's");
            assertNull(raw.read(), "then a close");
        }
        try (RawH2 raw = RawH2.connect(patient.uri(), 65_535)) {
            raw.get(1, "/continuation-flood");
            Frame headers = raw.next(f -> f.type() == RawH2.HEADERS);
            long block = headers.payload().length;
            assertFalse(headers.has(RawH2.END_HEADERS));
            while (block < 4L * 1024 * 1024) {
                Frame continuation = raw.read();
                assertEquals(RawH2.CONTINUATION, continuation.type());
                assertFalse(continuation.has(RawH2.END_HEADERS));
                block += continuation.payload().length;
            }
        }
    }

    @Test
    void legalOddAnswersDecodeAsTheyShould() throws Exception {
        try (RawH2 raw = RawH2.connect(patient.uri(), 65_535)) {
            raw.get(1, "/interim-103-then-ok");
            assertEquals(103, status(raw, 1));
            assertEquals(200, status(raw, 1));
            assertEquals("{\"ok\":true}", body(raw, 1));
            raw.get(3, "/trailers-then-ok");
            assertEquals(200, status(raw, 3));
            raw.next(f -> f.type() == RawH2.DATA);
            Frame trailers = raw.next(f -> f.type() == RawH2.HEADERS);
            assertTrue(trailers.has(RawH2.END_STREAM));
            assertEquals("11", raw.decode(trailers.payload()).getHttpFields().get("x-checksum"));
            raw.get(5, "/data-padded");
            assertEquals(200, status(raw, 5));
            Frame padded = raw.next(f -> f.type() == RawH2.DATA);
            assertEquals(32, padded.payload()[0]);
            assertEquals("{\"ok\":true}", new String(padded.payload(), 1, 11, StandardCharsets.UTF_8));
        }
    }

    @Test
    void theBuilderNamesTheSettingItRefuses() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HostileH2Partner.builder().maxConnections(0));
        assertEquals("maxConnections: 0 (accepted: 1 to 1024)", e.getMessage());
        assertThrows(IllegalStateException.class, () -> HostileH2Partner.builder().build().requests(
                H2Misbehaviour.BAD_HPACK));
    }

    /** The status of the next HEADERS on {@code stream}. */
    private static int status(RawH2 raw, int stream) throws Exception {
        Frame headers = raw.next(f -> f.type() == RawH2.HEADERS && f.stream() == stream);
        return ((MetaData.Response) raw.decode(headers.payload())).getStatus();
    }

    /** The DATA of {@code stream} up to END_STREAM, as text. */
    private static String body(RawH2 raw, int stream) throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (Frame data = raw.next(f -> f.type() == RawH2.DATA && f.stream() == stream); ;
                data = raw.next(f -> f.type() == RawH2.DATA && f.stream() == stream)) {
            body.write(data.payload());
            if (data.has(RawH2.END_STREAM)) {
                return body.toString(StandardCharsets.UTF_8);
            }
        }
    }

    /** DATA bytes read until a frame {@code last} takes (counted if it is DATA). */
    private static long dataUntil(RawH2 raw, Predicate<Frame> last) throws Exception {
        long bytes = 0;
        for (Frame frame = raw.read(); frame != null; frame = raw.read()) {
            if (frame.type() == RawH2.DATA) {
                bytes += frame.payload().length;
            }
            if (last.test(frame)) {
                return bytes;
            }
        }
        throw new AssertionError("the connection closed after " + bytes + " bytes of DATA");
    }
}
