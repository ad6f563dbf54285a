package io.rc10k.stubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.RawHttp.End;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Predicate;
import javax.net.ssl.SSLSocketFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every misbehaviour as a raw socket sees it on loopback: the bytes, how the connection ends, and the
 * counters. Requests ask for {@code Connection: close}, so every read ends by itself — at the end of
 * an answer, at a close or reset, or at the stall cap — and the socket timeout is only a safety net.
 */
class HostilePartnerTest {
    /** Holds and stalls end at this cap: short, so the tests that reach it are quick. */
    static final long SHORT_CAP_MILLIS = 200;
    static final int SAFETY_NET_MILLIS = 20_000;
    static final String OK = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n"
            + "{\"ok\":true}";

    /** Serves what must reach the stall cap. */
    private static HostilePartner quick;
    /** Serves what ends by itself: with a cap of 60 s, a slow machine never cuts it short. */
    private static HostilePartner patient;

    @BeforeAll
    static void start() {
        quick = HostilePartner.builder().maxStallMillis(SHORT_CAP_MILLIS).build().start();
        patient = HostilePartner.builder().build().start();
    }

    @AfterAll
    static void stop() {
        quick.close();
        patient.close();
    }

    /**
     * What one misbehaviour must look like on the wire.
     *
     * @param capped whether the partner ended it at the stall cap (a hold or a stall)
     */
    private record Check(Predicate<RawHttp.Result> wire, End end, boolean capped) {
    }

    private static Check held(Predicate<RawHttp.Result> wire) {
        return new Check(wire, End.EOF, true);
    }

    private static Check closed(Predicate<RawHttp.Result> wire) {
        return new Check(wire, End.EOF, false);
    }

    private static Check reset(Predicate<RawHttp.Result> wire) {
        return new Check(wire, End.RESET, false);
    }

    /** An answer on a kept-alive connection: it ends because the test's request asked to close after it. */
    private static Check answered(Predicate<RawHttp.Result> wire) {
        return closed(wire);
    }

    private static Predicate<RawHttp.Result> text(String exactly) {
        return r -> r.text().equals(exactly);
    }

    private static Predicate<RawHttp.Result> head(String... lines) {
        return r -> {
            for (String line : lines) {
                if (!(r.head() + "\r\n").contains(line + "\r\n")) {
                    return false;
                }
            }
            return true;
        };
    }

    private static Predicate<RawHttp.Result> body(String exactly) {
        return r -> r.body().equals(exactly);
    }

    private static Predicate<RawHttp.Result> chunked(String body) {
        return head("HTTP/1.1 200 OK", "Transfer-Encoding: chunked").and(body(body));
    }

    private static Predicate<RawHttp.Result> headSize(int bytes) {
        return r -> r.text().indexOf("\r\n\r\n") + 4 == bytes && r.body().equals("{\"ok\":true}");
    }

    private static Check expected(Misbehaviour m) {
        String okBody = "{\"ok\":true}";
        String chunkTail = "\r\n" + okBody + "\r\n0\r\n\r\n";
        String halfHead = "HTTP/1.1 200 OK\r\nContent-Type: appli";
        return switch (m) {
            case CHUNK_SIZE_INVALID -> held(chunked("zz" + chunkTail));
            case CHUNK_EXTENSION_GARBAGE -> held(chunked("b;\u0001\"=\u007f;;" + chunkTail));
            case CHUNK_SIZE_OVERFLOW -> held(chunked("F".repeat(20) + chunkTail));
            case CHUNK_DATA_MISSING_CRLF -> held(chunked("b\r\n" + okBody + "0\r\n\r\n"));
            case CHUNKED_CLOSE_BEFORE_LAST_CHUNK -> closed(chunked("b\r\n" + okBody + "\r\n"));
            case CONTENT_LENGTH_SHORT_BODY -> closed(head("Content-Length: 100").and(body(okBody)));
            case CONTENT_LENGTH_LONG_BODY -> answered(head("Content-Length: 11")
                    .and(r -> r.body().startsWith(okBody) && r.body().length() > 11));
            case CONTENT_LENGTH_TWICE -> held(head("Content-Length: 11", "Content-Length: 12").and(body(okBody)));
            case CONTENT_LENGTH_AND_CHUNKED -> held(head("Content-Length: 11", "Transfer-Encoding: chunked")
                    .and(body("b" + chunkTail)));
            case CONTENT_LENGTH_NEGATIVE -> held(head("Content-Length: -1").and(body(okBody)));
            case CONTENT_LENGTH_HUGE -> held(head("Content-Length: 9999999999999").and(r -> r.body().matches("a*")));
            case CONTENT_LENGTH_NOT_A_NUMBER -> held(head("Content-Length: eleven").and(body(okBody)));
            case BODY_ON_204 -> answered(head("HTTP/1.1 204 No Content", "Content-Length: 11").and(body(okBody)));
            case BODY_ON_304 -> answered(head("HTTP/1.1 304 Not Modified", "Content-Length: 11").and(body(okBody)));
            case CLOSE_DELIMITED_BODY -> closed(head("HTTP/1.1 200 OK").and(body(okBody))
                    .and(r -> !r.head().contains("Content-Length") && !r.head().contains("Transfer-Encoding")));
            case TRANSFER_CODING_UNKNOWN -> held(head("Transfer-Encoding: foo").and(body(okBody)));

            case STATUS_LINE_GARBAGE -> held(r -> r.text().startsWith("<html>"));
            case VERSION_2_0 -> held(text(OK.replace("HTTP/1.1", "HTTP/2.0")));
            case VERSION_9_9 -> held(text(OK.replace("HTTP/1.1", "HTTP/9.9")));
            case STATUS_CODE_999 -> held(r -> r.text().startsWith("HTTP/1.1 999 "));
            case STATUS_CODE_42 -> held(r -> r.text().startsWith("HTTP/1.1 42 "));
            case REASON_PHRASE_OBS_TEXT -> answered(r -> r.head().lines().findFirst().orElseThrow().chars()
                    .anyMatch(c -> c > 0x7f) && r.body().equals(okBody));
            case HEADER_WITHOUT_COLON -> held(r -> r.head().lines().skip(1).anyMatch(line -> !line.contains(":")));
            case HEADER_SPACE_BEFORE_COLON -> held(head("Content-Length : 11").and(body(okBody)));
            case HEADER_OBS_FOLD -> answered(r -> r.head().lines().anyMatch(line -> line.startsWith(" "))
                    && r.body().equals(okBody));
            case HEADER_CONTROL_BYTES -> held(head("X-Control: a\u0000b\u0001c\u007f").and(body(okBody)));
            case HEADER_LINE_HUGE -> answered(r -> r.head().lines().anyMatch(line -> line.length() == 1024 * 1024 - 2)
                    && r.body().equals(okBody));
            case SWITCHING_PROTOCOLS -> held(head("HTTP/1.1 101 Switching Protocols", "Upgrade: websocket"));
            case CONTINUE_THEN_OK -> answered(text("HTTP/1.1 100 Continue\r\n\r\n" + OK));
            case EARLY_HINTS_THEN_OK -> answered(r -> r.text().startsWith("HTTP/1.1 103 Early Hints\r\n")
                    && r.text().endsWith("\r\n\r\n" + OK));
            case PROCESSING_FOREVER -> held(r -> r.text().matches("(HTTP/1\\.1 102 Processing\r\n\r\n)+"));

            case ANSWER_BEFORE_READ, TRICKLE_HEAD, TRICKLE_BODY -> answered(text(OK));
            case STALL_AFTER_ACCEPT -> held(text(""));
            case STALL_MID_HEAD -> held(text(halfHead));
            case STALL_MID_BODY -> held(head("Content-Length: 22").and(body("{\"ok\":true,")));

            case CLOSE_AT_ACCEPT -> closed(text(""));
            case RESET_AT_ACCEPT -> reset(text(""));
            case CLOSE_MID_HEAD -> closed(text(halfHead));
            case RESET_MID_BODY -> reset(head("Content-Length: 22").and(body("{\"ok\":true,")));
            case STRAY_BYTES_AFTER_ANSWER -> answered(r -> r.text().startsWith(OK + "HTTP/1.1 200 OK\r\n")
                    && r.text().endsWith("\r\n\r\n{\"stray\":true}"));
            case KEEP_ALIVE_THEN_CLOSE -> closed(head("Connection: keep-alive").and(body(okBody)));
            case CONNECTION_CLOSE_KEPT_OPEN -> held(head("Connection: close", "Content-Length: 11").and(body(okBody)));
            case HTTP10_RESPONSE -> held(text(OK.replace("HTTP/1.1", "HTTP/1.0")));

            case HEAD_JUST_UNDER_64K -> answered(headSize(64 * 1024 - 64));
            case HEAD_JUST_OVER_64K -> answered(headSize(64 * 1024 + 64));
            case BODY_OVER_MAX -> answered(head("Content-Length: 16777216").and(r -> r.body().length() == 16 << 20
                    && r.body().startsWith("{\"ok\":true,\"pad\":\"aaa") && r.body().endsWith("aaa\"}")));
        };
    }

    @ParameterizedTest
    @EnumSource(Misbehaviour.class)
    void everyMisbehaviourPutsOnTheWireWhatTheDocsSay(Misbehaviour m) throws Exception {
        assertOnTheWire(m, quick, patient, null);
    }

    /**
     * Asks {@code quick} (for what must reach the stall cap) or {@code patient} for {@code m}, over TLS with
     * {@code tls} unless it is null, and checks the bytes, the end and the counters.
     */
    static void assertOnTheWire(Misbehaviour m, HostilePartner quick, HostilePartner patient, SSLSocketFactory tls)
            throws IOException {
        Check check = expected(m);
        HostilePartner partner = check.capped() ? quick : patient;
        long before = partner.requests(m);
        long cappedBefore = partner.cappedConnections();
        String query = m == Misbehaviour.TRICKLE_HEAD || m == Misbehaviour.TRICKLE_BODY ? "?every=1" : "";

        RawHttp.Result result = RawHttp.get(partner.uri(), "/" + m.token() + query, SAFETY_NET_MILLIS, tls);

        assertEquals(check.end(), result.end(), m + " ended the connection otherwise: " + printable(result.text()));
        assertTrue(check.wire().test(result), m + " sent: " + printable(result.text()));
        assertEquals(before + 1, partner.requests(m), "requests(" + m + ")");
        assertEquals(cappedBefore + (check.capped() ? 1 : 0), partner.cappedConnections(), "capped by " + m);
    }

    @Test
    void okIsAnsweredTwiceOnOneKeptAliveConnection() throws Exception {
        long accepted = patient.connectionsAccepted();
        try (Socket socket = connect(patient)) {
            for (int i = 0; i < 2; i++) {
                send(socket, "/ok", false);
                assertEquals(OK, read(socket, OK.length()));
            }
        }
        assertEquals(accepted + 1, patient.connectionsAccepted());
    }

    @Test
    void unknownPathIsA404ThatNamesEveryMisbehaviourAndTheRootListsThem() throws Exception {
        RawHttp.Result unknown = RawHttp.get(patient.uri(), "/no-such-thing", SAFETY_NET_MILLIS);
        RawHttp.Result root = RawHttp.get(patient.uri(), "/", SAFETY_NET_MILLIS);
        assertTrue(unknown.head().startsWith("HTTP/1.1 404 Not Found\r\n"), unknown.head());
        assertTrue(root.head().startsWith("HTTP/1.1 200 OK\r\n"), root.head());
        for (Misbehaviour m : Misbehaviour.values()) {
            assertTrue(unknown.body().contains("/" + m.token() + "  "), m + " missing from the 404");
            assertTrue(root.body().contains("/" + m.token() + "  "), m + " missing from /");
        }
    }

    @Test
    void tuningOutOfRangeOrNotTakenIsA400NamingTheParameter() throws Exception {
        RawHttp.Result tooFast = RawHttp.get(patient.uri(), "/trickle-body?every=0", SAFETY_NET_MILLIS);
        assertTrue(tooFast.head().startsWith("HTTP/1.1 400 Bad Request\r\n"), tooFast.head());
        assertTrue(tooFast.body().contains("\"parameter\":\"every\""), tooFast.body());
        RawHttp.Result notTaken = RawHttp.get(patient.uri(), "/chunk-size-invalid?bytes=5", SAFETY_NET_MILLIS);
        assertTrue(notTaken.body().contains("\"accepted\":\"no parameters on /chunk-size-invalid\""),
                notTaken.body());
        RawHttp.Result tooSmall = RawHttp.get(patient.uri(), "/body-over-max?bytes=3", SAFETY_NET_MILLIS);
        assertTrue(tooSmall.body().contains("\"parameter\":\"bytes\""), tooSmall.body());
    }

    @Test
    void answerBeforeReadAnswersOnTheRequestLineAlone() throws Exception {
        try (Socket socket = connect(patient)) {
            write(socket, "GET /answer-before-read HTTP/1.1\r\n");
            assertEquals(OK, read(socket, OK.length()), "the answer came before the head was whole");
            // The rest of that head gets no second answer; the next request is served as usual.
            write(socket, "Host: 127.0.0.1\r\n\r\n");
            send(socket, "/ok", true);
            assertEquals(OK, readToEnd(socket));
        }
    }

    @Test
    void atAcceptTheAnswerComesBeforeAnyRequestIsSent() throws Exception {
        try (HostilePartner early = HostilePartner.builder().atAccept(Misbehaviour.ANSWER_BEFORE_READ).build().start();
                Socket socket = connect(early)) {
            assertEquals(OK, read(socket, OK.length()));
            send(socket, "/continue-then-ok", false); // answered ahead: no bytes for it
            send(socket, "/ok", true);
            assertEquals(OK, readToEnd(socket));
            assertEquals(1, early.requests(Misbehaviour.ANSWER_BEFORE_READ));
            assertEquals(0, early.requests(Misbehaviour.CONTINUE_THEN_OK));
        }
    }

    @Test
    void atAcceptAResetComesBeforeAnyRequestIsSent() throws Exception {
        try (HostilePartner early = HostilePartner.builder().atAccept(Misbehaviour.RESET_AT_ACCEPT).build().start();
                Socket socket = connect(early)) {
            IOException reset = assertThrows(IOException.class, () -> socket.getInputStream().read());
            assertTrue(String.valueOf(reset.getMessage()).contains("reset"), reset.toString());
            assertEquals(1, early.requests(Misbehaviour.RESET_AT_ACCEPT));
        }
    }

    @Test
    void aClientThatReusesTheConnectionAfterStrayBytesReadsThemAsItsAnswer() throws Exception {
        try (Socket socket = connect(patient)) {
            send(socket, "/stray-bytes-after-answer", false);
            assertEquals(OK, read(socket, OK.length()));
            send(socket, "/ok", true);
            String next = readToEnd(socket);
            assertTrue(next.startsWith("HTTP/1.1 200 OK\r\n") && next.contains("{\"stray\":true}HTTP/1.1 200 OK\r\n"),
                    printable(next));
        }
    }

    @Test
    void keepAliveThenCloseClosesAKeptAliveConnectionRightAfterItsAnswer() throws Exception {
        try (Socket socket = connect(patient)) {
            send(socket, "/keep-alive-then-close", false);
            String answer = readToEnd(socket);
            assertTrue(answer.contains("Connection: keep-alive\r\n") && answer.endsWith("{\"ok\":true}"), answer);
        }
    }

    @Test
    void hundredsOfStallsAreHeldOnOneLoopAndOneTimer() throws Exception {
        int stalls = 300;
        String halfHead = "HTTP/1.1 200 OK\r\nContent-Type: appli";
        Socket[] sockets = new Socket[stalls];
        try (HostilePartner partner = HostilePartner.builder().build().start()) {
            try {
                for (int i = 0; i < stalls; i++) {
                    sockets[i] = connect(partner);
                    send(sockets[i], "/stall-mid-head", false);
                }
                for (Socket socket : sockets) {
                    assertEquals(halfHead, read(socket, halfHead.length()));
                }
                // Every stall is under way now; the partner still answers, on the same two threads.
                assertEquals(OK, RawHttp.get(partner.uri(), "/ok", SAFETY_NET_MILLIS).text());
                assertEquals(stalls, partner.requests(Misbehaviour.STALL_MID_HEAD));
                assertTrue(partner.connectionsOpen() >= stalls, "open: " + partner.connectionsOpen());
                String prefix = "hostile-" + partner.port() + "-";
                long threads = Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().startsWith(prefix)).count();
                assertEquals(2, threads, "threads named " + prefix + "*");
            } finally {
                for (Socket socket : sockets) {
                    if (socket != null) {
                        socket.close();
                    }
                }
            }
        }
    }

    @Test
    void everyMisbehaviourHasARowInTheDocs() throws Exception {
        String docs = Files.readString(Path.of("..", "docs", "partner-stubs.md"), StandardCharsets.UTF_8);
        for (Misbehaviour m : Misbehaviour.values()) {
            assertTrue(docs.contains("| `" + m.token() + "` |"), m + " has no row in docs/partner-stubs.md");
        }
    }

    @Test
    void tokensNameTheirMisbehaviourAndUnknownOnesAreRefused() {
        for (Misbehaviour m : Misbehaviour.values()) {
            assertEquals(m, Misbehaviour.of(m.token()));
            assertTrue(m.allows(m.expected()));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Misbehaviour.of("nope"));
        assertTrue(e.getMessage().contains("chunk-size-invalid"), e.getMessage());
    }

    static Socket connect(HostilePartner partner) throws IOException {
        Socket socket = new Socket(partner.host(), partner.port());
        socket.setSoTimeout(SAFETY_NET_MILLIS);
        return socket;
    }

    static void send(Socket socket, String pathAndQuery, boolean close) throws IOException {
        write(socket, "GET " + pathAndQuery + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + (close ? "Connection: close\r\n" : "") + "\r\n");
    }

    private static void write(Socket socket, String text) throws IOException {
        socket.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
    }

    /** Exactly {@code length} bytes, or fails: the partner closed first, or sent nothing for the safety net's time. */
    static String read(Socket socket, int length) throws IOException {
        byte[] bytes = socket.getInputStream().readNBytes(length);
        assertEquals(length, bytes.length, "closed after " + printable(new String(bytes, StandardCharsets.ISO_8859_1)));
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    private static String readToEnd(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        try {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the partner neither closed nor finished within the safety net", e);
        }
    }

    static String printable(String text) {
        String shown = text.length() > 300 ? text.substring(0, 300) + "…(" + text.length() + " chars)" : text;
        return shown.replace("\r", "\\r").replace("\n", "\\n").replace("\u0000", "\\0");
    }
}
