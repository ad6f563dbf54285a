package io.rc10k.stubs;

import java.net.URI;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Partner stubs running in this JVM, on ephemeral loopback ports: the fixture every test uses
 * instead of mock partners (as OkHttp's MockWebServer).
 *
 * <pre>{@code
 * try (PartnerStubs stubs = PartnerStubs.start()) {
 *     URI slow = stubs.uri().resolve("/stub?delay=500");
 *     ...
 *     // The stub counts a call out of flight once its answer is written: a client that has the answer
 *     // waits for the count (as the tests' Await.until does) rather than reading it at once.
 *     Await.until(() -> stubs.stats().inFlight() == 0, () -> "calls still held: " + stubs.stats());
 * }
 * }</pre>
 *
 * For JUnit 5 tests, {@link PartnerStubsExtension} starts and stops one around a class or a test.
 */
public final class PartnerStubs implements AutoCloseable {
    private final Server server;

    private PartnerStubs(Server server) {
        this.server = server;
    }

    /** One HTTP/1.1 port on 127.0.0.1, chosen by the OS. */
    public static PartnerStubs start() {
        return start(StubOptions.builder().build());
    }

    public static PartnerStubs start(StubOptions options) {
        Server server = StubServer.createServer(options);
        try {
            server.start();
        } catch (Exception e) {
            try {
                server.stop();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new IllegalStateException("partner stubs failed to start with " + options, e);
        }
        return new PartnerStubs(server);
    }

    /** The port of the first connector. */
    public int port() {
        return port(0);
    }

    public int port(int index) {
        return ((ServerConnector) server.getConnectors()[index]).getLocalPort();
    }

    public int portCount() {
        return server.getConnectors().length;
    }

    /** {@code http://host:port} (or {@code https://}) of the first connector, to {@link URI#resolve(String) resolve} paths against. */
    public URI uri() {
        return uri(0);
    }

    public URI uri(int index) {
        ServerConnector connector = (ServerConnector) server.getConnectors()[index];
        return URI.create(StubServer.scheme(connector) + "://" + connector.getHost() + ":" + connector.getLocalPort());
    }

    public StubStats stats() {
        return StubServer.stats(server);
    }

    public void resetStats() {
        StubServer.resetStats(server);
    }

    /** The underlying Jetty server, for tests that need its pool or connectors. */
    public Server server() {
        return server;
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("partner stubs failed to stop", e);
        }
    }
}
