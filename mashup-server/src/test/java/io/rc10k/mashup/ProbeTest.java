package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.harness.BuildVersion;
import io.rc10k.mashup.internal.wiring.Probe;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --probe URL}, as a container's health check runs it: exit 0 for a 200 and 1 for anything else, against
 * real servers on loopback — the mashup server's own readiness view, and a plain Jetty server that answers
 * whatever status its path names.
 */
class ProbeTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private Server statuses;
    private URI statusesUri;

    /** {@code GET /status/503} answers 503; {@code /redirect} answers 302 to {@code /status/200}. */
    @BeforeEach
    void startStatusServer() throws Exception {
        statuses = new Server();
        ServerConnector connector = new ServerConnector(statuses, 1, 1);
        connector.setHost("127.0.0.1");
        statuses.addConnector(connector);
        statuses.setHandler(new Handler.Abstract.NonBlocking() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                String path = Request.getPathInContext(request);
                if (path.equals("/redirect")) {
                    response.setStatus(302);
                    response.getHeaders().put(HttpHeader.LOCATION, "/status/200");
                    callback.succeeded();
                    return true;
                }
                response.setStatus(Integer.parseInt(path.substring("/status/".length())));
                response.write(true, ByteBuffer.wrap(("{\"path\":\"" + path + "\"}\n")
                        .getBytes(StandardCharsets.UTF_8)), callback);
                return true;
            }
        });
        statuses.start();
        statusesUri = URI.create("http://127.0.0.1:" + connector.getLocalPort());
    }

    @AfterEach
    void stopStatusServer() throws Exception {
        statuses.stop();
    }

    private int probe(URI url) {
        return Probe.get(url, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aReadyServersReadinessViewIsA200AndExit0() throws Exception {
        try (TestServer server = TestServer.start(Mode.ASYNC, AdminConnectorTest.definitions())) {
            URI ready = server.admin().resolve("/health/ready");
            assertEquals(0, probe(ready), err());
            assertTrue(out().startsWith("probe " + ready + ": 200 {\"status\":\"up\""), out());
            assertTrue(out().contains("\"version\":\"" + BuildVersion.version() + "\""), out());
            assertEquals("", err());
            assertEquals(1, probe(server.uri.resolve("/mashup/nowhere")), "404");
            assertTrue(err().contains(": 404 {\"error\":\"not_found\""), err());
        }
    }

    @Test
    void everyStatusButTwoHundredIsExit1NamingIt() {
        for (int status : new int[] {503, 500, 204, 201, 401}) {
            err.reset();
            URI url = statusesUri.resolve("/status/" + status);
            assertEquals(1, probe(url), status + ": " + out());
            assertTrue(err().startsWith("mashup-server: probe " + url + ": " + status), err());
        }
        assertEquals(0, probe(statusesUri.resolve("/status/200")), err());
    }

    @Test
    void aRedirectIsNotFollowed() {
        assertEquals(1, probe(statusesUri.resolve("/redirect")));
        assertTrue(err().contains(": 302 (redirects are not followed)"), err());
    }

    @Test
    void aRefusedConnectionIsExit1() throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort();
        }
        assertEquals(1, probe(URI.create("http://127.0.0.1:" + port + "/health/ready")));
        assertTrue(err().contains("no answer (java.net.ConnectException"), err());
    }

    @Test
    void aServerThatNeverAnswersIsExit1AfterTheTimeout() throws Exception {
        // Connections complete in the kernel's backlog; nobody ever reads them.
        try (ServerSocket silent = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            long start = System.nanoTime();
            assertEquals(1, probe(URI.create("http://127.0.0.1:" + silent.getLocalPort() + "/health/ready")));
            assertTrue(err().contains("no answer (java.net.SocketTimeoutException"), err());
            assertTrue(System.nanoTime() - start < 4L * Probe.TIMEOUT_MILLIS * 1_000_000, "bounded");
        }
    }

    @Test
    void theCommandLineProbesWithoutStartingAServerAndRefusesWhatIsNotAnHttpUrl() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(0, Main.run(new String[] {"--port", String.valueOf(port), "--probe",
            statusesUri.resolve("/status/200").toString()}, o, e), err());
        assertEquals(1, Main.run(new String[] {"--probe", statusesUri.resolve("/status/503").toString()}, o, e));
        // Neither run bound the port it was given.
        assertThrows(ConnectException.class, () -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
            }
        }, "nothing listens on " + port);
        for (String bad : new String[] {"127.0.0.1:8081/health/ready", "ftp://127.0.0.1/health", "http:///health",
            "http://127.0.0.1:8081/ health"}) {
            err.reset();
            assertEquals(2, Main.run(new String[] {"--probe", bad}, o, e), bad);
            assertTrue(err().contains("--probe: \"" + bad + "\" (accepted: an http or https URL with a host, e.g. "
                    + "http://127.0.0.1:8081/health/ready)"), err());
        }
        err.reset();
        assertEquals(2, Main.run(new String[] {"--probe"}, o, e));
        assertTrue(err().contains("--probe: needs a value"), err());
    }
}
