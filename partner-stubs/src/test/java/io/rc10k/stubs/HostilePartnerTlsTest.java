package io.rc10k.stubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The hostile partner behind its TLS front ({@link HostilePartner.Builder#tls}): every misbehaviour
 * reaches a TLS client with the bytes and the end a cleartext client sees ({@link HostilePartnerTest}'s
 * checks: a close arrives as {@code close_notify} and EOF, a reset as a reset), one TLS connection is one
 * connection of the partner's, and the front's threads end with it.
 */
class HostilePartnerTlsTest {
    private static StubCertificate certificate;
    private static SSLSocketFactory trusting;
    private static HostilePartner quick;
    private static HostilePartner patient;

    @BeforeAll
    static void start() {
        certificate = StubCertificate.generate("localhost", "127.0.0.1");
        trusting = certificate.clientContext().getSocketFactory();
        quick = HostilePartner.builder().maxStallMillis(HostilePartnerTest.SHORT_CAP_MILLIS).tls(certificate).build()
                .start();
        patient = HostilePartner.builder().tls(certificate).build().start();
    }

    @AfterAll
    static void stop() {
        quick.close();
        patient.close();
    }

    @ParameterizedTest
    @EnumSource(Misbehaviour.class)
    void everyMisbehaviourReachesATlsClientAsItReachesACleartextOne(Misbehaviour m) throws Exception {
        assertEquals("https", patient.uri().getScheme());
        HostilePartnerTest.assertOnTheWire(m, quick, patient, trusting);
    }

    @Test
    void oneTlsConnectionIsOneConnectionOfThePartnersAndSpeaksHttp11ByAlpn() throws Exception {
        long accepted = patient.connectionsAccepted();
        try (SSLSocket socket = connect(patient)) {
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setApplicationProtocols(new String[] {"h2", "http/1.1"});
            socket.setSSLParameters(parameters);
            for (int i = 0; i < 2; i++) {
                HostilePartnerTest.send(socket, "/ok", false);
                assertEquals(HostilePartnerTest.OK, HostilePartnerTest.read(socket, HostilePartnerTest.OK.length()));
            }
            assertEquals("http/1.1", socket.getApplicationProtocol());
            assertTrue(socket.getSession().getProtocol().startsWith("TLSv1."), socket.getSession().getProtocol());
        }
        assertEquals(accepted + 1, patient.connectionsAccepted());
    }

    @Test
    void closingThePartnerEndsEveryRelayedConnectionAndEveryThreadOfTheFront() throws Exception {
        String halfHead = "HTTP/1.1 200 OK\r\nContent-Type: appli";
        List<Socket> sockets = new ArrayList<>();
        HostilePartner partner = HostilePartner.builder().tls(certificate).build().start();
        String prefix = "hostile-tls-" + partner.port() + "-";
        try {
            for (int i = 0; i < 3; i++) {
                Socket socket = connect(partner);
                sockets.add(socket);
                HostilePartnerTest.send(socket, "/stall-mid-head", false);
                assertEquals(halfHead, HostilePartnerTest.read(socket, halfHead.length()));
            }
            assertEquals(1 + 2 * 3, threads(prefix), "an acceptor and two threads per connection");
            partner.close();
            for (Socket socket : sockets) {
                // A reset: the front closes abruptly, with no close_notify.
                assertTrue(endsWithoutMore(socket), "the connection was left open");
            }
            assertEquals(0, threads(prefix), "threads named " + prefix + "* after close()");
            assertEquals(0, partner.connectionsOpen());
        } finally {
            partner.close();
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }

    private static boolean endsWithoutMore(Socket socket) {
        try {
            return socket.getInputStream().read() < 0;
        } catch (IOException e) {
            return String.valueOf(e.getMessage()).contains("reset") || String.valueOf(e.getMessage()).contains("closed");
        }
    }

    private static long threads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix)).count();
    }

    private static SSLSocket connect(HostilePartner partner) throws IOException {
        SSLSocket socket = (SSLSocket) trusting.createSocket(partner.host(), partner.port());
        socket.setSoTimeout(HostilePartnerTest.SAFETY_NET_MILLIS);
        return socket;
    }
}
