package io.rc10k.benchmarks.efficiency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** How the load generator finds the end of a chunked answer (nginx's streamed pages), byte by byte. */
class KeepAliveLoadTest {
    private static final String BODY = "5\r\n{\"a\":\r\n3;ext=1\r\n12}\r\n0\r\n\r\n";

    @Test
    void theEndIsPastTheLastChunkAndTheBlankLine() throws IOException {
        byte[] bytes = ("HEAD" + BODY).getBytes(StandardCharsets.ISO_8859_1);
        assertEquals(bytes.length, KeepAliveLoad.chunkedEnd(bytes, 4, bytes.length));
    }

    @Test
    void everyPrefixShortOfTheEndAsksForMore() throws IOException {
        byte[] bytes = BODY.getBytes(StandardCharsets.ISO_8859_1);
        for (int limit = 0; limit < bytes.length; limit++) {
            assertEquals(-1, KeepAliveLoad.chunkedEnd(bytes, 0, limit), "prefix of " + limit + " bytes");
        }
    }

    @Test
    void aSizeThatIsNotHexIsAnError() {
        byte[] bytes = "zz\r\nabc\r\n".getBytes(StandardCharsets.ISO_8859_1);
        assertThrows(IOException.class, () -> KeepAliveLoad.chunkedEnd(bytes, 0, bytes.length));
    }
}
