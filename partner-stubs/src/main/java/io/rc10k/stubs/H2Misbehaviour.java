package io.rc10k.stubs;

import io.rc10k.stubs.Misbehaviour.Expect;
import java.util.Map;
import java.util.Optional;

/**
 * Every way the {@link HostileH2Partner} breaks HTTP/2 (RFC 9113), each served at {@code GET /<token>}, with
 * what a correct h2c client should make of it, in the terms of {@link Misbehaviour.Expect}.
 *
 * <pre>{@code
 * @ParameterizedTest
 * @EnumSource(H2Misbehaviour.class)
 * void everyMisbehaviourEndsTheCallAsItShould(H2Misbehaviour m) {
 *     Outcome outcome = call(partner.uri(m));
 *     assertTrue(m.allows(kindOf(outcome)), m + " gave " + outcome);
 * }
 * }</pre>
 *
 * <p>A misbehaviour is acted once the request's HEADERS (and CONTINUATIONs) have been read; "the stream"
 * is the request's. Where a row says "then holds", the partner keeps reading (and answering PINGs and
 * SETTINGS) but sends nothing more for the stream until the client closes the connection or the stall cap
 * closes it. docs/partner-stubs.md ("Hostile h2c partner") lists them.</p>
 */
public enum H2Misbehaviour implements PartnerMisbehaviour {
    // The stream or the connection ends early.
    RST_STREAM("rst-stream", Expect.RESET, "RST_STREAM (INTERNAL_ERROR) on the stream before any HEADERS"),
    RST_STREAM_AFTER_HEADERS("rst-stream-after-headers", Expect.RESET,
            "HEADERS 200 with content-length: 11, then RST_STREAM (INTERNAL_ERROR)"),
    GOAWAY_THEN_CLOSE("goaway-then-close", Expect.RESET,
            "GOAWAY whose last stream id is below the stream's (the request was not processed), then a close"),
    CLOSE_MID_HEADERS("close-mid-headers", Expect.RESET,
            "a HEADERS frame header announcing more bytes than follow, half its block, then a close (FIN)"),
    CLOSE_MID_DATA("close-mid-data", Expect.RESET,
            "HEADERS 200 with content-length: 22, DATA of 11 bytes, then a close (FIN)"),
    RESET_ON_REQUEST("reset-on-request", Expect.RESET,
            "a TCP reset (RST) of the connection as soon as the request is read, no byte for the stream"),

    // Framing and header rules.
    DATA_BEFORE_HEADERS("data-before-headers", Expect.MALFORMED,
            "DATA with END_STREAM on the stream before any HEADERS, then holds"),
    HEADERS_ON_STREAM_0("headers-on-stream-0", Expect.MALFORMED,
            "a proper HEADERS 200 sent on stream 0 (a connection error), then holds"),
    DATA_ON_STREAM_0("data-on-stream-0", Expect.MALFORMED,
            "HEADERS 200 on the stream, then DATA on stream 0 (a connection error), then holds"),
    FRAME_OVER_MAX_FRAME_SIZE("frame-over-max-frame-size", Expect.MALFORMED,
            "HEADERS 200, then one DATA frame one byte longer than the client's SETTINGS_MAX_FRAME_SIZE, then holds"),
    BAD_HPACK("bad-hpack", Expect.MALFORMED,
            "HEADERS whose block is an indexed field of index 0, which HPACK cannot decode, then holds"),
    UPPERCASE_HEADER_NAME("uppercase-header-name", Expect.MALFORMED,
            "HEADERS 200 with a header named X-Upper-Case (names must be lowercase), a body, then holds"),
    MISSING_STATUS("missing-status", Expect.MALFORMED,
            "HEADERS with content-type but no :status, a body, then holds"),
    CONTENT_LENGTH_MISMATCH("content-length-mismatch", Expect.MALFORMED,
            "HEADERS 200 with content-length: 22, DATA of 11 bytes with END_STREAM, then holds"),
    DECLARED_CONTENT_LENGTH_HUGE("declared-content-length-huge", Expect.MALFORMED, Expect.TOO_LARGE,
            "HEADERS 200 with content-length: 10^15, DATA of 11 bytes with END_STREAM, then holds"),
    STREAMS_ON_UNOPENED_IDS("streams-on-unopened-ids", Expect.MALFORMED,
            "HEADERS 200 on the stream id two above the request's, which the client never opened, then holds"),
    PUSH_PROMISE("push-promise", Expect.MALFORMED, Expect.OK,
            "PUSH_PROMISE for stream 2 (the client announced SETTINGS_ENABLE_PUSH=0), then a proper 200"),
    WINDOW_OVERRUN("window-overrun", Expect.MALFORMED, Expect.TOO_LARGE,
            "HEADERS 200, then DATA one byte past the stream's flow-control window, WINDOW_UPDATEs ignored, then holds"),

    // Sizes and floods.
    CONTINUATION_FLOOD("continuation-flood", Expect.TOO_LARGE, Expect.MALFORMED,
            "HEADERS and CONTINUATION frames with no END_HEADERS, a header block of `bytes` bytes (default 4 MiB),"
                    + " then holds"),
    HEADER_LIST_HUGE("header-list-huge", Expect.TOO_LARGE, Expect.MALFORMED,
            "a complete 200 header block of 1 MiB (64 headers of 16 KiB) in HEADERS and CONTINUATIONs, then holds"),
    PING_FLOOD("ping-flood", Expect.OK, Expect.MALFORMED, "1,000 PING frames, then a proper 200"),
    SETTINGS_FLOOD("settings-flood", Expect.OK, Expect.MALFORMED, "1,000 empty SETTINGS frames, then a proper 200"),
    BODY_OVER_MAX("body-over-max", Expect.TOO_LARGE,
            "a 200 with a body of `bytes` bytes (default 16 MiB) in DATA frames, within the flow-control windows"),

    // Legal but unusual answers.
    INTERIM_103_THEN_OK("interim-103-then-ok", Expect.OK, "HEADERS :status 103 with a link header, then a proper 200"),
    TRAILERS_THEN_OK("trailers-then-ok", Expect.OK, "a proper 200 whose body is followed by HEADERS of trailers"),
    DATA_PADDED("data-padded", Expect.OK, "a proper 200 whose DATA frame is PADDED (32 bytes of padding)"),

    // Timing.
    STALL_AFTER_HEADERS("stall-after-headers", Expect.STALL, "HEADERS 200 with content-length: 11, then holds"),
    STALL_NO_ANSWER("stall-no-answer", Expect.STALL, "sends nothing for the stream: holds");

    private static final Map<String, H2Misbehaviour> BY_TOKEN = Expectation.byToken(values());

    /** Read through {@link Expectation#of(PartnerMisbehaviour)}. */
    final Expectation expectation;

    H2Misbehaviour(String token, Expect expected, String description) {
        this(token, expected, expected, description);
    }

    H2Misbehaviour(String token, Expect expected, Expect alsoCorrect, String description) {
        this.expectation = Expectation.of(token, expected, alsoCorrect, description);
    }

    /**
     * Whether the misbehaviour leaves the whole connection unusable, not just the stream: the partner closes or
     * resets it, announces GOAWAY, breaks the shared HPACK state or a header block that never ends, or commits
     * what RFC 9113 makes a connection error (a frame on stream 0, a stream the client never opened). A correct
     * client then sends its next call on a new connection.
     */
    public boolean breaksConnection() {
        return switch (this) {
            case GOAWAY_THEN_CLOSE, CLOSE_MID_HEADERS, CLOSE_MID_DATA, RESET_ON_REQUEST, HEADERS_ON_STREAM_0,
                    DATA_ON_STREAM_0, BAD_HPACK, STREAMS_ON_UNOPENED_IDS, CONTINUATION_FLOOD -> true;
            default -> false;
        };
    }

    /** The h2 misbehaviour at {@code /token}, if there is one. */
    public static Optional<H2Misbehaviour> find(String token) {
        return Optional.ofNullable(BY_TOKEN.get(token));
    }

    /** Like {@link #find}, but an unknown token is an error that lists the known ones. */
    public static H2Misbehaviour of(String token) {
        return Expectation.of(BY_TOKEN, token, "h2 misbehaviour", tokens());
    }

    /** Its tokens in declaration order, comma-separated. */
    public static String tokens() {
        return Expectation.tokens(values());
    }

    @Override
    public String toString() {
        return token();
    }
}
