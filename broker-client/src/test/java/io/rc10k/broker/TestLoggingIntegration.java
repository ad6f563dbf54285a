package io.rc10k.broker;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * What BlockHound allows on event threads in broker-client's tests only, on top of
 * {@link io.rc10k.broker.testing.EventThreadIntegration}: their logging backend.
 */
public final class TestLoggingIntegration implements BlockHoundIntegration {
    @Override
    public void applyTo(BlockHound.Builder builder) {
        // These tests log through slf4j-simple, straight to System.err: a stand-in for a backend (a warning
        // that a circuit opened, on the loop that saw the failure), not a deployment's. The servers that run
        // the broker put their appenders behind a queue; mashup-server's tests check that with its Logback.
        builder.allowBlockingCallsInside("org.slf4j.simple.SimpleLogger", "write");
    }
}
