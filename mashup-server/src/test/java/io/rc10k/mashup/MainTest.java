package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.harness.BuildVersion;
import io.rc10k.mashup.internal.wiring.ServerArguments;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line's exit statuses and messages, without starting a server. */
class MainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) throws Exception {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void checkOfAGoodFileSaysOkAndExits0(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("good.json");
        Files.writeString(file, DefinitionsTest.GOOD);
        assertEquals(0, run("--check", file.toString()));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("OK (2 partners, 1 mashups)"));
    }

    @Test
    void checkOfAFileWithTenIndependentErrorsPrintsAllTenEachWithLineAndColumn(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("ten.json");
        Files.writeString(file, """
                {
                  "$schema": "../docs/definitions.schema.json",
                  "partners": {
                    "weather": {"baseUri": "ftp://example", "retries": 11},
                    "hotels": {"baseUri": "http://127.0.0.1:9002", "connectTimeoutMillis": -5,
                               "maxQueued": 10, "maxQueued": 20, "colour": "red"}
                  },
                  "mashups": {
                    "travel": {
                      "deadlineMillis": 0,
                      "calls": [
                        {"partner": "weather", "template": "/w", "hedgeAfterMillis": 0, "maxHedges": 9},
                        {"partner": "hotel", "template": "/h", "forwardHeaders": [5]}
                      ]
                    }
                  }
                }
                """);
        assertEquals(2, run("--check", file.toString()));
        String f = file.toString();
        assertEquals(List.of(
                "mashup-server: " + f + ": 10 problem(s) in the definitions:",
                "  " + f + ":4:28: partners.weather.baseUri: \"ftp://example\" (accepted: http[s]://host[:port][/base/path], "
                        + "without user info, query or fragment)",
                "  " + f + ":4:56: partners.weather.retries: 11 (accepted: 0 to 10)",
                "  " + f + ":5:76: partners.hotels.connectTimeoutMillis: -5 (accepted: > 0)",
                "  " + f + ":6:33: partners.hotels.maxQueued: duplicate key, first at line 6, column 16 (accepted: each "
                        + "key once)",
                "  " + f + ":6:50: partners.hotels.colour: unknown field (known: balancing, baseUri, baseUris, cacheMaxBytes, cacheMaxEntries, "
                        + "callTimeoutMillis, circuitBreaker, connectTimeoutMillis, ejection, headers, idleTimeoutMillis, maxConnections, maxQueued, "
                        + "maxResponseBytes, maxStreamsPerConnection, protocol, retries, tls)",
                "  " + f + ":10:25: mashups.travel.deadlineMillis: 0 (accepted: 1 to 600000)",
                "  " + f + ":12:70: mashups.travel.calls[0].hedgeAfterMillis: 0 (accepted: 1 to 60000)",
                "  " + f + ":12:86: mashups.travel.calls[0].maxHedges: 9 (accepted: 1 to 3)",
                "  " + f + ":13:21: mashups.travel.calls[1].partner: unknown partner \"hotel\" (known: weather, hotels)",
                "  " + f + ":13:67: mashups.travel.calls[1].forwardHeaders[0]: 5 (accepted: a string)"),
                err().lines().toList());
    }

    @Test
    void versionPrintsTheNameAndTheBuildsVersionAndStartsNothing() throws Exception {
        assertEquals(0, run("--port", "0", "--version", "--config", "/nowhere.json"));
        assertEquals("rc10k-mashup-server " + BuildVersion.version() + System.lineSeparator(),
                out.toString(StandardCharsets.UTF_8));
        // Run from target/classes, as here, the version is the one Maven filtered in, not "unknown".
        assertTrue(BuildVersion.version().matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"), BuildVersion.version());
        assertEquals("", err());
    }

    @Test
    void badOptionsExit2NamingTheOption() throws Exception {
        assertEquals(2, run("--mode", "threads"));
        assertTrue(err().contains("--mode: \"threads\" (accepted: async, sync, virtual)"), err());
        assertEquals(2, run("--port", "http"));
        assertEquals(2, run("--max-threads", "2"));
        assertEquals(2, run("--selectors", "0"));
        assertTrue(err().contains("--selectors: 0 (accepted: -1 for Jetty's default, 1 to 256)"), err());
        assertEquals(2, run("--acceptors", "-2"));
        assertTrue(err().contains("--acceptors: -2 (accepted: -1 for Jetty's default, 0 to 64)"), err());
        assertEquals(2, run("--verbose"));
        assertTrue(err().contains("--verbose: unknown option"), err());
    }

    @Test
    void aLogLevelThatIsNotLoggerEqualsLevelExits2NamingIt() throws Exception {
        for (String bad : new String[] {"io.rc10k", "io.rc10k=loud", "=debug"}) {
            assertEquals(2, run("--log-level", bad));
            assertTrue(err().contains("--log-level: \"" + bad + "\" (accepted: LOGGER=LEVEL"), err());
        }
    }

    @Test
    void anOtlpEndpointThatIsNotAnHttpUrlExits2NamingIt() throws Exception {
        assertEquals(2, run("--otlp-endpoint", "collector:4318"));
        assertTrue(err().contains("--otlp-endpoint: \"collector:4318\" (accepted: an http or https URL"), err());
        assertEquals(2, run("--otlp-endpoint", "http://collector:4318/ traces"));
        assertTrue(err().contains("--otlp-endpoint: \"http://collector:4318/ traces\" is not a URL"), err());
        assertEquals(URI.create("http://collector:4318"),
                ServerArguments.parse("--otlp-endpoint", "http://collector:4318").options().otlpEndpoint());
    }

    @Test
    void logLevelsAreKeptInOrderWithTheirLevelLowercased() {
        assertEquals(List.of("io.rc10k=debug", "org.eclipse.jetty.server.RequestLog=off"),
                ServerArguments.parse("--log-level", "io.rc10k=DEBUG", "--log-level",
                        "org.eclipse.jetty.server.RequestLog=off").logLevels());
    }

    @Test
    void observabilityOnAdminOnlyWithoutAnAdminPortExits2NamingBoth() throws Exception {
        assertEquals(2, run("--observability-on-admin-only", "--admin-port", "-1"));
        assertTrue(err().contains("--observability-on-admin-only needs an admin port, but --admin-port is -1"), err());
        assertEquals(2, run("--admin-port", "-1", "--observability-on-admin-only"));
    }

    @Test
    void observabilityOnAdminOnlyIsAFlagOfTheOptions() {
        assertTrue(ServerArguments.parse("--observability-on-admin-only").options()
                .observabilityOnAdminOnly());
        assertTrue(!ServerArguments.parse("--port", "0").options().observabilityOnAdminOnly());
    }

    @Test
    void anAdminPortThatCannotBeBoundExits1NamingItsHost(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("good.json");
        Files.writeString(file, DefinitionsTest.GOOD);
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertEquals(1, run("--config", file.toString(), "--port", "0", "--admin-host", "127.0.0.1",
                    "--admin-port", String.valueOf(taken.getLocalPort())));
        }
        assertTrue(err().contains("cannot start: admin port "), err());
        assertTrue(err().contains(" on 127.0.0.1 is in use or cannot be bound"), err());
    }

    @Test
    void missingFileExits2(@TempDir Path dir) throws Exception {
        assertEquals(2, run("--config", dir.resolve("nowhere.json").toString()));
        assertTrue(err().contains("cannot be read"), err());
    }

    @Test
    void helpListsEveryOption() throws Exception {
        assertEquals(0, run("--help"));
        String usage = out.toString(StandardCharsets.UTF_8);
        for (String option : new String[] {"--config", "--check", "--mode", "--port", "--host", "--max-threads",
            "--acceptors", "--selectors", "--max-inflight", "--max-connections", "--admin-port", "--admin-host", "--observability-on-admin-only", "/health/ready",
            "/health/live", "--log-config", "--log-level", "--otlp-endpoint", "--version", "--probe"}) {
            assertTrue(usage.contains(option), option);
        }
    }
}
