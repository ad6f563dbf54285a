package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.mashup.internal.observability.Logging;
import io.rc10k.stubs.PartnerStubs;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundled {@code logback.xml}: the access line of a mashup answered on an event thread (the
 * selector or broker loop that completed it) is queued and written by the log's own thread, so the
 * thread that answered never writes the console (BlockHound checks every test in this module).
 */
class AccessLogTest {
    @Test
    void theAccessLineOfAMashupAnsweredOnAnEventThreadIsQueuedAndWrittenWithoutBlockingIt(@TempDir Path dir)
            throws Exception {
        PrintStream stderr = System.err;
        // Standard error as a deployment has it, a file descriptor each write goes to (the test JVM's own
        // buffers its lines): the console appender writes here, and BlockHound sees each write.
        Path console = dir.resolve("stderr.log");
        System.setErr(new PrintStream(new FileOutputStream(console.toFile()), true, StandardCharsets.UTF_8));
        Logging.configure(resource("/logback.xml"), List.of());
        try (PartnerStubs stubs = PartnerStubs.start();
                TestServer server = TestServer.start(Mode.ASYNC, TestServer.definitions(stubs))) {
            for (int i = 0; i < 20; i++) {
                ContentResponse echo = server.get("/mashup/echo?q=line" + i);
                assertEquals(200, echo.getStatus(), echo.getContentAsString());
            }
            Await.until(() -> read(console).contains("\"GET /mashup/echo?q=line19 HTTP/1.1\" 200"),
                    () -> "no access line for the last mashup in:\n" + read(console));
            String log = read(console);
            assertTrue(log.contains(" INFO  [") && log.contains("] org.eclipse.jetty.server.RequestLog - 127.0.0.1 - - ["),
                    log);
            assertTrue(server.metricsOnceAnswered().contains("\nmashup_log_dropped_lines_total "),
                    "the dropped-lines counter is served");
        } finally {
            Logging.configure(resource("/logback-test.xml"), List.of());
            System.err.close();
            System.setErr(stderr);
        }
    }

    private static Path resource(String name) throws URISyntaxException {
        return Path.of(AccessLogTest.class.getResource(name).toURI());
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
