package io.rc10k.stubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.internal.CommandLine;
import io.rc10k.stubs.internal.CommandLine.UsageException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CommandLineTest {
    @Test
    void defaultsAreOneLoopbackPortAndASmallPool() throws Exception {
        StubOptions options = CommandLine.parse();
        assertEquals(List.of(9001), options.ports());
        assertEquals("127.0.0.1", options.host());
        assertEquals(8, options.maxThreads());
        assertEquals(false, options.h2c());
    }

    @Test
    void portsTakeListsRangesAndMixes() throws Exception {
        assertEquals(List.of(9001, 9002, 9003), CommandLine.parse("--port", "9001-9003").ports());
        assertEquals(List.of(9001, 9005, 9006), CommandLine.parse("--port", "9001,9005-9006").ports());
        StubOptions many = CommandLine.parse("--port", "9001-9010", "--h2c", "--max-streams", "200");
        assertEquals(10, many.ports().size());
        assertEquals(14, many.maxThreads(), "one selector per port plus four");
        assertTrue(many.h2c());
        assertEquals(200, many.maxStreams());
    }

    @Test
    void helpReturnsNoOptions() throws Exception {
        assertNull(CommandLine.parse("--help"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--port 70000|--port",
        "--port 9005-9001|--port",
        "--port abc|--port",
        "--port 9001,9001|9001 is listed twice",
        "--port 9001-9020 --max-threads 8|maxThreads: 8 is too few",
        "--max-threads|--max-threads: a value is missing",
        "--max-threads many|--max-threads",
        "--max-streams 0|maxStreams",
        "--max-stall 0|maxStallMillis",
        "--verbose|unknown option",
    })
    void badCommandLineNamesTheOption(String args, String expected) {
        UsageException e = assertThrows(UsageException.class, () -> CommandLine.parse(args.split(" ")));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
