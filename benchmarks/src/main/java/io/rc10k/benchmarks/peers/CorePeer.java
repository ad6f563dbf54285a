package io.rc10k.benchmarks.peers;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * What the peers behind a Jetty core handler share ({@link JdkFanOut}, {@link JettyFanOut}): the
 * server (one pool of 200 threads, one connector set up as the hello-world's), the composite they
 * answer — the mashup server's JSON with the partner bodies embedded as they are — and how they run.
 */
final class CorePeer {
    private CorePeer() {
    }

    /** A server on 127.0.0.1 with its pool named {@code name}; the caller adds beans and the handler. */
    static Server server(String name, PeerOptions options) {
        QueuedThreadPool pool = new QueuedThreadPool(200, 8);
        pool.setName(name);
        Server server = new Server(pool);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        connector.setPort(options.port());
        connector.setAcceptQueueSize(4096);
        connector.setIdleTimeout(30_000);
        server.addConnector(connector);
        return server;
    }

    /** 502 with {@code Mashup-Complete: false}: a call failed or was not 200. */
    static void failed(Response response, Callback callback) {
        response.setStatus(502);
        response.getHeaders().put("Mashup-Complete", "false");
        response.write(true, null, callback);
    }

    /** 200 with the composite of every part: its body and when it came, counted from {@code startNanos}. */
    static void complete(Response response, Callback callback, long startNanos, byte[][] bodies, long[] elapsedNanos) {
        byte[] json = composite(startNanos, bodies, elapsedNanos);
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put("Mashup-Complete", "true");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, json.length);
        response.write(true, ByteBuffer.wrap(json), callback);
    }

    /** The composite's JSON: the mashup server's shape, each part's body embedded as it came. */
    static byte[] composite(long startNanos, byte[][] bodies, long[] elapsedNanos) {
        int calls = bodies.length;
        ByteArrayOutputStream json = new ByteArrayOutputStream(512 * calls);
        json.writeBytes(ascii("{\"mashup\":\"c" + calls + "\",\"complete\":true,\"elapsedMillis\":"
                + (System.nanoTime() - startNanos) / 1_000_000 + ",\"parts\":{"));
        for (int i = 0; i < calls; i++) {
            json.writeBytes(ascii((i == 0 ? "\"p" : ",\"p") + (i + 1) + "\":{\"status\":200,\"elapsedMillis\":"
                    + elapsedNanos[i] / 1_000_000 + ",\"body\":"));
            json.writeBytes(bodies[i]);
            json.writeBytes(ascii("}"));
        }
        json.writeBytes(ascii("}}"));
        return json.toByteArray();
    }

    /** Starts {@code server}, prints {@code <name> ready on http://127.0.0.1:PORT}, and serves until stopped. */
    static void run(String name, Server server) throws Exception {
        server.setStopAtShutdown(true);
        server.start();
        System.out.println(name + " ready on http://127.0.0.1:"
                + ((ServerConnector) server.getConnectors()[0]).getLocalPort());
        server.join();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
