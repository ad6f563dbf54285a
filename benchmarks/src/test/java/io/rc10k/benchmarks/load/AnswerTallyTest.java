package io.rc10k.benchmarks.load;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** What the tally reads from a composite body. */
class AnswerTallyTest {
    @Test
    void theCompositesOwnElapsedTimeIsReadFromItsHead() {
        assertEquals(1003, AnswerTally.serverElapsedMillis("{\"mashup\":\"chaos\",\"complete\":false,"
                + "\"elapsedMillis\":1003,\"parts\":{\"a\":{\"status\":200,\"elapsedMillis\":12,\"body\":{\"ok\":true}}}}"));
        assertEquals(-1, AnswerTally.serverElapsedMillis("{\"error\":\"overloaded\"}"));
        assertEquals(-1, AnswerTally.serverElapsedMillis(""));
    }
}
