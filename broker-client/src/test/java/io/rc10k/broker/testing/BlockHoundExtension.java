package io.rc10k.broker.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * BlockHound in every test of the module: installed once per test JVM before the first test class
 * runs; a test during which an event thread made a blocking call fails after it, with the call, the
 * thread and the stack ({@link BlockingCalls}); so does a class whose {@code @AfterAll} made one.
 *
 * <p>Registered by Jupiter's extension auto-detection, which the parent pom turns on for surefire and
 * failsafe: the module's test class path lists this class in
 * {@code META-INF/services/org.junit.jupiter.api.extension.Extension} (broker-client's tests from their
 * own tree, mashup-server's from broker-client's test-jar). A test run from an IDE without that
 * setting runs without BlockHound.</p>
 */
public final class BlockHoundExtension implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
    @Override
    public void beforeAll(ExtensionContext context) {
        BlockingCalls.install();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        BlockingCalls.assertNone();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        BlockingCalls.assertNone();
    }
}
