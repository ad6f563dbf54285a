package io.rc10k.broker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rc10k.broker.Partner;
import io.rc10k.stubs.PartnerStubs;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;

/**
 * A loop whose task queue never runs dry — as when thousands of calls arrive at once, each queueing the
 * opening of its connection — must still serve the connections that are ready and check deadlines.
 */
class Http1LoopTest {
    @Test
    void readyConnectionsAreServedWhileTasksKeepComing() throws Exception {
        QueuedThreadPool pool = new QueuedThreadPool(16);
        pool.setName("http1-loop-test");
        pool.start();
        AtomicBoolean busy = new AtomicBoolean(true);
        try (PartnerStubs stubs = PartnerStubs.start()) {
            Partner partner = Partner.builder("p", stubs.uri().toString()).build();
            Http1Wire wire = new Http1Wire(List.of(partner), pool, 1);
            wire.start();
            try {
                Http1Loop loop = wire.loop(0);
                // A task that queues itself again from the loop's own thread: the queue is never empty.
                loop.execute(new Runnable() {
                    @Override
                    public void run() {
                        if (busy.get()) {
                            loop.execute(this);
                        }
                    }
                });
                CompletableFuture<Integer> status = new CompletableFuture<>();
                Wire.Call call = wire.newCall("p", "GET", URI.create(stubs.uri() + "/stub"), null, null,
                        TimeUnit.SECONDS.toNanos(20), new Wire.Events() {
                            @Override
                            public void onBegin() {
                            }

                            @Override
                            public void onSent() {
                            }

                            @Override
                            public void onHeaders(int code, HttpFields headers) {
                            }

                            @Override
                            public void onContent(ByteBuffer content) {
                            }

                            @Override
                            public void onComplete(int code, HttpFields headers, Throwable failure, boolean kept) {
                                if (failure != null) {
                                    status.completeExceptionally(failure);
                                } else {
                                    status.complete(code);
                                }
                            }
                        });
                call.start();
                assertEquals(200, status.get(30, TimeUnit.SECONDS));
            } finally {
                busy.set(false);
                wire.stop();
            }
        } finally {
            pool.stop();
        }
    }
}
