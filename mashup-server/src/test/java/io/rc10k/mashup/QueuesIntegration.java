package io.rc10k.mashup;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * What BlockHound allows on event threads in mashup-server's tests, on top of broker-client's
 * {@code io.rc10k.broker.testing.EventThreadIntegration}: the server's two hand-offs from the thread that
 * ends a request to a thread of their own, each an offer to an {@code ArrayBlockingQueue} that never
 * waits for room (a full queue drops and counts). An offer takes the queue's lock, which other offering
 * threads and the queue's one consumer hold only to move a few references (the consumer drains at most
 * the queue's size at once, with no I/O under the lock), so a contended offer may park briefly.
 */
public final class QueuesIntegration implements BlockHoundIntegration {
    @Override
    public void applyTo(BlockHound.Builder builder) {
        // The log (logback.xml, logback-test.xml): CountingAsyncAppender, which Logback's put only offers for,
        // as it always runs with neverBlock. A line is never written by the thread that logs it.
        builder.allowBlockingCallsInside("ch.qos.logback.core.AsyncAppenderBase", "put");
        // Before it offers, Logback's append asks the same queue for its room (remainingCapacity): the same
        // lock, held as briefly.
        builder.allowBlockingCallsInside("ch.qos.logback.core.AsyncAppenderBase", "isQueueBelowDiscardingThreshold");
        // The span export (--otlp-endpoint): SpanExport.ended offers one record and counts a drop.
        builder.allowBlockingCallsInside("io.rc10k.mashup.internal.observability.SpanExport", "ended");
    }
}
