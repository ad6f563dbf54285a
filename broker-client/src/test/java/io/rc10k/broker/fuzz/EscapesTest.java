package io.rc10k.broker.fuzz;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The corpus's line format: what a failure report prints must read back as the same bytes. */
class EscapesTest {
    @Test
    void anyBytesReadBackAsTheyWereWritten() {
        Random random = new Random(1);
        for (int i = 0; i < 500; i++) {
            byte[] bytes = new byte[random.nextInt(300)];
            random.nextBytes(bytes);
            if (i % 3 == 0 && bytes.length > 45) {
                Arrays.fill(bytes, 5, 45, (byte) '}'); // a run written as \*N{…}
            }
            assertArrayEquals(bytes, Escapes.unescape(Escapes.escape(bytes)), Escapes.escape(bytes));
        }
    }

    @Test
    void repeatsAndEscapesExpandAsDocumented() {
        byte[] bytes = Escapes.unescape("A\\r\\n\\*3{ab\\x00}\\\\\\tZ");
        assertEquals("A\r\nab\0ab\0ab\0\\\tZ", new String(bytes, StandardCharsets.ISO_8859_1));
        assertEquals("\\*70000{v}", Escapes.escape("v".repeat(70_000).getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void anUnknownEscapeIsRefusedWithItsPlace() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Escapes.unescape("ab\\q"));
        assertEquals("unknown escape \\q at 3: ab\\q", e.getMessage());
    }

    @Test
    void aJavaLiteralQuotesWhatJavaWould() {
        assertEquals("\"HTTP/1.1 200\\r\\n\\\"\\u0000\\u00ff\"",
                Escapes.javaLiteral("HTTP/1.1 200\r\n\"\0\u00ff".getBytes(StandardCharsets.ISO_8859_1)));
    }
}
