package io.rc10k.stubs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.HostilePartner;
import io.rc10k.stubs.StubCertificate;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.junit.jupiter.api.Test;

/** The relay's bound: past {@code maxConnections}, a new connection waits in the accept queue until one ends. */
class TlsRelayTest {
    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n"
            + "{\"ok\":true}";

    @Test
    void pastMaxConnectionsANewConnectionWaitsUntilOneEnds() throws Exception {
        StubCertificate certificate = StubCertificate.generate("127.0.0.1");
        SSLSocketFactory trusting = certificate.clientContext().getSocketFactory();
        try (HostilePartner backend = HostilePartner.builder().build().start();
                TlsRelay relay = TlsRelay.start("127.0.0.1", 0, 16, certificate, backend.port(), 2, 10_000)) {
            SSLSocket first = connect(trusting, relay);
            SSLSocket second = connect(trusting, relay);
            assertEquals(OK, ok(first));
            assertEquals(OK, ok(second));
            try (SSLSocket third = (SSLSocket) trusting.createSocket("127.0.0.1", relay.port())) {
                third.setSoTimeout(20_000);
                CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> {
                    try {
                        return ok(third);
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                });
                // The acceptor parks on the bound (it does not accept while two are relayed)...
                Thread acceptor = Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().equals("hostile-tls-" + relay.port() + "-accept")).findFirst()
                        .orElseThrow();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (acceptor.getState() != Thread.State.WAITING) {
                    assertTrue(System.nanoTime() < deadline, "the acceptor never waited: " + acceptor.getState());
                    Thread.sleep(1);
                }
                assertEquals(2, relay.connectionsAccepted());
                // ...until one of them ends: then the third is accepted and answered.
                first.close();
                assertEquals(OK, answer.get(20, TimeUnit.SECONDS));
                assertEquals(3, relay.connectionsAccepted());
            } finally {
                second.close();
            }
        }
    }

    private static SSLSocket connect(SSLSocketFactory tls, TlsRelay relay) throws IOException {
        SSLSocket socket = (SSLSocket) tls.createSocket("127.0.0.1", relay.port());
        socket.setSoTimeout(20_000);
        return socket;
    }

    private static String ok(Socket socket) throws IOException {
        socket.getOutputStream().write("GET /ok HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
        return new String(socket.getInputStream().readNBytes(OK.length()), StandardCharsets.ISO_8859_1);
    }
}
