package io.rc10k.stubs;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Every way the {@link HostilePartner} misbehaves, each served at {@code GET /<token>}, with what a
 * correct HTTP/1.1 client should make of it.
 *
 * <pre>{@code
 * @ParameterizedTest
 * @EnumSource(Misbehaviour.class)
 * void everyMisbehaviourEndsTheCallAsItShould(Misbehaviour m) {
 *     Outcome outcome = call(partner.uri(m));
 *     assertTrue(m.allows(kindOf(outcome)), m + " gave " + outcome);
 * }
 * }</pre>
 *
 * <p>The bytes each one sends are listed in docs/partner-stubs.md ("Hostile partner"). Unless it says
 * otherwise, a misbehaviour is acted once the request head has been read. Every one of them ends within
 * the partner's stall cap: the fixture then closes the connection.</p>
 */
public enum Misbehaviour implements PartnerMisbehaviour {
    // Framing of the body.
    CHUNK_SIZE_INVALID("chunk-size-invalid", Expect.MALFORMED, "a chunk size that is not hex (zz)"),
    CHUNK_EXTENSION_GARBAGE("chunk-extension-garbage", Expect.MALFORMED,
            "a chunk size followed by an extension of control bytes and stray quotes"),
    CHUNK_SIZE_OVERFLOW("chunk-size-overflow", Expect.MALFORMED, "a chunk size of 20 hex digits (past 2^64)"),
    CHUNK_DATA_MISSING_CRLF("chunk-data-missing-crlf", Expect.MALFORMED,
            "chunk data not followed by CRLF: the last chunk runs into it"),
    CHUNKED_CLOSE_BEFORE_LAST_CHUNK("chunked-close-before-last-chunk", Expect.RESET,
            "a chunked body, then a close before the last (zero) chunk"),
    CONTENT_LENGTH_SHORT_BODY("content-length-short-body", Expect.RESET,
            "Content-Length: 100, an 11-byte body, then a close"),
    CONTENT_LENGTH_LONG_BODY("content-length-long-body", Expect.OK,
            "Content-Length: 11 and more bytes after the 11, on a kept-alive connection"),
    CONTENT_LENGTH_TWICE("content-length-twice", Expect.MALFORMED, "two Content-Length headers that differ"),
    CONTENT_LENGTH_AND_CHUNKED("content-length-and-chunked", Expect.MALFORMED, Expect.OK,
            "Content-Length and Transfer-Encoding: chunked together (a smuggling shape)"),
    CONTENT_LENGTH_NEGATIVE("content-length-negative", Expect.MALFORMED, "Content-Length: -1"),
    CONTENT_LENGTH_HUGE("content-length-huge", Expect.TOO_LARGE, Expect.STALL,
            "Content-Length: 9999999999999, then the body one byte every `every` ms"),
    CONTENT_LENGTH_NOT_A_NUMBER("content-length-not-a-number", Expect.MALFORMED, "Content-Length: eleven"),
    BODY_ON_204("body-on-204", Expect.OK, Expect.MALFORMED,
            "a 204 with Content-Length: 11 and 11 bytes after its head"),
    BODY_ON_304("body-on-304", Expect.OK, "a 304 with Content-Length: 11 and 11 bytes after its head"),
    CLOSE_DELIMITED_BODY("close-delimited-body", Expect.OK,
            "an HTTP/1.1 200 with no length: the body ends when the connection closes"),
    TRANSFER_CODING_UNKNOWN("transfer-coding-unknown", Expect.MALFORMED,
            "Transfer-Encoding: foo, a coding no client can decode"),

    // Status line and headers.
    STATUS_LINE_GARBAGE("status-line-garbage", Expect.MALFORMED,
            "an HTML error page where the status line should be"),
    VERSION_2_0("version-2-0", Expect.MALFORMED, "HTTP/2.0 in an HTTP/1.1 status line"),
    VERSION_9_9("version-9-9", Expect.MALFORMED, "HTTP/9.9 in the status line"),
    STATUS_CODE_999("status-code-999", Expect.MALFORMED, "status 999, outside 100 to 599"),
    STATUS_CODE_42("status-code-42", Expect.MALFORMED, "a two-digit status, 42"),
    REASON_PHRASE_OBS_TEXT("reason-phrase-obs-text", Expect.OK, Expect.MALFORMED,
            "a 200 whose reason phrase has bytes above 0x7F (obs-text)"),
    HEADER_WITHOUT_COLON("header-without-colon", Expect.MALFORMED, "a header line with no colon"),
    HEADER_SPACE_BEFORE_COLON("header-space-before-colon", Expect.MALFORMED, Expect.OK,
            "Content-Length : 11, whitespace between the name and the colon"),
    HEADER_OBS_FOLD("header-obs-fold", Expect.OK, Expect.MALFORMED,
            "a header value folded onto a continuation line (obs-fold)"),
    HEADER_CONTROL_BYTES("header-control-bytes", Expect.MALFORMED, Expect.OK,
            "a header value with NUL, 0x01 and DEL in it"),
    HEADER_LINE_HUGE("header-line-huge", Expect.TOO_LARGE, Expect.MALFORMED,
            "one header line of `bytes` bytes (default 1 MiB)"),
    SWITCHING_PROTOCOLS("switching-protocols", Expect.MALFORMED,
            "101 Switching Protocols to websocket, never asked for, then a websocket frame"),
    CONTINUE_THEN_OK("continue-then-ok", Expect.OK, "100 Continue, then a proper 200"),
    EARLY_HINTS_THEN_OK("early-hints-then-ok", Expect.OK, "103 Early Hints with a Link header, then a proper 200"),
    PROCESSING_FOREVER("processing-forever", Expect.STALL, Expect.MALFORMED,
            "102 Processing every `every` ms (default 50) and never a final answer"),

    // Timing.
    ANSWER_BEFORE_READ("answer-before-read", Expect.OK,
            "a proper 200 written before the request is read: on its request line, or at accept"),
    TRICKLE_HEAD("trickle-head", Expect.OK, Expect.STALL, "a proper 200, head and body one byte every `every` ms"),
    TRICKLE_BODY("trickle-body", Expect.OK, Expect.STALL,
            "a proper 200 whose body comes one byte every `every` ms (default 100)"),
    STALL_AFTER_ACCEPT("stall-after-accept", Expect.STALL, "reads the request and sends nothing"),
    STALL_MID_HEAD("stall-mid-head", Expect.STALL, "half a head, then nothing"),
    STALL_MID_BODY("stall-mid-body", Expect.STALL, "a head with Content-Length: 22, 11 bytes, then nothing"),

    // Connection life.
    CLOSE_AT_ACCEPT("close-at-accept", Expect.RESET, "closes the connection (FIN) without a byte"),
    RESET_AT_ACCEPT("reset-at-accept", Expect.RESET, "resets the connection (RST) without a byte"),
    CLOSE_MID_HEAD("close-mid-head", Expect.RESET, "half a head, then a close (FIN)"),
    RESET_MID_BODY("reset-mid-body", Expect.RESET, "a head with Content-Length: 22, 11 bytes, then a reset (RST)"),
    STRAY_BYTES_AFTER_ANSWER("stray-bytes-after-answer", Expect.OK,
            "a proper 200, then a second, unasked-for 200 on the kept-alive connection"),
    KEEP_ALIVE_THEN_CLOSE("keep-alive-then-close", Expect.OK,
            "a proper 200 promising keep-alive, then a close at once"),
    CONNECTION_CLOSE_KEPT_OPEN("connection-close-kept-open", Expect.OK,
            "a 200 with Connection: close, and the connection left open"),
    HTTP10_RESPONSE("http10-response", Expect.OK, "an HTTP/1.0 200 without keep-alive, the connection left open"),

    // Sizes.
    HEAD_JUST_UNDER_64K("head-just-under-64k", Expect.OK, "a 200 whose head is 65,472 bytes (64 KiB - 64)"),
    HEAD_JUST_OVER_64K("head-just-over-64k", Expect.TOO_LARGE, Expect.MALFORMED,
            "a 200 whose head is 65,600 bytes (64 KiB + 64)"),
    BODY_OVER_MAX("body-over-max", Expect.TOO_LARGE,
            "a 200 with a JSON body of `bytes` bytes (default 16 MiB), sent as fast as the client reads");

    /** What a correct client makes of a misbehaviour. */
    public enum Expect {
        /**
         * A legal, if odd, answer the client must accept as sent; it must not reuse a connection whose
         * framing is in doubt (bytes after the answer, a promised close), so the next call is correct.
         */
        OK,
        /**
         * The bytes break HTTP/1.1 framing or syntax. The call ends as soon as they arrive, never by waiting
         * for its deadline: the fixture keeps the connection open after them.
         */
        MALFORMED,
        /** The connection closes (FIN) or resets (RST) before a whole answer. */
        RESET,
        /** Nothing that completes the answer comes: the client's own deadline ends the call. */
        STALL,
        /** The answer is larger than a client should hold: a head past 64 KiB, a body past {@code maxResponseBytes}. */
        TOO_LARGE;

        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    private static final Map<String, Misbehaviour> BY_TOKEN = Expectation.byToken(values());

    /** Read through {@link Expectation#of(PartnerMisbehaviour)}. */
    final Expectation expectation;

    Misbehaviour(String token, Expect expected, String description) {
        this(token, expected, expected, description);
    }

    Misbehaviour(String token, Expect expected, Expect alsoCorrect, String description) {
        this.expectation = Expectation.of(token, expected, alsoCorrect, description);
    }

    /** The misbehaviour served at {@code /token}, if there is one. */
    public static Optional<Misbehaviour> find(String token) {
        return Optional.ofNullable(BY_TOKEN.get(token));
    }

    /** Like {@link #find}, but an unknown token is an error that lists the known ones. */
    public static Misbehaviour of(String token) {
        return Expectation.of(BY_TOKEN, token, "misbehaviour", tokens());
    }

    /** Every token, comma-separated, in declaration order. */
    public static String tokens() {
        return Expectation.tokens(values());
    }

    @Override
    public String toString() {
        return token();
    }
}
