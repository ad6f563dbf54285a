package io.rc10k.broker.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.Call;
import io.rc10k.broker.Exchange;
import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import io.rc10k.broker.Protocol;
import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * BlockHound, as this module's tests run it, catches a blocking call on a broker loop, and on the thread that
 * parsed an h2c answer, and lets the same call through on a pool thread: the check every other test here
 * relies on.
 */
class EventThreadIntegrationTest {
    private static PartnerStubs stubs;
    private static QueuedThreadPool pool;
    private static BrokerClient broker;

    @BeforeAll
    static void start() throws Exception {
        stubs = PartnerStubs.start(StubOptions.builder().h2c(true).build());
        pool = new QueuedThreadPool(16, 2);
        pool.setName("blockhound-test");
        pool.start();
        broker = BrokerClient.builder().partner(Partner.builder("stub", stubs.uri().toString()).build())
                .partner(Partner.builder("h2c", stubs.uri().toString()).protocol(Protocol.H2C).build())
                .executor(pool).selectors(1).build();
        broker.start();
    }

    @AfterAll
    static void stop() throws Exception {
        broker.stop();
        pool.stop();
        stubs.close();
    }

    @Test
    void aSleepInAListenerOnABrokerLoopIsCaught() throws Exception {
        List<BlockingCalls.Seen> seen = onTheLoop(() -> sleep(1));
        assertEquals(1, seen.size(), seen.toString());
        assertTrue(seen.get(0).method().startsWith("java.lang.Thread.sleep"), seen.get(0).method());
        assertTrue(Arrays.stream(seen.get(0).stack().getStackTrace())
                .anyMatch(f -> f.getClassName().startsWith(EventThreadIntegrationTest.class.getName())),
                "the stack leads to the listener");
    }

    @Test
    void aFileWriteInAListenerOnABrokerLoopIsCaught(@TempDir Path dir) throws Exception {
        List<BlockingCalls.Seen> seen = onTheLoop(() -> {
            try (FileOutputStream out = new FileOutputStream(dir.resolve("audit.log").toFile())) {
                out.write(new byte[] {'x', '\n'});
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        assertTrue(seen.stream().anyMatch(s -> s.method().startsWith("java.io.FileOutputStream#write")),
                seen.toString());
    }

    @Test
    void aSleepInAListenerOfAnH2cAnswerIsCaught() throws Exception {
        // h2c answers complete on the thread that parsed their frames, an event thread as a loop is: were
        // they handed to a pool thread instead, the sleep would be allowed and nothing seen.
        CountDownLatch listened = new CountDownLatch(1);
        Exchange exchange = broker.send(Call.to("h2c").path("stub?delay=50").listener(new ExchangeListener() {
            @Override
            public void onComplete(Exchange exchange, Outcome outcome) {
                sleep(1);
                listened.countDown();
            }
        }).build());
        assertEquals(Outcome.Kind.OK, exchange.outcome().toCompletableFuture().get(30, TimeUnit.SECONDS).kind());
        assertTrue(listened.await(30, TimeUnit.SECONDS));
        List<BlockingCalls.Seen> seen = BlockingCalls.take();
        assertEquals(1, seen.size(), seen.toString());
        assertTrue(seen.get(0).method().startsWith("java.lang.Thread.sleep"), seen.get(0).method());
    }

    @Test
    void theSameSleepOnAPoolThreadIsAllowed() throws Exception {
        CountDownLatch slept = new CountDownLatch(1);
        pool.execute(() -> {
            sleep(1);
            slept.countDown();
        });
        assertTrue(slept.await(30, TimeUnit.SECONDS));
        assertEquals(List.of(), BlockingCalls.take());
    }

    @Test
    void aListenerThatHandsItsSleepToThePoolIsNotCaught() throws Exception {
        CountDownLatch slept = new CountDownLatch(1);
        List<BlockingCalls.Seen> seen = onTheLoop(() -> pool.execute(() -> {
            sleep(1);
            slept.countDown();
        }));
        assertTrue(slept.await(30, TimeUnit.SECONDS));
        assertEquals(List.of(), seen);
        assertEquals(List.of(), BlockingCalls.take());
    }

    /** Runs {@code work} in a listener's onComplete on the loop that read the answer; what was caught. */
    private static List<BlockingCalls.Seen> onTheLoop(Runnable work) throws Exception {
        CompletableFuture<Boolean> ranOnLoop = new CompletableFuture<>();
        // The stub answers after 50 ms: long after the request was sent, so the answer's events run on the loop.
        Exchange exchange = broker.send(Call.to("stub").path("stub?delay=50").listener(new ExchangeListener() {
            @Override
            public void onComplete(Exchange exchange, Outcome outcome) {
                boolean onLoop = broker.isLoopThread();
                try {
                    work.run();
                } finally {
                    ranOnLoop.complete(onLoop);
                }
            }
        }).build());
        assertEquals(Outcome.Kind.OK, exchange.outcome().toCompletableFuture().get(30, TimeUnit.SECONDS).kind());
        assertTrue(ranOnLoop.get(30, TimeUnit.SECONDS), "the listener ran on a broker loop");
        return BlockingCalls.take();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
