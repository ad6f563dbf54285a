package io.rc10k.benchmarks.peers;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * The fan-out written plainly on Vert.x 5, a peer for the mashup server: per inbound request, C
 * parallel GETs to one partner URI with {@link WebClient}, {@code Future.all}, and the partner bodies
 * merged as-is into the mashup server's composite JSON (200, or 502 when a call failed or was not 200).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.peers.VertxFanOut --port 0 \
 *     --partner http://127.0.0.1:PORT/stub --calls 6
 * </pre>
 *
 * Threading: Vert.x's default event-loop pool (2 × cores) and one verticle instance per core, each
 * with its own {@code HttpServer} on the shared port (Vert.x hands connections round-robin) and its own
 * {@code WebClient}, so a request and its calls stay on one event loop. Port 0 picks a free port
 * first, since Vert.x shares a server among instances only when they ask for the same port. The client pools together hold
 * at most 256 HTTP/1.1 keep-alive connections to the partner, the mashup server's {@code maxConnections}
 * in the peers run; calls beyond that wait in the pool's queue. With {@code -Dvertx-peer.h2c=true} the calls go
 * over h2c with prior knowledge instead (no upgrade), each client on at most {@value #H2C_CONNECTIONS}
 * multiplexed connections, as many streams on each as the partner allows. Transport: Netty NIO (no native
 * epoll). Prints {@code vertx-peer ready on http://127.0.0.1:PORT} once listening.
 */
public final class VertxFanOut extends VerticleBase {
    private static final int PARTNER_CONNECTIONS = 256;
    /** Per verticle's client over h2c: with the partner's 128 streams each, room for C = 6 on 64 connections. */
    static final int H2C_CONNECTIONS = 2;

    private final URI partner;
    private final int calls;
    private final int port;
    private final int poolSize;
    private final boolean h2c;
    private WebClient client;

    VertxFanOut(URI partner, int calls, int port, int poolSize, boolean h2c) {
        this.partner = partner;
        this.calls = calls;
        this.port = port;
        this.poolSize = poolSize;
        this.h2c = h2c;
    }

    @Override
    public Future<?> start() {
        WebClientOptions options = new WebClientOptions();
        options.setKeepAlive(true);
        if (h2c) {
            options.setProtocolVersion(HttpVersion.HTTP_2);
            options.setHttp2ClearTextUpgrade(false);
        }
        client = WebClient.create(vertx, options, new PoolOptions().setHttp1MaxSize(poolSize)
                .setHttp2MaxSize(H2C_CONNECTIONS));
        return vertx.createHttpServer().requestHandler(this::fanOut).listen(port, "127.0.0.1");
    }

    private void fanOut(HttpServerRequest request) {
        long start = System.nanoTime();
        List<Future<Part>> parts = new ArrayList<>(calls);
        for (int i = 0; i < calls; i++) {
            parts.add(client.get(partner.getPort(), partner.getHost(), partner.getRawPath()).send()
                    .map(response -> new Part(response, System.nanoTime() - start)));
        }
        Future.all(parts).onComplete(all -> {
            boolean complete = all.succeeded() && parts.stream().allMatch(p -> p.result().response.statusCode() == 200);
            if (!complete) {
                request.response().setStatusCode(502).putHeader("Mashup-Complete", "false").end();
                return;
            }
            Buffer json = Buffer.buffer(512 * calls).appendString("{\"mashup\":\"c" + calls
                    + "\",\"complete\":true,\"elapsedMillis\":" + (System.nanoTime() - start) / 1_000_000
                    + ",\"parts\":{");
            for (int i = 0; i < calls; i++) {
                Part part = parts.get(i).result();
                json.appendString((i == 0 ? "\"p" : ",\"p") + (i + 1) + "\":{\"status\":200,\"elapsedMillis\":"
                        + part.elapsedNanos / 1_000_000 + ",\"body\":").appendBuffer(part.response.body())
                        .appendString("}");
            }
            request.response().putHeader("Content-Type", "application/json").putHeader("Mashup-Complete", "true")
                    .end(json.appendString("}}"));
        });
    }

    /** One call's answer and when it came, counted from the inbound request. */
    private record Part(HttpResponse<Buffer> response, long elapsedNanos) {
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    public static void main(String[] args) throws IOException {
        PeerOptions options = PeerOptions.parse("vertx-peer", args);
        int instances = Runtime.getRuntime().availableProcessors();
        int poolSize = (PARTNER_CONNECTIONS + instances - 1) / instances;
        // Instances share a server only when they ask for the same port, and each port 0 is a new one.
        int port = options.port() == 0 ? freePort() : options.port();
        Vertx vertx = Vertx.vertx();
        boolean h2c = Boolean.getBoolean("vertx-peer.h2c");
        vertx.deployVerticle(() -> new VertxFanOut(options.partner(), options.calls(), port, poolSize, h2c),
                        new DeploymentOptions().setInstances(instances))
                .onSuccess(id -> System.out.println("vertx-peer ready on http://127.0.0.1:" + port + " ("
                        + instances + " verticles, partner pool " + (h2c ? instances * H2C_CONNECTIONS + " h2c"
                        : instances * poolSize) + ")"))
                .onFailure(failure -> {
                    failure.printStackTrace();
                    System.exit(1);
                });
    }
}
