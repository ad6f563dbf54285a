package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rc10k.broker.Partner;
import io.rc10k.mashup.internal.wiring.ServerArguments;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.util.Collections;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Where the admin port listens: on loopback unless {@code --admin-host} says otherwise, whatever
 * {@code --host} says — so that publishing the mashups does not publish {@code /metrics}, the health
 * views and the live view with them. Shown with real sockets, to this machine's own non-loopback address.
 */
class AdminConnectorTest {
    /** No call is ever made: the tests ask the server about itself only. */
    static Definitions definitions() throws DefinitionException {
        return Definitions.builder()
                .partner(Partner.builder("p", "http://127.0.0.1:9").build())
                .mashup(MashupDefinition.builder("m").call("c", "p", "/").build())
                .build();
    }

    /** An IPv4 address of an interface that is up and not loopback, if this machine has one. */
    private static InetAddress externalAddress() throws SocketException {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nic.isUp() || nic.isLoopback()) {
                continue;
            }
            Optional<InetAddress> address = nic.inetAddresses().filter(a -> a instanceof Inet4Address)
                    .filter(a -> !a.isLinkLocalAddress()).findFirst();
            if (address.isPresent()) {
                return address.get();
            }
        }
        Assumptions.abort("this machine has no address but loopback: nothing to show that the admin port is not on");
        throw new AssertionError("unreachable");
    }

    private static int adminPort(TestServer server) {
        return ((ServerConnector) server.server.getConnectors()[1]).getLocalPort();
    }

    private static int status(TestServer server, String host, int port, String path) throws Exception {
        return server.client.newRequest(URI.create("http://" + host + ":" + port + path))
                .timeout(30, TimeUnit.SECONDS).send().getStatus();
    }

    private static void assertRefused(InetAddress address, int port) {
        assertThrows(ConnectException.class, () -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(address, port), 10_000);
            }
        }, "nothing listens on " + address.getHostAddress() + ":" + port);
    }

    @Test
    void theAdminPortStaysOnLoopbackWhenTheMainPortServesEveryInterface() throws Exception {
        InetAddress external = externalAddress();
        try (TestServer server = TestServer.start(MashupOptions.builder().host("0.0.0.0").build(), definitions())) {
            int main = server.uri.getPort();
            int admin = adminPort(server);
            assertEquals("127.0.0.1", ((ServerConnector) server.server.getConnectors()[1]).getHost());

            assertEquals(404, status(server, external.getHostAddress(), main, "/mashup/nowhere"),
                    "the main port answers on " + external.getHostAddress());
            assertEquals(200, status(server, "127.0.0.1", admin, "/health/ready"), "the admin port answers on loopback");
            assertRefused(external, admin);
        }
    }

    @Test
    void adminHostMovesTheAdminPortAndOnlyIt() throws Exception {
        InetAddress external = externalAddress();
        MashupOptions options = ServerArguments.parse("--admin-host", external.getHostAddress()).options();
        assertEquals(MashupOptions.DEFAULT_HOST, options.host(), "--admin-host leaves --host alone");
        try (TestServer server = TestServer.start(options, definitions())) {
            int admin = adminPort(server);
            assertEquals(200, status(server, external.getHostAddress(), admin, "/health/ready"));
            assertRefused(InetAddress.getLoopbackAddress(), admin);
            assertRefused(external, server.uri.getPort());
        }
    }

    @Test
    void aBlankAdminHostIsACommandLineErrorNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ServerArguments.parse("--admin-host", " "));
        assertEquals("--admin-host: \" \" (accepted: an address to bind, e.g. 127.0.0.1 or 0.0.0.0)", e.getMessage());
    }

    @Test
    void theDefaultsPutBothPortsOnLoopback() {
        assertEquals("127.0.0.1", MashupOptions.defaults().host());
        assertEquals("127.0.0.1", MashupOptions.defaults().adminHost());
        assertEquals("0.0.0.0", MashupOptions.builder().host("0.0.0.0").adminHost("0.0.0.0").build().adminHost());
    }
}
