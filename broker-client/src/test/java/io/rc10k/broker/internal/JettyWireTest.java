package io.rc10k.broker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.rc10k.broker.fuzz.RawPartner;
import io.rc10k.broker.fuzz.ResponsePlan;
import io.rc10k.stubs.HostilePartner;
import io.rc10k.stubs.Misbehaviour;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.Connection;
import org.eclipse.jetty.client.DuplexConnectionPool;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpVersion;
import org.junit.jupiter.api.Test;

/** {@link JettyWire} over HTTP/1.1, against a partner that sends exactly the bytes a case needs. */
class JettyWireTest {
    /**
     * Jetty tells a failure inside an interim answer twice, the first time before it closes the connection: the
     * call must end once, with its connection out of the pool already (else a retry made at that moment finds it
     * there, and Jetty opens a connection nobody asked for as it removes it).
     */
    @Test
    void aFailureInsideAnInterimAnswerEndsTheCallOnceWithItsConnectionGone() throws Exception {
        byte[] cut = "HTTP/1.1 102 Processing\r\nX-Progress: 1".getBytes(StandardCharsets.ISO_8859_1);
        HttpClient http = new HttpClient();
        try (RawPartner partner = RawPartner.start()) {
            partner.register(1, ResponsePlan.whole("102 cut by a close", cut, ResponsePlan.Ending.CLOSE));
            http.start();
            List<String> ends = new CopyOnWriteArrayList<>();
            CompletableFuture<Throwable> ended = new CompletableFuture<>();
            Wire.Call call = new JettyWire(http, HttpVersion.HTTP_1_1).newCall("raw", "GET",
                    URI.create("http://127.0.0.1:" + partner.port() + "/fuzz/1"), null, null,
                    TimeUnit.SECONDS.toNanos(30), new Ends(http, ends, ended));
            call.start();
            assertNotNull(ended.get(30, TimeUnit.SECONDS), "the call ended without a failure: " + ends);
            http.stop(); // every exchange terminated: no end can be told after this
            assertEquals(1, ends.size(), "the call ended " + ends.size() + " times: " + ends);
            assertFalse(ends.get(0).contains("pooled"), "the call ended before its connection was closed: " + ends);
            assertEquals(1, partner.connectionsAccepted(), "connections the partner accepted");
        } finally {
            http.stop();
        }
    }

    /**
     * An answer that fails on the thread that reads it while the thread that wrote the request is still finishing
     * it: Jetty lets the writer end the exchange, and the reader closes the connection. The call must end with its
     * connection out of the pool all the same — else the retry or next call it starts is queued as the reader
     * removes it, and Jetty opens a connection nobody asked for. The interleaving is forced: the writer is held
     * where it tells the request sent until the reader has begun removing the connection, which it is held in
     * until the writer is done.
     */
    @Test
    void anAnswerThatFailsWhileItsRequestIsStillBeingFinishedEndsTheCallWithItsConnectionGone() throws Exception {
        CountDownLatch removing = new CountDownLatch(1);
        CountDownLatch writerDone = new CountDownLatch(1);
        HttpClientTransportOverHTTP transport = new HttpClientTransportOverHTTP();
        transport.setConnectionPoolFactory(destination -> new DuplexConnectionPool(destination, 8) {
            @Override
            public boolean remove(Connection connection) {
                if (removing.getCount() > 0) {
                    removing.countDown();
                    await(writerDone);
                }
                return super.remove(connection);
            }
        });
        HttpClient http = new HttpClient(transport);
        try (HostilePartner partner = HostilePartner.builder().maxStallMillis(30_000).build().start()) {
            http.start();
            JettyWire wire = new JettyWire(http, HttpVersion.HTTP_1_1);
            // A kept connection first: the failing call's request is then written by the thread that starts it.
            CompletableFuture<Throwable> warm = new CompletableFuture<>();
            wire.newCall("hostile", "GET", partner.uri().resolve("/ok"), null, null, TimeUnit.SECONDS.toNanos(30),
                    new Ends(http, null, warm)).start();
            assertNull(warm.get(30, TimeUnit.SECONDS), "the first call failed");

            List<String> ends = new CopyOnWriteArrayList<>();
            CompletableFuture<Throwable> ended = new CompletableFuture<>();
            Ends events = new Ends(http, ends, ended) {
                @Override
                public void onSent() {
                    await(removing);
                }
            };
            wire.newCall("hostile", "GET", partner.uri(Misbehaviour.CONTENT_LENGTH_TWICE), null, null,
                    TimeUnit.SECONDS.toNanos(30), events).start();
            writerDone.countDown();
            assertNotNull(ended.get(30, TimeUnit.SECONDS), "the call ended without a failure: " + ends);
            assertEquals(1, ends.size(), "the call ended " + ends.size() + " times: " + ends);
            assertFalse(ends.get(0).contains("pooled"), "the call ended before its connection left the pool: " + ends);
            assertEquals(1, partner.connectionsAccepted(), "connections the partner accepted");
        } finally {
            writerDone.countDown();
            http.stop();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the other thread never came");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Records each end of a call, and whether its connection was still pooled then. */
    private static class Ends implements Wire.Events {
        private final HttpClient http;
        private final List<String> ends;
        private final CompletableFuture<Throwable> ended;

        Ends(HttpClient http, List<String> ends, CompletableFuture<Throwable> ended) {
            this.http = http;
            this.ends = ends;
            this.ended = ended;
        }

        @Override
        public void onBegin() {
        }

        @Override
        public void onSent() {
        }

        @Override
        public void onHeaders(int status, HttpFields headers) {
        }

        @Override
        public void onContent(ByteBuffer content) {
        }

        @Override
        public void onComplete(int status, HttpFields headers, Throwable failure, boolean kept) {
            if (ends != null) {
                boolean pooled = http.getDestinations().stream().anyMatch(d -> !d.getConnectionPool().isEmpty());
                ends.add("failure " + failure + (pooled ? ", its connection still pooled" : ""));
            }
            ended.complete(failure);
        }
    }
}
