package io.rc10k.benchmarks.peers;

import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;

/**
 * The fan-out on Jetty's server with an outbound HTTP/1.1 client of its own on plain NIO event loops,
 * a peer for the mashup server: what the mashup server could cost were its partner calls made as an
 * event-loop client makes them. Each loop thread owns a selector; a connection stays registered for
 * reading from its connect to its close (no interest changes per exchange); a request is written by the
 * thread that starts the call, straight onto an idle kept-alive connection; the response is parsed by
 * Jetty's {@link HttpParser} on the loop that read it, and the last part's completion writes the
 * composite from that loop. At most 256 connections to the partner; calls beyond wait in a queue.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.peers.LoopFanOut --port 0 \
 *     --partner http://127.0.0.1:PORT/stub --calls 6
 * </pre>
 *
 * With {@code -Dloop-peer.servlet=true} the same client answers behind a Jetty ee11 async servlet
 * ({@link LoopServlet}) instead of a core handler: the mashup server's inbound design with none of its
 * features. Prints {@code loop-peer ready on http://127.0.0.1:PORT} once listening.
 */
public final class LoopFanOut extends Handler.Abstract.NonBlocking {
    private final LoopClient client;
    private final int calls;

    LoopFanOut(LoopClient client, int calls) {
        this.client = client;
        this.calls = calls;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        long start = System.nanoTime();
        fanOut(client, calls, start, (bodies, elapsed, failed) -> {
            if (failed) {
                CorePeer.failed(response, callback);
            } else {
                CorePeer.complete(response, callback, start, bodies, elapsed);
            }
        });
        return true;
    }

    /** What a fan-out hands on once its last part is in: every body, when each came, whether any failed. */
    interface Parts {
        void arrived(byte[][] bodies, long[] elapsedNanos, boolean failed);
    }

    /** Starts {@code calls} calls on {@code client}; the thread that completes the last one runs {@code parts}. */
    static void fanOut(LoopClient client, int calls, long startNanos, Parts parts) {
        byte[][] bodies = new byte[calls][];
        long[] elapsed = new long[calls];
        AtomicInteger remaining = new AtomicInteger(calls);
        boolean[] failed = {false};
        for (int i = 0; i < calls; i++) {
            int slot = i;
            client.get((status, body) -> {
                bodies[slot] = body;
                elapsed[slot] = System.nanoTime() - startNanos;
                if (status != 200) {
                    failed[0] = true;
                }
                if (remaining.decrementAndGet() == 0) {
                    parts.arrived(bodies, elapsed, failed[0]);
                }
            });
        }
    }

    public static Server createServer(PeerOptions options) throws Exception {
        Server server = CorePeer.server("loop-peer", options);
        LoopClient client = new LoopClient(options.partner(), Runtime.getRuntime().availableProcessors());
        if (Boolean.getBoolean("loop-peer.servlet")) {
            ServletContextHandler context = new ServletContextHandler("/");
            ServletHolder holder = new ServletHolder("fan-out", new LoopServlet(client, options.calls()));
            holder.setAsyncSupported(true);
            context.addServlet(holder, "/*");
            server.setHandler(context);
        } else {
            server.setHandler(new LoopFanOut(client, options.calls()));
        }
        return server;
    }

    public static void main(String[] args) throws Exception {
        CorePeer.run("loop-peer", createServer(PeerOptions.parse("loop-peer", args)));
    }
}
