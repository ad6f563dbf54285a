package io.rc10k.stubs.internal;

import io.rc10k.stubs.Misbehaviour;
import io.rc10k.stubs.StubOptions;
import io.rc10k.stubs.internal.Script.End;
import io.rc10k.stubs.internal.Script.Step;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The bytes of every {@link Misbehaviour}, and of the correct answers around them — one place to read
 * what the hostile partner puts on the wire (docs/partner-stubs.md shows the same as a table).
 * Stateless; thread-safe.
 */
final class Playbook {
    static final String OK_BODY = "{\"ok\":true}";
    private static final String JSON = "Content-Type: application/json\r\n";
    static final String OK = "HTTP/1.1 200 OK\r\n" + JSON + "Content-Length: 11\r\n\r\n" + OK_BODY;
    private static final String CHUNKED = "HTTP/1.1 200 OK\r\n" + JSON + "Transfer-Encoding: chunked\r\n\r\n";
    private static final String LAST_CHUNK = "\r\n0\r\n\r\n";
    private static final String HALF_HEAD = "HTTP/1.1 200 OK\r\nContent-Type: appli";
    /** A head declaring 22 bytes, and the first 11 of them. */
    private static final String HALF_BODY = "HTTP/1.1 200 OK\r\n" + JSON + "Content-Length: 22\r\n\r\n{\"ok\":true,";
    static final int HEAD_LIMIT = 64 * 1024;
    private static final String HEAD_UNDER = headOfSize(HEAD_LIMIT - 64);
    private static final String HEAD_OVER = headOfSize(HEAD_LIMIT + 64);

    static final long DEFAULT_TRICKLE_MILLIS = 100;
    static final long DEFAULT_PROCESSING_MILLIS = 50;
    static final long MAX_EVERY_MILLIS = 60_000;
    static final long DEFAULT_HUGE_HEADER_BYTES = 1024 * 1024;
    static final long DEFAULT_OVER_MAX_BYTES = 16 * 1024 * 1024;
    /** The smallest body {@code bytes} may ask for: {@code {"ok":true,"pad":""}}. */
    static final long MIN_JSON_BYTES = 20;

    private Playbook() {
    }

    /** The correct answer: {@code 200 {"ok":true}} with Content-Length, keep-alive. */
    static Script ok() {
        return Script.of(End.KEEP_ALIVE, Step.text(OK));
    }

    static Script script(Misbehaviour m, Tuning tuning) throws BadParameterException {
        Script script = switch (m) {
            case CHUNK_SIZE_INVALID -> hold(CHUNKED + "zz\r\n" + OK_BODY + LAST_CHUNK);
            case CHUNK_EXTENSION_GARBAGE -> hold(CHUNKED + "b;\u0001\"=\u007f;;\r\n" + OK_BODY + LAST_CHUNK);
            case CHUNK_SIZE_OVERFLOW -> hold(CHUNKED + "FFFFFFFFFFFFFFFFFFFF\r\n" + OK_BODY + LAST_CHUNK);
            case CHUNK_DATA_MISSING_CRLF -> hold(CHUNKED + "b\r\n" + OK_BODY + "0\r\n\r\n");
            case CHUNKED_CLOSE_BEFORE_LAST_CHUNK -> close(CHUNKED + "b\r\n" + OK_BODY + "\r\n");
            case CONTENT_LENGTH_SHORT_BODY -> close(head("200 OK", "Content-Length: 100") + OK_BODY);
            case CONTENT_LENGTH_LONG_BODY -> keepAlive(OK + "{\"extra\":\"past the Content-Length\"}");
            case CONTENT_LENGTH_TWICE -> hold(head("200 OK", "Content-Length: 11", "Content-Length: 12") + OK_BODY);
            case CONTENT_LENGTH_AND_CHUNKED -> hold(head("200 OK", "Content-Length: 11", "Transfer-Encoding: chunked")
                    + "b\r\n" + OK_BODY + LAST_CHUNK);
            case CONTENT_LENGTH_NEGATIVE -> hold(head("200 OK", "Content-Length: -1") + OK_BODY);
            case CONTENT_LENGTH_HUGE -> Script.of(End.HOLD, Step.text(head("200 OK", "Content-Length: 9999999999999")),
                    Step.forever("a", every(tuning, DEFAULT_TRICKLE_MILLIS)));
            case CONTENT_LENGTH_NOT_A_NUMBER -> hold(head("200 OK", "Content-Length: eleven") + OK_BODY);
            case BODY_ON_204 -> keepAlive(head("204 No Content", "Content-Length: 11") + OK_BODY);
            case BODY_ON_304 -> keepAlive(head("304 Not Modified", "Content-Length: 11") + OK_BODY);
            case CLOSE_DELIMITED_BODY -> close(head("200 OK") + OK_BODY);
            case TRANSFER_CODING_UNKNOWN -> hold(head("200 OK", "Transfer-Encoding: foo") + OK_BODY);

            case STATUS_LINE_GARBAGE -> hold("<html><body><h1>502 Bad Gateway</h1></body></html>\r\n\r\n");
            case VERSION_2_0 -> hold(OK.replace("HTTP/1.1", "HTTP/2.0"));
            case VERSION_9_9 -> hold(OK.replace("HTTP/1.1", "HTTP/9.9"));
            case STATUS_CODE_999 -> hold(OK.replace("200 OK", "999 Beyond"));
            case STATUS_CODE_42 -> hold(OK.replace("200 OK", "42 Answer"));
            case REASON_PHRASE_OBS_TEXT -> keepAlive(OK.replace("200 OK", "200 \u00c4\u00ff\u0080 okay"));
            case HEADER_WITHOUT_COLON -> hold(head("200 OK", "X-Broken header without a colon", "Content-Length: 11")
                    + OK_BODY);
            case HEADER_SPACE_BEFORE_COLON -> hold(head("200 OK", "Content-Length : 11") + OK_BODY);
            case HEADER_OBS_FOLD -> keepAlive(head("200 OK", "X-Folded: first line\r\n  continued on the next",
                    "Content-Length: 11") + OK_BODY);
            case HEADER_CONTROL_BYTES -> hold(head("200 OK", "X-Control: a\u0000b\u0001c\u007f", "Content-Length: 11")
                    + OK_BODY);
            case HEADER_LINE_HUGE -> hugeHeader(tuning.number("bytes", DEFAULT_HUGE_HEADER_BYTES, 16,
                    StubOptions.MAX_BODY_BYTES, "bytes of the header line"));
            case SWITCHING_PROTOCOLS -> hold("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n"
                    + "Upgrade: websocket\r\n\r\n\u0081\u0005hello");
            case CONTINUE_THEN_OK -> keepAlive("HTTP/1.1 100 Continue\r\n\r\n" + OK);
            case EARLY_HINTS_THEN_OK -> keepAlive("HTTP/1.1 103 Early Hints\r\n"
                    + "Link: </style.css>; rel=preload; as=style\r\n\r\n" + OK);
            case PROCESSING_FOREVER -> Script.of(End.HOLD, Step.forever("HTTP/1.1 102 Processing\r\n\r\n",
                    every(tuning, DEFAULT_PROCESSING_MILLIS)));

            case ANSWER_BEFORE_READ -> ok();
            case TRICKLE_HEAD -> Script.of(End.KEEP_ALIVE, Step.trickle(OK, every(tuning, DEFAULT_TRICKLE_MILLIS)));
            case TRICKLE_BODY -> trickleBody(every(tuning, DEFAULT_TRICKLE_MILLIS), tuning.number("bytes",
                    OK_BODY.length(), MIN_JSON_BYTES, HEAD_LIMIT, "bytes of the body"));
            case STALL_AFTER_ACCEPT -> Script.of(End.HOLD);
            case STALL_MID_HEAD -> hold(HALF_HEAD);
            case STALL_MID_BODY -> hold(HALF_BODY);

            case CLOSE_AT_ACCEPT -> Script.of(End.CLOSE);
            case RESET_AT_ACCEPT -> Script.of(End.RESET);
            case CLOSE_MID_HEAD -> close(HALF_HEAD);
            case RESET_MID_BODY -> Script.of(End.RESET, Step.text(HALF_BODY));
            case STRAY_BYTES_AFTER_ANSWER -> keepAlive(OK + head("200 OK", "Content-Length: 14") + "{\"stray\":true}");
            case KEEP_ALIVE_THEN_CLOSE -> close(head("200 OK", "Connection: keep-alive", "Keep-Alive: timeout=60",
                    "Content-Length: 11") + OK_BODY);
            case CONNECTION_CLOSE_KEPT_OPEN -> hold(head("200 OK", "Connection: close", "Content-Length: 11")
                    + OK_BODY);
            case HTTP10_RESPONSE -> hold(OK.replace("HTTP/1.1", "HTTP/1.0"));

            case HEAD_JUST_UNDER_64K -> keepAlive(HEAD_UNDER + OK_BODY);
            case HEAD_JUST_OVER_64K -> keepAlive(HEAD_OVER + OK_BODY);
            case BODY_OVER_MAX -> jsonOfSize(tuning.number("bytes", DEFAULT_OVER_MAX_BYTES, MIN_JSON_BYTES,
                    StubOptions.MAX_BODY_BYTES, "bytes of the body"));
        };
        tuning.done();
        return script;
    }

    /** {@code GET /}: a 200 listing every path. */
    static Script index(String known) {
        return text(200, "OK", "the hostile partner knows:\n" + known);
    }

    static Script notFound(String path, String known) {
        return text(404, "Not Found", "no misbehaviour at " + path + "; the hostile partner knows:\n" + known);
    }

    static Script badParameter(BadParameterException e) {
        byte[] json = e.toJson().getBytes(StandardCharsets.UTF_8);
        return Script.of(End.KEEP_ALIVE, Step.text(head("400 Bad Request", "Content-Length: " + json.length)),
                Step.bytes(json));
    }

    /** A refusal that ends the connection: the request itself could not be read as HTTP/1.1. */
    static Script refuse(int status, String reason, String why) {
        byte[] body = (why + "\n").getBytes(StandardCharsets.UTF_8);
        return Script.of(End.CLOSE, Step.text("HTTP/1.1 " + status + " " + reason + "\r\nContent-Type: text/plain; "
                + "charset=utf-8\r\nConnection: close\r\nContent-Length: " + body.length + "\r\n\r\n"),
                Step.bytes(body));
    }

    private static Script text(int status, String reason, String text) {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        return Script.of(End.KEEP_ALIVE, Step.text("HTTP/1.1 " + status + " " + reason + "\r\nContent-Type: text/plain;"
                + " charset=utf-8\r\nContent-Length: " + body.length + "\r\n\r\n"),
                Step.bytes(body));
    }

    private static long every(Tuning tuning, long absent) throws BadParameterException {
        return tuning.number("every", absent, 1, MAX_EVERY_MILLIS, "milliseconds between writes");
    }

    /** A status line, the JSON content type, {@code headers}, and the blank line. */
    private static String head(String status, String... headers) {
        StringBuilder head = new StringBuilder("HTTP/1.1 ").append(status).append("\r\n").append(JSON);
        for (String header : headers) {
            head.append(header).append("\r\n");
        }
        return head.append("\r\n").toString();
    }

    private static Script hold(String bytes) {
        return Script.of(End.HOLD, Step.text(bytes));
    }

    private static Script close(String bytes) {
        return Script.of(End.CLOSE, Step.text(bytes));
    }

    private static Script keepAlive(String bytes) {
        return Script.of(End.KEEP_ALIVE, Step.text(bytes));
    }

    /** A 200 whose body comes one byte every {@code every} ms: {@code {"ok":true}}, or padded to {@code bytes}. */
    private static Script trickleBody(long every, long bytes) {
        String body = bytes == OK_BODY.length() ? OK_BODY
                : "{\"ok\":true,\"pad\":\"" + "a".repeat((int) (bytes - MIN_JSON_BYTES)) + "\"}";
        return Script.of(End.KEEP_ALIVE, Step.text(head("200 OK", "Content-Length: " + bytes)),
                Step.trickle(body, every));
    }

    /** A 200 whose body is a JSON object of exactly {@code bytes} bytes, padded, never held whole. */
    private static Script jsonOfSize(long bytes) {
        return Script.of(End.KEEP_ALIVE, Step.text(head("200 OK", "Content-Length: " + bytes)
                + "{\"ok\":true,\"pad\":\""), Step.pad(bytes - MIN_JSON_BYTES), Step.text("\"}"));
    }

    private static Script hugeHeader(long lineBytes) {
        String name = "X-Huge: ";
        return Script.of(End.KEEP_ALIVE, Step.text("HTTP/1.1 200 OK\r\n" + JSON + name),
                Step.pad(lineBytes - name.length() - 2), Step.text("\r\nContent-Length: 11\r\n\r\n" + OK_BODY));
    }

    /** A 200 head of exactly {@code size} bytes, blank line included: filler headers of 1 KiB at most. */
    private static String headOfSize(int size) {
        StringBuilder head = new StringBuilder("HTTP/1.1 200 OK\r\n").append(JSON).append("Content-Length: 11\r\n");
        for (int i = 0; head.length() < size - 2; i++) {
            String name = String.format(Locale.ROOT, "X-Filler-%03d: ", i);
            int room = size - 2 - head.length() - name.length() - 2;
            if (room < 1) {
                // Too little room left for another line: widen the previous one instead.
                head.insert(head.length() - 2, "a".repeat(size - 2 - head.length()));
                break;
            }
            head.append(name).append("a".repeat(Math.min(room, 1024 - name.length() - 2))).append("\r\n");
        }
        return head.append("\r\n").toString();
    }
}
