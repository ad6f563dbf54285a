package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.mashup.internal.wiring.ServerAssembly;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@code deploy/haproxy/haproxy.cfg}, the fleet recipe: docs/operations.md shows it verbatim, it agrees
 * with what the server does (readiness on the admin port, a drain HAProxy retries around, a server
 * timeout past the deadline and the graceful stop), and HAProxy itself accepts it where it is installed.
 */
class HaproxyRecipeTest {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path CONFIG = ROOT.resolve("deploy/haproxy/haproxy.cfg");
    private static final Path OPERATIONS = ROOT.resolve("docs/operations.md");

    private static String config() throws IOException {
        return Files.readString(CONFIG, StandardCharsets.UTF_8);
    }

    /** The directives of the config, comments and indentation dropped. */
    private static List<String> directives() throws IOException {
        return config().lines().map(l -> l.replaceFirst("#.*", "").strip()).filter(l -> !l.isEmpty()).toList();
    }

    private static boolean has(String directive) throws IOException {
        return directives().contains(directive);
    }

    @Test
    void operationsShowsTheRecipeVerbatim() throws IOException {
        Matcher m = Pattern.compile("(?ms)^```haproxy\\n(.*?)^```$").matcher(Files.readString(OPERATIONS));
        assertTrue(m.find(), "operations.md has no ```haproxy block");
        assertEquals(config(), m.group(1), "docs/operations.md's copy of deploy/haproxy/haproxy.cfg");
    }

    @Test
    void everyServerIsCheckedOnItsAdminPortForReadiness() throws IOException {
        assertTrue(has("option httpchk"), "HTTP checks");
        assertTrue(has("http-check send meth GET uri /health/ready ver HTTP/1.1 hdr Host localhost"),
                "checks GET the readiness view, which turns 503 while the server drains");
        assertTrue(has("http-check expect status 200"));
        Pattern server = Pattern.compile("server \\S+ 127\\.0\\.0\\.1:(\\d+) check port (\\d+)");
        List<Matcher> servers = directives().stream().filter(d -> d.startsWith("server "))
                .map(server::matcher).toList();
        assertTrue(servers.size() >= 2, "a fleet: " + servers.size() + " servers");
        for (Matcher m : servers) {
            assertTrue(m.matches(), "server line with a check on its admin port: " + m);
            assertEquals(Integer.parseInt(m.group(1)) + 1, Integer.parseInt(m.group(2)),
                    "the check goes to the admin port, --port + 1 by default (on loopback: --admin-host)");
        }
        assertTrue(directives().stream().anyMatch(d -> d.startsWith("default-server check") && d.contains(" maxconn ")),
                "a connection limit per server");
    }

    @Test
    void aDrainingOrRefusingInstanceIsRetriedElsewhereForGetsOnly() throws IOException {
        assertTrue(has("option redispatch 1"), "every retry goes to another server");
        assertTrue(has("retry-on conn-failure empty-response 503"),
                "connection refused (main port closed), a closed keep-alive connection, 503 server_stopping");
        assertTrue(has("http-request disable-l7-retry unless METH_GET || METH_HEAD"), "only idempotent methods");
        assertTrue(directives().stream().anyMatch(d -> d.matches("retries [1-9]")), "some retries");
        // HAProxy 2.6 moves a retry to another server after a connection failure only: a request must meet a
        // draining instance as a refused connection, never on a pooled keep-alive one (RollingRestartIT).
        assertTrue(has("option http-server-close"), "a new server connection per request");
        assertFalse(directives().stream().anyMatch(d -> d.contains("slowstart")),
                "no slowstart: the instance just back takes the retries away from the next one draining");
    }

    @Test
    void haproxysOwnErrorsHaveTheServersJsonShapeAndItsRetryAfter() throws IOException {
        assertTrue(directives().stream().anyMatch(d -> d.startsWith("http-error status 503 content-type application/json")
                && d.contains("\\\"error\\\":") && d.endsWith("hdr Retry-After 1")), "503 as JSON with Retry-After");
        for (String status : List.of("502", "504")) {
            assertTrue(directives().stream().anyMatch(d -> d.startsWith("http-error status " + status
                    + " content-type application/json")), status + " as JSON");
        }
    }

    @Test
    void theServerTimeoutOutlastsTheDefaultDeadlineAndTheGracefulStopSlack() throws IOException {
        Matcher m = Pattern.compile("timeout server (\\d+)s").matcher(String.join("\n", directives()));
        assertTrue(m.find(), "a timeout server in seconds");
        long millis = Long.parseLong(m.group(1)) * 1_000;
        assertTrue(millis > MashupDefinition.DEFAULT_DEADLINE.toMillis() + ServerAssembly.STOP_SLACK_MILLIS,
                "timeout server " + millis + " ms: longer than an answer can take");
        assertFalse(directives().stream().anyMatch(d -> d.contains("on-marked-down shutdown-sessions")),
                "a drained server's requests in flight are never cut when it is marked down");
    }

    @Test
    void haproxyAcceptsTheConfigWhereItIsInstalled() throws Exception {
        Path haproxy = Path.of("/usr/sbin/haproxy");
        Assumptions.assumeTrue(Files.isExecutable(haproxy),
                "haproxy is not installed here (.ci/run installs Debian's package where it can)");
        Process process = new ProcessBuilder(haproxy.toString(), "-c", "-f", CONFIG.toString())
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "haproxy -c did not end");
        assertEquals(0, process.exitValue(), output);
        assertFalse(output.contains("[WARNING]"), output);
    }
}
