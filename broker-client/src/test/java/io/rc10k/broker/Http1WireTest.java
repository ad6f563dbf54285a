package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpFields;
import org.junit.jupiter.api.Test;

/**
 * What the broker's own HTTP/1.1 wire must do that Jetty's client did for it: keep connections alive and
 * within {@code maxConnections}, queue the calls beyond, drop a connection the partner closed while it was
 * idle, frame HEAD answers, and never let a header value start a header of its own.
 */
class Http1WireTest {
    private static Outcome await(Exchange exchange) throws Exception {
        return exchange.outcome().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void callsBeyondMaxConnectionsWaitForAConnectionAndConnectionsAreKeptAlive() throws Exception {
        try (PartnerStubs stubs = PartnerStubs.start()) {
            BrokerClient broker = BrokerClient.builder()
                    .partner(Partner.builder("p", stubs.uri().toString()).maxConnections(3).maxQueued(100).build())
                    .build();
            broker.start();
            try {
                List<Exchange> exchanges = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    exchanges.add(broker.send(Call.to("p").path("/stub?delay=20&id=" + i).build()));
                }
                for (int i = 0; i < exchanges.size(); i++) {
                    Outcome outcome = await(exchanges.get(i));
                    assertEquals(Outcome.Kind.OK, outcome.kind(), String.valueOf(outcome.failure()));
                    assertTrue(outcome.bodyAsString().contains("\"id\":\"" + i + "\""), "each call its own answer: "
                            + outcome.bodyAsString());
                }
                assertTrue(stubs.stats().connectionsPeak() <= 3, stubs.stats().toJson());
                PartnerStats stats = broker.stats("p");
                assertTrue(stats.connectionsOpen() <= 3 && stats.connectionsOpen() >= 1, stats.toString());
                assertEquals(0, stats.connectionsActive(), stats.toString());

                // Kept alive: ten more calls, one after another, open no connection.
                long peakBefore = stubs.stats().connectionsPeak();
                for (int i = 0; i < 10; i++) {
                    assertEquals(Outcome.Kind.OK, await(broker.send(Call.to("p").path("/stub").build())).kind());
                }
                assertEquals(stats.connectionsOpen(), broker.stats("p").connectionsOpen());
                assertEquals(peakBefore, stubs.stats().connectionsPeak());
            } finally {
                broker.stop();
            }
        }
    }

    @Test
    void aConnectionThePartnerClosedWhileIdleIsDroppedAndTheNextCallGoesOutOnANewOne() throws Exception {
        try (PartnerStubs stubs = PartnerStubs.start(StubOptions.builder().idleTimeoutMillis(300).build())) {
            BrokerClient broker = BrokerClient.builder()
                    .partner(Partner.builder("p", stubs.uri().toString()).retries(0).build())
                    .build();
            broker.start();
            try {
                assertEquals(Outcome.Kind.OK, await(broker.send(Call.to("p").path("/stub").build())).kind());
                ExchangeTest.awaitCondition(() -> broker.stats("p").connectionsOpen() == 0,
                        "the broker still counts the connection the partner closed: " + broker.stats("p"));
                Outcome again = await(broker.send(Call.to("p").path("/stub").build()));
                assertEquals(Outcome.Kind.OK, again.kind(), String.valueOf(again.failure()));
                assertEquals(1, again.attempts(), "no attempt was lost on the closed connection");
            } finally {
                broker.stop();
            }
        }
    }

    @Test
    void headAnswersCarryNoBodyAndTheConnectionStaysUsable() throws Exception {
        try (PartnerStubs stubs = PartnerStubs.start()) {
            BrokerClient broker = BrokerClient.builder()
                    .partner(Partner.builder("p", stubs.uri().toString()).maxConnections(1).build())
                    .build();
            broker.start();
            try {
                Outcome head = await(broker.send(Call.to("p").method("HEAD").path("/stub?bytes=5000").build()));
                assertEquals(Outcome.Kind.OK, head.kind(), String.valueOf(head.failure()));
                assertEquals(0, head.body().length);
                Outcome get = await(broker.send(Call.to("p").path("/stub?bytes=5000").build()));
                assertEquals(Outcome.Kind.OK, get.kind(), String.valueOf(get.failure()));
                assertEquals(5000, get.body().length);
                assertEquals(1, stubs.stats().connectionsPeak(), "both on the one connection");
            } finally {
                broker.stop();
            }
        }
    }

    @Test
    void aHeaderValueWithALineBreakCannotAddAHeader() throws Exception {
        try (PartnerStubs stubs = PartnerStubs.start()) {
            BrokerClient broker = BrokerClient.builder().partner(Partner.builder("p", stubs.uri().toString()).build())
                    .build();
            broker.start();
            try {
                HttpFields headers = HttpFields.build().add("X-Note", "a\r\nX-Injected: 1");
                Outcome outcome = await(broker.send(Call.to("p").path("/echo").headers(headers).build()));
                assertEquals(Outcome.Kind.OK, outcome.kind(), String.valueOf(outcome.failure()));
                String seen = outcome.bodyAsString();
                assertFalse(seen.contains("\"x-injected\""), seen);
                assertTrue(seen.contains("\"x-note\":\"a  X-Injected: 1\""), seen);
            } finally {
                broker.stop();
            }
        }
    }

    @Test
    void anInterimResponseIsSkippedAndABodyWithoutLengthEndsWhereThePartnerCloses() throws Exception {
        // A partner the stubs cannot play: it answers 100 first, then a body delimited by its close.
        try (ServerSocket partner = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<String> seen = CompletableFuture.supplyAsync(() -> {
                try (Socket socket = partner.accept()) {
                    String head = readHead(socket.getInputStream());
                    socket.getOutputStream().write(("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"
                            + "Content-Type: application/json\r\nConnection: close\r\n\r\n{\"a\":1}")
                            .getBytes(StandardCharsets.US_ASCII));
                    return head;
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            BrokerClient broker = BrokerClient.builder()
                    .partner(Partner.builder("raw", "http://127.0.0.1:" + partner.getLocalPort()).retries(0).build())
                    .build();
            broker.start();
            try {
                Outcome outcome = await(broker.send(Call.to("raw").path("/x?y=1").build()));
                assertEquals(Outcome.Kind.OK, outcome.kind(), String.valueOf(outcome.failure()));
                assertEquals(200, outcome.status());
                assertEquals("{\"a\":1}", outcome.bodyAsString());
                assertTrue(seen.get(30, TimeUnit.SECONDS).startsWith("GET /x?y=1 HTTP/1.1\r\nHost: 127.0.0.1:"),
                        seen.get());
                ExchangeTest.awaitCondition(() -> broker.stats("raw").connectionsOpen() == 0,
                        "the connection the partner closed is still counted: " + broker.stats("raw"));
            } finally {
                broker.stop();
            }
        }
    }

    /** Reads a request head, up to its blank line. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.write(b);
        }
        return head.toString(StandardCharsets.US_ASCII);
    }
}
