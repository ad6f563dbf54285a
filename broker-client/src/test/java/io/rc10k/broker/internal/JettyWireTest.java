package io.rc10k.broker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.rc10k.broker.fuzz.RawPartner;
import io.rc10k.broker.fuzz.ResponsePlan;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.HttpClient;
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
                    TimeUnit.SECONDS.toNanos(30), new Wire.Events() {
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
                            boolean pooled = http.getDestinations().stream()
                                    .anyMatch(d -> !d.getConnectionPool().isEmpty());
                            ends.add("failure " + failure + (pooled ? ", its connection still pooled" : ""));
                            ended.complete(failure);
                        }
                    });
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
}
