package io.rc10k.benchmarks.peers;

import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The fan-out written plainly on Jetty 12's own {@link HttpClient}, a peer for the mashup server: the
 * same client library, pool and selectors the mashup server uses, without any of its layers (no
 * servlet, no definitions, templates, admission, breakers, metrics, tracing or Table 1 events). A
 * non-blocking core handler sends C GETs to one partner URI per inbound request, each with a
 * {@link BufferingResponseListener}, and writes the mashup server's composite JSON when the last has
 * completed (200, or 502 when a call failed or was not 200). What separates this peer from the mashup
 * server is the cost of the project's own layers; what separates it from the Vert.x peer is the cost
 * of Jetty's client and server.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.peers.JettyFanOut --port 0 \
 *     --partner http://127.0.0.1:PORT/stub --calls 6
 * </pre>
 *
 * Threading: one {@link QueuedThreadPool} (200 threads, "jetty-peer") shared by server and client, as
 * in the mashup server. The client's invocation type is Jetty's default (blocking: each response is
 * parsed on a pool thread); {@code -Djetty-peer.nonBlocking=true} declares it non-blocking, so responses
 * are parsed and the answer written on the selector that read them. At most 256 connections to the
 * partner, the mashup server's {@code maxConnections} in the peers run. An {@code https} partner is called
 * over TLS (HTTP/1.1), trusted as the JDK trusts ({@code -Djavax.net.ssl.trustStore}), its host name checked:
 * what TLS costs Jetty's client without the mashup server ({@link HttpsCost}). Prints
 * {@code jetty-peer ready on http://127.0.0.1:PORT} once listening.
 */
public final class JettyFanOut extends Handler.Abstract.NonBlocking {
    private static final int PARTNER_CONNECTIONS = 256;

    private final HttpClient client;
    private final String partner;
    private final int calls;

    JettyFanOut(HttpClient client, PeerOptions options) {
        this.client = client;
        this.partner = options.partner().toString();
        this.calls = options.calls();
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        long start = System.nanoTime();
        Part[] parts = new Part[calls];
        AtomicInteger remaining = new AtomicInteger(calls);
        for (int i = 0; i < calls; i++) {
            int slot = i;
            client.newRequest(partner).send(new BufferingResponseListener() {
                @Override
                public void onComplete(Result result) {
                    parts[slot] = new Part(result.isSucceeded() ? result.getResponse().getStatus() : 0, getContent(),
                            System.nanoTime() - start);
                    if (remaining.decrementAndGet() == 0) {
                        answer(parts, start, response, callback);
                    }
                }
            });
        }
        return true;
    }

    private void answer(Part[] parts, long start, Response response, Callback callback) {
        byte[][] bodies = new byte[calls][];
        long[] elapsed = new long[calls];
        for (int i = 0; i < calls; i++) {
            if (parts[i].status != 200) {
                CorePeer.failed(response, callback);
                return;
            }
            bodies[i] = parts[i].body;
            elapsed[i] = parts[i].elapsedNanos;
        }
        CorePeer.complete(response, callback, start, bodies, elapsed);
    }

    /** One call's status (0: failed), body, and when it came, counted from the inbound request. */
    private record Part(int status, byte[] body, long elapsedNanos) {
    }

    public static Server createServer(PeerOptions options) throws Exception {
        Server server = CorePeer.server("jetty-peer", options);
        ClientConnector connector = new ClientConnector();
        connector.setExecutor(server.getThreadPool());
        connector.setScheduler(server.getScheduler());
        HttpClientTransportOverHTTP transport = new HttpClientTransportOverHTTP(connector);
        if (Boolean.getBoolean("jetty-peer.nonBlocking")) {
            transport.setInvocationType(Invocable.InvocationType.NON_BLOCKING);
        }
        HttpClient client = new HttpClient(transport);
        client.setExecutor(server.getThreadPool());
        client.setScheduler(server.getScheduler());
        client.setMaxConnectionsPerDestination(PARTNER_CONNECTIONS);
        client.setMaxRequestsQueuedPerDestination(4096);
        client.setFollowRedirects(false);
        server.addBean(client);
        server.setHandler(new JettyFanOut(client, options));
        return server;
    }

    public static void main(String[] args) throws Exception {
        CorePeer.run("jetty-peer", createServer(PeerOptions.parse("jetty-peer", args, true)));
    }
}
