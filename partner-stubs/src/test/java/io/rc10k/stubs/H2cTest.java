package io.rc10k.stubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.client.transport.HttpClientTransportOverHTTP2;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** With {@code --h2c}, one port speaks HTTP/1.1 and cleartext HTTP/2 with prior knowledge. */
class H2cTest {
    @RegisterExtension
    static final PartnerStubsExtension stubs = new PartnerStubsExtension(
            StubOptions.builder().h2c(true).maxStallMillis(300).build());

    private static HttpClient h2;
    private static HttpClient h1;

    @BeforeAll
    static void startClients() throws Exception {
        h2 = new HttpClient(new HttpClientTransportOverHTTP2(new HTTP2Client()));
        h2.setMaxConnectionsPerDestination(1);
        h2.start();
        h1 = new HttpClient();
        h1.start();
    }

    @AfterAll
    static void stopClients() throws Exception {
        h2.stop();
        h1.stop();
    }

    @Test
    void samePortSpeaksBothProtocols() throws Exception {
        ContentResponse over2 = h2.GET(stubs.uri().resolve("/weather?city=Lima"));
        ContentResponse over1 = h1.GET(stubs.uri().resolve("/weather?city=Lima"));
        assertEquals(HttpVersion.HTTP_2, over2.getVersion());
        assertEquals(HttpVersion.HTTP_1_1, over1.getVersion());
        assertEquals(over1.getContentAsString(), over2.getContentAsString());
    }

    @Test
    void manyDelayedStreamsShareOneConnection() throws Exception {
        stubs.resetStats();
        int streams = 500;
        CountDownLatch done = new CountDownLatch(streams);
        ConcurrentLinkedQueue<Result> results = new ConcurrentLinkedQueue<>();
        for (int i = 0; i < streams; i++) {
            // Long enough that every stream is open before the first answer, however slowly they are sent.
            h2.newRequest(stubs.uri().resolve("/stub?delay=5000&id=" + i)).timeout(30, TimeUnit.SECONDS)
                    .send(r -> {
                        results.add(r);
                        done.countDown();
                    });
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (stubs.stats().inFlight() < streams) {
            assertTrue(System.nanoTime() < end, "not all streams open at once: " + stubs.stats());
            Thread.sleep(20);
        }
        assertTrue(done.await(30, TimeUnit.SECONDS), done.getCount() + " streams never ended");
        assertEquals(streams, results.stream().filter(r -> r.isSucceeded() && r.getResponse().getStatus() == 200)
                .count());
        StubStats stats = stubs.stats();
        assertEquals(streams, stats.inFlightPeak(), stats.toString());
        assertEquals(1, stats.connectionsPeak(), stats.toString());
    }

    @Test
    void closeIsRefusedOverHttp2() throws Exception {
        ContentResponse response = h2.GET(stubs.uri().resolve("/stub?close=true"));
        assertEquals(400, response.getStatus());
        assertTrue(response.getContentAsString().contains("\"parameter\":\"close\""), response.getContentAsString());
        assertEquals(200, h2.GET(stubs.uri().resolve("/stub")).getStatus(), "the connection carries on");
    }

    @Test
    void faultsResetTheStreamAndTheConnectionCarriesOn() throws Exception {
        h2.GET(stubs.uri().resolve("/stub"));
        stubs.resetStats();
        long connectionsBefore = stubs.stats().connections();
        for (String fault : new String[] {"reset", "close-mid-body&bytes=100000", "stall", "stall-after-headers"}) {
            ExecutionException failure = Assertions.assertThrows(ExecutionException.class,
                    () -> h2.newRequest(stubs.uri().resolve("/stub?fault=" + fault)).timeout(5, TimeUnit.SECONDS)
                            .send(), fault);
            String cause = String.valueOf(failure.getCause()).toLowerCase(Locale.ROOT);
            assertTrue(cause.contains("cancel_stream_error"), fault + ": " + failure.getCause());
            assertEquals(200, h2.GET(stubs.uri().resolve("/stub")).getStatus(), "after " + fault);
        }
        StubStats after = stubs.stats();
        assertEquals(connectionsBefore, after.connectionsPeak(), "a fault opened a connection: " + after);
        assertEquals(connectionsBefore, after.connections(), "a fault closed a connection: " + after);
    }

    @Test
    void aStreamItsClientResetsWhileTheStubWaitsIsCountedAbandonedAndEndsAtOnce() throws Exception {
        stubs.resetStats();
        Request request = h2.newRequest(stubs.uri().resolve("/stub?delay=60000"))
                .timeout(60, TimeUnit.SECONDS);
        CountDownLatch ended = new CountDownLatch(1);
        request.send(result -> ended.countDown());
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (stubs.stats().inFlight() < 1 && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertEquals(1, stubs.stats().inFlight(), "the stub holds the request: " + stubs.stats().toJson());
        request.abort(new IOException("the client gives up"));
        assertTrue(ended.await(30, TimeUnit.SECONDS));
        // The reset ends the stub's wait at once: well before the 60 s delay the test never waits for.
        while ((stubs.stats().inFlight() > 0 || stubs.stats().abandoned() < 1) && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertEquals(0, stubs.stats().inFlight(), stubs.stats().toJson());
        assertEquals(1, stubs.stats().abandoned(), stubs.stats().toJson());

        // A reset the stub acts out itself (fault=reset) is not the client's doing.
        stubs.resetStats();
        CountDownLatch faulted = new CountDownLatch(1);
        h2.newRequest(stubs.uri().resolve("/stub?fault=reset")).timeout(30, TimeUnit.SECONDS)
                .send(result -> faulted.countDown());
        assertTrue(faulted.await(30, TimeUnit.SECONDS));
        while ((stubs.stats().inFlight() > 0 || stubs.stats().served() < 1) && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertEquals(1, stubs.stats().served(), stubs.stats().toJson());
        assertEquals(0, stubs.stats().abandoned(), stubs.stats().toJson());
    }
}
