package io.rc10k.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Http1HeadsTest {
    private static final String HEAD = "HTTP/1.1 502 Bad Gateway\r\ncontent-type: application/json\r\n"
            + "Mashup-Complete:false\r\nContent-Length: 321\r\n\r\n";

    @Test
    void aHeaderIsFoundWhateverItsCaseAndTrimmed() {
        assertEquals("application/json", Http1Heads.header(HEAD, "Content-Type"));
        assertEquals("false", Http1Heads.header(HEAD, "mashup-complete"));
    }

    @Test
    void aMissingHeaderIsNullAndAMissingLengthIsMinusOne() {
        assertNull(Http1Heads.header(HEAD, "Connection"));
        assertEquals(321, Http1Heads.contentLength(HEAD));
        assertEquals(-1, Http1Heads.contentLength("HTTP/1.1 204 No Content\r\n\r\n"));
    }

    @Test
    void theHeadEndsAtTheBlankLineOnceItIsAllThere() {
        byte[] bytes = (HEAD + "{\"x\":1}").getBytes(StandardCharsets.ISO_8859_1);
        assertEquals(HEAD.length() - 4, Http1Heads.endOfHead(bytes, bytes.length));
        assertEquals(-1, Http1Heads.endOfHead(bytes, HEAD.length() - 1), "the blank line is not all read yet");
    }
}
