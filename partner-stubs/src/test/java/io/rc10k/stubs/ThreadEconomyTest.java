package io.rc10k.stubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;

/**
 * Delayed requests hold no thread: far more requests wait at once than the pool has threads.
 * The 10,000-connection figure is measured out of process (docs/results/partner-stubs.md).
 */
class ThreadEconomyTest {
    @Test
    void twoThousandDelayedRequestsOnSeparateConnectionsWaitOnEightThreads() throws Exception {
        int requests = 2_000;
        try (PartnerStubs stubs = PartnerStubs.start(StubOptions.builder().maxThreads(8).build())) {
            HttpClient client = new HttpClient();
            client.setMaxConnectionsPerDestination(requests);
            client.setMaxRequestsQueuedPerDestination(requests);
            client.start();
            try {
                CountDownLatch done = new CountDownLatch(requests);
                AtomicInteger ok = new AtomicInteger();
                for (int i = 0; i < requests; i++) {
                    // Long enough that every request is waiting before the first answer, however slowly they are sent.
                    client.newRequest(stubs.uri().resolve("/stub?delay=15000")).timeout(60, TimeUnit.SECONDS)
                            .send(r -> {
                                if (r.isSucceeded() && r.getResponse().getStatus() == 200) {
                                    ok.incrementAndGet();
                                }
                                done.countDown();
                            });
                }
                // The pool cannot grow past its maximum; what the test proves is that far more requests
                // than that wait at once (the in-flight peak below).
                QueuedThreadPool pool = (QueuedThreadPool) stubs.server().getThreadPool();
                assertEquals(8, pool.getMaxThreads(), "the stub's pool is capped at 8 threads");
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
                while (stubs.stats().inFlight() < requests) {
                    assertTrue(System.nanoTime() < end, "not all requests waiting at once: " + stubs.stats());
                    Thread.sleep(20);
                }
                assertTrue(done.await(60, TimeUnit.SECONDS), "not every request ended");
                assertEquals(requests, ok.get());
                StubStats stats = stubs.stats();
                assertEquals(requests, stats.inFlightPeak(), "all requests were waiting at once: " + stats);
                assertEquals(requests, stats.connectionsPeak(), stats.toString());
            } finally {
                client.stop();
            }
        }
    }
}
