package io.rc10k.stubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.harness.BuildVersion;
import io.rc10k.stubs.internal.StubArguments;
import io.rc10k.stubs.internal.StubArguments.UsageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StubArgumentsTest {
    @Test
    void defaultsAreOneLoopbackPortAndASmallPool() throws Exception {
        StubOptions options = StubArguments.parse();
        assertEquals(List.of(9001), options.ports());
        assertEquals("127.0.0.1", options.host());
        assertEquals(8, options.maxThreads());
        assertEquals(false, options.h2c());
    }

    @Test
    void portsTakeListsRangesAndMixes() throws Exception {
        assertEquals(List.of(9001, 9002, 9003), StubArguments.parse("--port", "9001-9003").ports());
        assertEquals(List.of(9001, 9005, 9006), StubArguments.parse("--port", "9001,9005-9006").ports());
        StubOptions many = StubArguments.parse("--port", "9001-9010", "--h2c", "--max-streams", "200");
        assertEquals(10, many.ports().size());
        assertEquals(14, many.maxThreads(), "one selector per port plus four");
        assertTrue(many.h2c());
        assertEquals(200, many.maxStreams());
    }

    @Test
    void helpReturnsNoOptions() throws Exception {
        assertNull(StubArguments.parse("--help"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--port 70000|--port",
        "--port 9005-9001|--port",
        "--port abc|--port",
        "--port 9001,9001|9001 is listed twice",
        "--port 9001-9020 --max-threads 8|maxThreads: 8 is too few",
        "--max-threads|--max-threads: needs a value",
        "--max-threads --h2c|--max-threads: needs a value",
        "--max-threads many|--max-threads",
        "--max-streams 0|maxStreams",
        "--max-stall 0|maxStallMillis",
        "--verbose|--verbose: unknown option",
        "--chaos 0.1|--chaos: only with --hostile",
    })
    void badCommandLineNamesTheOption(String args, String expected) {
        UsageException e = assertThrows(UsageException.class, () -> StubArguments.parse(args.split(" ")));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void versionIsAskedForAnywhereOnTheLineAndIsTheBuildsVersion() {
        assertTrue(StubArguments.asksForVersion("--port", "http", "--version"));
        assertTrue(!StubArguments.asksForVersion("--port", "9001"));
        // Run from target/classes, as here, the version is the one Maven filtered in, not "unknown".
        assertTrue(BuildVersion.version().matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"), BuildVersion.version());
        assertEquals("rc10k-partner-stubs " + BuildVersion.version(), BuildVersion.line(StubArguments.NAME));
    }

    @Test
    void hostileDefaultsToPort9009WithoutChaos() throws Exception {
        assertTrue(StubArguments.asksForHostile("--port", "9100", "--hostile"));
        HostilePartner partner = StubArguments.parseHostile("--hostile");
        assertEquals(9009, partner.port());
        assertEquals("127.0.0.1", partner.host());
        assertEquals(false, partner.chaos());
        assertEquals(1, partner.loops());
        assertEquals(StubOptions.DEFAULT_MAX_STALL_MILLIS, partner.maxStallMillis());
    }

    @Test
    void hostileTakesItsPortChaosSeedAndStallCap() throws Exception {
        HostilePartner partner = StubArguments.parseHostile("--hostile", "--port", "9010", "--chaos", "0.05",
                "--seed", "7", "--max-stall", "2000", "--loops", "2", "--idle-timeout", "5000");
        assertEquals(9010, partner.port());
        assertTrue(partner.chaos());
        assertEquals(0.05, partner.chaosProbability());
        assertEquals(7, partner.seed());
        assertEquals(2000, partner.maxStallMillis());
        assertEquals(2, partner.loops());
        assertEquals(5000, partner.idleTimeoutMillis());
        assertTrue(StubArguments.parseHostile("--hostile", "--chaos", "0").chaos(), "--chaos 0 is a control run");
        assertNull(StubArguments.parseHostile("--hostile", "--help"));
    }

    @Test
    void hostileWithHttpsServesItsMisbehavioursInsideTls(@TempDir Path files) throws Exception {
        Path pem = files.resolve("hostile.pem");
        HostilePartner partner = StubArguments.parseHostile("--hostile", "--https", "--port", "0", "--cert-out",
                pem.toString());
        assertEquals("https", partner.uri().getScheme());
        assertTrue(partner.tls().names().containsAll(List.of("localhost", "127.0.0.1")), partner.tls().names().toString());
        assertEquals(partner.tls().pem(), Files.readString(pem));
        assertNull(StubArguments.parseHostile("--hostile").tls());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--hostile --cert-out x.pem|--cert-out: only with --https",
        "--hostile --chaos 2|chaos: 2.0 is not a probability (accepted: 0 to 1",
        "--hostile --chaos -0.1|chaos: -0.1 is not a probability",
        "--hostile --chaos lots|--chaos: \"lots\" is not a number (accepted: 0 to 1",
        "--hostile --chaos|--chaos: needs a value",
        "--hostile --port 9001,9002|--port: \"9001,9002\" is 2 ports; --hostile serves one",
        "--hostile --port 70000|--port",
        "--hostile --h2c|--h2c: not with --hostile",
        "--hostile --max-threads 8|--max-threads: not with --hostile",
        "--hostile --loops 0|loops: 0 (accepted: 1 to 64)",
        "--hostile --max-stall 0|maxStallMillis",
        "--hostile --seed x|--seed",
        "--hostile --verbose|--verbose: unknown option",
    })
    void badHostileCommandLineNamesTheOptionAndWhatIsAccepted(String args, String expected) {
        UsageException e = assertThrows(UsageException.class, () -> StubArguments.parseHostile(args.split(" ")));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
