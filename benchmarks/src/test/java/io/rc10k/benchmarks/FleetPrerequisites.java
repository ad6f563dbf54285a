package io.rc10k.benchmarks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * What the fleet experiments' quick variants need before they run: HAProxy installed (else the test is skipped,
 * saying why), the packaged jars, and the repository's HAProxy recipe — named in the system properties the
 * experiments read.
 */
final class FleetPrerequisites {
    private FleetPrerequisites() {
    }

    static void assumeMet() {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/haproxy")),
                "/usr/sbin/haproxy is not installed (Debian: apt-get install haproxy; .ci/run does it where it may)");
        Path stubs = Path.of("..", "partner-stubs", "target", "partner-stubs.jar");
        Path mashup = Path.of("..", "mashup-server", "target", "mashup-server.jar");
        assertTrue(Files.isRegularFile(stubs) && Files.isRegularFile(mashup), "package the modules first");
        System.setProperty("rc10k.stubs.jar", stubs.toString());
        System.setProperty("rc10k.mashup.jar", mashup.toString());
        System.setProperty("rc10k.haproxy.recipe", Path.of("..", "deploy", "haproxy", "haproxy.cfg").toString());
    }
}
