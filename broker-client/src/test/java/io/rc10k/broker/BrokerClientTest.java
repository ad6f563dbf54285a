package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.PartnerStubsExtension;
import io.rc10k.stubs.StubOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.eclipse.jetty.client.AbstractConnectorHttpClientTransport;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** BrokerClient against real partner-stubs over loopback: sharing, reuse, per-partner bounds, h2c. */
class BrokerClientTest {
    @RegisterExtension
    final PartnerStubsExtension stubs = new PartnerStubsExtension(StubOptions.builder().h2c(true).build());

    private BrokerClient start(BrokerClient.Builder builder) throws Exception {
        BrokerClient broker = builder.build();
        broker.start();
        return broker;
    }

    private static Set<String> threadNames() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).collect(Collectors.toSet());
    }

    private static Outcome await(Exchange exchange) throws Exception {
        return exchange.outcome().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void injectedPoolRunsSelectorsAndCallbacksAndNoOtherPoolStarts() throws Exception {
        QueuedThreadPool pool = new QueuedThreadPool(32, 4);
        pool.setName("shared");
        ScheduledExecutorScheduler scheduler = new ScheduledExecutorScheduler("shared-scheduler", false);
        pool.start();
        scheduler.start();
        Set<String> before = threadNames();
        BrokerClient.Builder builder = BrokerClient.builder()
                .partner(Partner.builder("stub", stubs.uri().toString()).build())
                .partner(Partner.builder("h2c", stubs.uri().toString()).protocol(Protocol.H2C).build())
                .executor(pool).scheduler(scheduler).byteBufferPool(new ArrayByteBufferPool()).selectors(1);
        // One loop (HTTP/1.1 and h2c partners) and one selector of the client for https partners; one more
        // when h2c goes over Jetty's client instead.
        assertEquals(2, builder.build().ioThreads());
        assertEquals(3, BrokerClient.builder().partner(Partner.builder("h2c", stubs.uri().toString())
                .protocol(Protocol.H2C).build()).executor(pool).selectors(1).jettyForH2c().build().ioThreads());
        BrokerClient broker = start(builder);
        try {
            Set<String> callbackThreads = ConcurrentHashMap.newKeySet();
            ExchangeListener recorder = new ExchangeListener() {
                @Override
                public void onHeadersCompleted(Exchange exchange, int status) {
                    callbackThreads.add(Thread.currentThread().getName());
                }

                @Override
                public void onComplete(Exchange exchange, Outcome outcome) {
                    callbackThreads.add(Thread.currentThread().getName());
                }
            };
            List<CompletableFuture<Outcome>> all = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                all.add(broker.send(Call.to(i % 2 == 0 ? "stub" : "h2c").path("stub?delay=10").listener(recorder)
                        .build()).outcome()
                        .toCompletableFuture());
            }
            for (CompletableFuture<Outcome> f : all) {
                assertEquals(Outcome.Kind.OK, f.get(30, TimeUnit.SECONDS).kind());
            }

            assertSame(pool, broker.executor());
            ClientConnector connector = ((AbstractConnectorHttpClientTransport) broker.httpClient().getTransport()).getClientConnector();
            assertSame(pool, connector.getExecutor(), "the selectors run on the injected pool");
            assertSame(scheduler, connector.getScheduler());
            assertTrue(callbackThreads.stream().allMatch(n -> n.startsWith("shared")), callbackThreads.toString());
            Set<String> started = threadNames();
            started.removeAll(before);
            assertTrue(started.stream().allMatch(n -> n.startsWith("shared") || n.startsWith("stub")),
                    "threads started outside the shared pool: " + started);
        } finally {
            broker.stop();
            scheduler.stop();
            pool.stop();
        }
    }

    @Test
    void withoutInjectionTheClientRunsOnNamedThreadsOfItsOwnAndStopsThem() throws Exception {
        BrokerClient broker = start(BrokerClient.builder().partner(Partner.builder("stub", stubs.uri().toString())
                .build()));
        assertEquals(Outcome.Kind.OK, await(broker.send(Call.to("stub").path("stub").build())).kind());
        assertTrue(threadNames().stream().anyMatch(n -> n.startsWith("broker")));
        broker.stop();
        assertTrue(((QueuedThreadPool) broker.executor()).isStopped());
    }

    @Test
    void sequentialExchangesReuseOneConnection() throws Exception {
        BrokerClient broker = start(BrokerClient.builder().partner(Partner.builder("stub", stubs.uri().toString())
                .build()));
        try {
            stubs.resetStats();
            for (int i = 0; i < 1_000; i++) {
                assertEquals(Outcome.Kind.OK, await(broker.send(Call.to("stub").path("stub?id=" + i).build())).kind());
            }
            assertEquals(1, stubs.stats().connectionsPeak(), stubs.stats().toString());
            PartnerStats stats = broker.stats("stub");
            assertEquals(1, stats.connectionsOpen());
            assertEquals(1, stats.connectionsIdle());
            assertEquals(1_000L, stats.outcomes().get(Outcome.Kind.OK));
        } finally {
            broker.stop();
        }
    }

    @Test
    void tenThousandConcurrentExchangesNeverOpenMoreThanMaxConnections() throws Exception {
        BrokerClient broker = start(BrokerClient.builder().partner(Partner.builder("stub", stubs.uri().toString())
                .maxConnections(100).maxQueued(10_000).callTimeout(Duration.ofSeconds(60)).build()));
        try {
            stubs.resetStats();
            List<CompletableFuture<Outcome>> all = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                all.add(broker.send(Call.to("stub").path("stub?delay=20").build()).outcome().toCompletableFuture());
            }
            CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).get(120, TimeUnit.SECONDS);
            assertEquals(10_000, all.stream().filter(f -> f.join().kind() == Outcome.Kind.OK).count());
            assertTrue(stubs.stats().connectionsPeak() <= 100, stubs.stats().toString());
            assertEquals(0, broker.exchangesInFlight());
        } finally {
            broker.stop();
        }
    }

    @Test
    void beyondMaxQueuedExchangesAreRejectedAtOnce() throws Exception {
        BrokerClient broker = start(BrokerClient.builder().partner(Partner.builder("stub", stubs.uri().toString())
                .maxConnections(5).maxQueued(10).build()));
        try {
            List<Exchange> all = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                all.add(broker.send(Call.to("stub").path("stub?delay=500").build()));
            }
            // The last ten ended before this line: admission refuses them synchronously.
            List<Exchange> rejected = all.subList(15, 25);
            assertTrue(rejected.stream().allMatch(Exchange::isDone));
            for (Exchange e : rejected) {
                assertEquals(Outcome.Kind.REJECTED, await(e).kind());
            }
            for (Exchange e : all.subList(0, 15)) {
                assertEquals(Outcome.Kind.OK, await(e).kind());
            }
            assertEquals(10L, broker.stats("stub").outcomes().get(Outcome.Kind.REJECTED));
        } finally {
            broker.stop();
        }
    }

    @Test
    void h2cCarriesFiveThousandConcurrentExchangesOnAtMost64Connections() throws Exception {
        BrokerClient broker = start(BrokerClient.builder().partner(Partner.builder("stub", stubs.uri().toString())
                .protocol(Protocol.H2C).maxConnections(64).maxQueued(5_000)
                .callTimeout(Duration.ofSeconds(60)).build()));
        try {
            stubs.resetStats();
            List<CompletableFuture<Outcome>> all = new ArrayList<>();
            for (int i = 0; i < 5_000; i++) {
                all.add(broker.send(Call.to("stub").path("stub?delay=1000").build()).outcome().toCompletableFuture());
            }
            CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).get(120, TimeUnit.SECONDS);
            assertEquals(5_000, all.stream().filter(f -> f.join().kind() == Outcome.Kind.OK).count());
            assertTrue(stubs.stats().connectionsPeak() <= 64, stubs.stats().toString());
            int open = broker.stats("stub").connectionsOpen();
            assertTrue(open >= 1 && open <= 64, "h2c connections open: " + open);
        } finally {
            broker.stop();
        }
    }

    @Test
    void partnersOnOneHostAndPortKeepTheirOwnPools() throws Exception {
        BrokerClient broker = start(BrokerClient.builder()
                .partner(Partner.builder("a", stubs.uri().toString()).build())
                .partner(Partner.builder("b", stubs.uri().toString()).maxConnections(1).maxQueued(0).build()));
        try {
            Exchange a1 = broker.send(Call.to("a").path("stub?delay=300").build());
            Exchange b1 = broker.send(Call.to("b").path("stub?delay=300").build());
            Exchange b2 = broker.send(Call.to("b").path("stub?delay=300").build());
            assertEquals(Outcome.Kind.REJECTED, await(b2).kind(), "b is full with one exchange");
            assertEquals(Outcome.Kind.OK, await(a1).kind());
            assertEquals(Outcome.Kind.OK, await(b1).kind());
            assertEquals(1, broker.stats("b").connectionsOpen());
        } finally {
            broker.stop();
        }
    }

    @Test
    void callersCannotSetHeadersThatRedirectOrReframeTheRequest() throws Exception {
        BrokerClient broker = start(BrokerClient.builder().partner(Partner.builder("p", stubs.uri().toString())
                .build()));
        try {
            for (String name : List.of("Host", "Transfer-Encoding", "Connection", "Upgrade", "Content-Length",
                    "Proxy-Authorization", "Expect")) {
                HttpFields headers = HttpFields.build().add(name, "x");
                assertThrows(IllegalArgumentException.class, () -> Call.to("p").path("stub").headers(headers), name);
                assertThrows(IllegalArgumentException.class, () -> Call.to("p").path("stub").header(name, "x"), name);
            }
            assertThrows(IllegalArgumentException.class, () -> Call.to("p").method(null));
            assertEquals(0, broker.exchangesInFlight(), "refused calls hold no admission");
            assertEquals(0, broker.stats("p").inFlight());
        } finally {
            broker.stop();
        }
    }

    @Test
    void stoppingTheClientEndsEveryExchangeInFlightCancelled() throws Exception {
        BrokerClient broker = start(BrokerClient.builder()
                .partner(Partner.builder("h1", stubs.uri().toString()).maxConnections(2).build())
                .partner(Partner.builder("h2c", stubs.uri().toString()).protocol(Protocol.H2C).build()));
        List<Exchange> all = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            all.add(broker.send(Call.to(i % 2 == 0 ? "h1" : "h2c").method(i % 3 == 0 ? "POST" : "GET")
                    .path("stub?delay=5000").build()));
        }
        CompletableFuture<FanOutResult> fanOut = broker.fanOut(Duration.ofSeconds(30))
                .add(Call.to("h1").path("stub?delay=5000").build())
                .start().toCompletableFuture();
        ExchangeTest.awaitCondition(() -> stubs.stats().inFlight() >= 6, "requests never reached the partner");
        broker.stop();
        for (Exchange e : all) {
            Outcome outcome = await(e);
            assertEquals(Outcome.Kind.CANCELLED, outcome.kind(), outcome.toString());
            assertEquals(1, outcome.attempts(), "no retry on a stopping client: " + outcome);
        }
        assertEquals(Outcome.Kind.CANCELLED, fanOut.get(10, TimeUnit.SECONDS).outcomes().get(0).kind());
        assertEquals(0, broker.exchangesInFlight());
        assertThrows(IllegalStateException.class, () -> broker.send(Call.to("h1").path("stub").build()));
    }

    @Test
    void headAndNotModifiedDeclareALengthButNeedNoRoomForIt() throws Exception {
        BrokerClient broker = start(BrokerClient.builder().partner(Partner.builder("p", stubs.uri().toString())
                .maxResponseBytes(1000).build()));
        try {
            Outcome head = await(broker.send(Call.to("p").method("HEAD").path("stub?bytes=2000").build()));
            assertEquals(Outcome.Kind.OK, head.kind(), head.toString());
            Outcome get = await(broker.send(Call.to("p").method("get").path("stub?bytes=2000").build()));
            assertEquals(Outcome.Kind.TOO_LARGE, get.kind());
        } finally {
            broker.stop();
        }
    }

    @Test
    void aCookieOneCallReceivesIsNeverSentOnAnotherCall() throws Exception {
        BrokerClient broker = start(BrokerClient.builder().partner(Partner.builder("p", stubs.uri().toString())
                .build()));
        try {
            Outcome login = await(broker.send(Call.to("p").path("stub?cookie=SESSION=userA-secret").build()));
            assertEquals(Outcome.Kind.OK, login.kind());
            Outcome next = await(broker.send(Call.to("p").path("echo").build()));
            assertTrue(!next.bodyAsString().contains("SESSION"), "a stored cookie rode along: " + next.bodyAsString());
        } finally {
            broker.stop();
        }
    }

    @Test
    void unknownPartnerIsNamedWithTheKnownOnes() throws Exception {
        BrokerClient broker = start(BrokerClient.builder().partner(Partner.builder("weather", stubs.uri().toString())
                .build()));
        try {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> broker.send(Call.to("hotel").path("x").build()));
            assertEquals("unknown partner \"hotel\" (known: weather)", e.getMessage());
        } finally {
            broker.stop();
        }
    }
}
