package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class JsonSyntaxTest {
    private static final List<String> VALID = List.of(
            "{}", "[]", "0", "-0", "1.5e-3", "-12E+7", "true", "false", "null", "\"\"",
            " \t\r\n{\"a\" : [1, 2.0, {\"b\": null}], \"c\": \"d\"} \n",
            "\"escapes \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\uD83D\\uDE00\"",
            "\"caf\u00e9 \u20ac \uD83D\uDE00\"", "[[[[]]]]", "{\"\":{}}", "123456789012345678901234567890");

    private static final List<String> INVALID = List.of(
            "", " ", "{", "}", "[", "[1,]", "[,1]", "{\"a\":1,}", "{\"a\"}", "{\"a\" 1}", "{a:1}", "{'a':1}",
            "01", "-", "1.", ".5", "1e", "1e+", "+1", "NaN", "Infinity", "tru", "nulls", "True",
            "\"open", "\"bad \\x escape\"", "\"\\u12\"", "\"\\u12G4\"", "\"tab\there\"",
            "{} {}", "[1] 2", "1 2", "{\"a\":1}}", "[1]]", "/* c */ 1", "[1, // c\n 2]");

    @Test
    void acceptsExactlyOneJsonValue() {
        for (String text : VALID) {
            assertTrue(check(text.getBytes(StandardCharsets.UTF_8)), text);
        }
        for (String text : INVALID) {
            assertFalse(check(text.getBytes(StandardCharsets.UTF_8)), text);
        }
    }

    /** Where a streaming parser and this check may both judge (UTF-8 without a BOM), they agree. */
    @Test
    void agreesWithJacksonOnEveryCase() throws IOException {
        for (String text : concat(VALID, INVALID)) {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            assertEquals(jackson(bytes), check(bytes), text);
        }
    }

    /**
     * Twenty thousand near-misses — valid documents with one character deleted, inserted, replaced or
     * swapped (a fixed seed, ASCII only) — judged the same by this check and by Jackson.
     */
    @Test
    void agreesWithJacksonOnMutatedDocuments() throws IOException {
        String alphabet = "{}[]\":,.-+eE0123456789tfnrulas \\/\t\n";
        List<String> seeds = List.of("{\"a\":[1,-2.5e3,true,false,null,\"x\\\"y\\u0041\"],\"b\":{\"c\":{}}}",
                "[0, 10.01, -0.0e-1, \"s\", [[], {}], {\"k\": \"v\"}]", "\"\\b\\f\\n\\r\\t\\/\"", "12", "{}");
        Random random = new Random(20261124);
        int accepted = 0;
        for (int n = 0; n < 20_000; n++) {
            StringBuilder text = new StringBuilder(seeds.get(random.nextInt(seeds.size())));
            int at = random.nextInt(text.length() + 1);
            char c = alphabet.charAt(random.nextInt(alphabet.length()));
            switch (random.nextInt(4)) {
                case 0 -> text.insert(at, c);
                case 1 -> {
                    if (at < text.length()) {
                        text.deleteCharAt(at);
                    }
                }
                case 2 -> {
                    if (at < text.length()) {
                        text.setCharAt(at, c);
                    }
                }
                default -> {
                    if (at + 1 < text.length()) {
                        char first = text.charAt(at);
                        text.setCharAt(at, text.charAt(at + 1));
                        text.setCharAt(at + 1, first);
                    }
                }
            }
            byte[] bytes = text.toString().getBytes(StandardCharsets.US_ASCII);
            boolean verdict = check(bytes);
            assertEquals(jackson(bytes), verdict, text.toString());
            accepted += verdict ? 1 : 0;
        }
        // Both verdicts are well represented: the mutations are near misses, not all noise.
        assertTrue(accepted > 2_000 && accepted < 18_000, accepted + " of 20,000 accepted");
    }

    @Test
    void refusesWhatCannotBeEmbeddedInAUtf8Composite() {
        byte[] bom = {(byte) 0xef, (byte) 0xbb, (byte) 0xbf, '1'};
        assertFalse(check(bom), "a byte order mark");
        assertFalse(check("\"x\"".getBytes(StandardCharsets.UTF_16)), "UTF-16");
        assertFalse(check(new byte[] {'"', (byte) 0xc0, (byte) 0xaf, '"'}), "an overlong '/'");
        assertFalse(check(new byte[] {'"', (byte) 0xed, (byte) 0xa0, (byte) 0x80, '"'}), "a UTF-8 surrogate");
        assertFalse(check(new byte[] {'"', (byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80, '"'}), "past U+10FFFF");
        assertFalse(check(new byte[] {'"', (byte) 0xe2, (byte) 0x82, '"'}), "a cut sequence");
        assertFalse(check(new byte[] {'"', (byte) 0x80, '"'}), "a lone continuation byte");
        assertFalse(check(new byte[] {'[', (byte) 0xc3, (byte) 0xa9, ']'}), "a letter outside a string");
    }

    /** A number or a member name past a general parser's default limits is refused by both. */
    @Test
    void refusesNumbersAndNamesPastTheUsualLimits() throws IOException {
        List<String> cases = List.of(
                "[" + "9".repeat(JsonSyntax.MAX_NUMBER_LENGTH) + "]",
                "[" + "9".repeat(JsonSyntax.MAX_NUMBER_LENGTH + 1) + "]",
                "{\"" + "a".repeat(JsonSyntax.MAX_NAME_BYTES) + "\":1}",
                "{\"" + "a".repeat(JsonSyntax.MAX_NAME_BYTES + 1) + "\":1}");
        List<Boolean> expected = List.of(true, false, true, false);
        for (int i = 0; i < cases.size(); i++) {
            byte[] bytes = cases.get(i).getBytes(StandardCharsets.US_ASCII);
            assertEquals(expected.get(i), check(bytes), "case " + i);
            assertEquals(jackson(bytes), check(bytes), "Jackson agrees on case " + i);
        }
    }

    @Test
    void boundsNesting() {
        assertTrue(check(("[".repeat(JsonSyntax.MAX_DEPTH) + "]".repeat(JsonSyntax.MAX_DEPTH)).getBytes()));
        int deeper = JsonSyntax.MAX_DEPTH + 1;
        assertFalse(check(("[".repeat(deeper) + "]".repeat(deeper)).getBytes()));
        assertFalse(check("[".repeat(500_000).getBytes()), "half a megabyte of openings ends without a stack overflow");
    }

    @Test
    void checksASliceAndJoinsSeveralWrites() {
        byte[] framed = "xx[1,2]yy".getBytes(StandardCharsets.UTF_8);
        assertTrue(JsonSyntax.isOneValue(framed, 2, 5));
        assertFalse(JsonSyntax.isOneValue(framed, 2, 4));

        JsonSyntax.Check check = new JsonSyntax.Check();
        check.write("{\"a\":".getBytes(StandardCharsets.UTF_8), 0, 5);
        check.write('[');
        check.write("1]}".getBytes(StandardCharsets.UTF_8), 0, 3);
        assertTrue(check.isOneValue());
        assertFalse(new JsonSyntax.Check().isOneValue(), "nothing written is not a value");
    }

    private static boolean check(byte[] bytes) {
        JsonSyntax.Check check = new JsonSyntax.Check();
        check.write(bytes, 0, bytes.length);
        return check.isOneValue();
    }

    private static boolean jackson(byte[] bytes) throws IOException {
        try (JsonParser parser = new JsonFactory().createParser(bytes)) {
            if (parser.nextToken() == null) {
                return false;
            }
            parser.skipChildren();
            return parser.nextToken() == null;
        } catch (JsonProcessingException e) {
            return false;
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return Stream.concat(a.stream(), b.stream()).toList();
    }
}
