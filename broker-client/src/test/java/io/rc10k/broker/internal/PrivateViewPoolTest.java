package io.rc10k.broker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.Call;
import io.rc10k.broker.CircuitBreakerSettings;
import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import io.rc10k.stubs.HostilePartner;
import io.rc10k.stubs.Misbehaviour;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.eclipse.jetty.util.BufferUtil;
import org.junit.jupiter.api.Test;

/** {@link PrivateViewPool} as the broker's Jetty clients use it, against a partner whose answer breaks mid-body. */
class PrivateViewPoolTest {
    /**
     * A chunk size that is not hex, read with the head: Jetty's client fails the call while it notifies the head,
     * after its reading gave the network buffer back, and then empties the buffer it began with. Every buffer the
     * client gave back must stay as it was given back (here: marked, as if its next holder had filled it); fails
     * without the views: the late emptying reaches the pooled buffer itself.
     */
    @Test
    void aBufferJettyGaveBackIsNotChangedByTheConnectionThatHeldIt() throws Exception {
        MarkingPool pool = new MarkingPool();
        try (HostilePartner hostile = HostilePartner.builder().build().start()) {
            BrokerClient broker = BrokerClient.builder().byteBufferPool(pool).jettyForHttp1()
                    .partner(Partner.builder("hostile", hostile.uri().toString())
                            .circuitBreaker(CircuitBreakerSettings.DISABLED).build())
                    .build();
            broker.start();
            try {
                Outcome outcome = broker.fanOut(Duration.ofSeconds(30))
                        .add(Call.to("hostile").path(Misbehaviour.CHUNK_SIZE_INVALID.token()).build()).start()
                        .toCompletableFuture().get(60, TimeUnit.SECONDS).outcomes().get(0);
                // Jetty's client calls a broken chunk an early EOF: a reset, retried once (HostileMatrixTest).
                assertEquals(Outcome.Kind.RESET, outcome.kind(), "the call: " + outcome);
            } finally {
                broker.stop();
            }
        }
        assertTrue(pool.released.size() > 0, "no buffer was given back: the case did not run");
        List<String> changed = pool.released.stream().filter(MarkingPool::changed).map(BufferUtil::toDetailString)
                .toList();
        assertEquals(List.of(), changed, "buffers changed after Jetty's client gave them back, of "
                + pool.released.size());
    }

    /**
     * Never reuses a buffer: marks each one as it is given back (position 1, limit its capacity) and keeps it, so
     * that a change made after that shows.
     */
    private static final class MarkingPool extends ByteBufferPool.NonPooling {
        final List<ByteBuffer> released = new CopyOnWriteArrayList<>();

        @Override
        public RetainableByteBuffer.Mutable acquire(int size, boolean direct) {
            ByteBuffer bytes = BufferUtil.allocate(size, direct);
            return new RetainableByteBuffer.FixedCapacity(bytes) {
                @Override
                public boolean release() {
                    boolean last = super.release();
                    if (last) {
                        bytes.limit(bytes.capacity()).position(1);
                        released.add(bytes);
                    }
                    return last;
                }
            };
        }

        static boolean changed(ByteBuffer given) {
            return given.position() != 1 || given.limit() != given.capacity();
        }
    }
}
