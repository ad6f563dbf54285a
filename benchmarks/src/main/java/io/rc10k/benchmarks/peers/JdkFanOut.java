package io.rc10k.benchmarks.peers;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;

/**
 * The fan-out written plainly on the JDK's {@link HttpClient}, a peer for the mashup server: a
 * non-blocking Jetty core handler starts C {@code sendAsync} GETs to one partner URI per inbound
 * request and completes the response from the {@code CompletableFuture.allOf} callback, the partner
 * bodies merged as-is into the mashup server's composite JSON (200, or 502 when a call failed or was
 * not 200).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.peers.JdkFanOut --port 0 \
 *     --partner http://127.0.0.1:PORT/stub --calls 6
 * </pre>
 *
 * Threading: the inbound side is Jetty's, on the hello-world's pool (200 threads, "jdk-peer"); the
 * handler never blocks, so Jetty may run it on the thread that read the request. The client is HTTP/1.1
 * with its one selector thread and a fixed executor of one thread per core ("jdk-peer-client-N"); the
 * answer is written from whichever of them completed the last call. Not the client's default executor:
 * that cached pool grew to ~380 threads at 64 mashups in flight and did less than half the mashups per
 * second (115–213 against 423–581 on JDK 17, this machine). The JDK client has no cap on connections per
 * host: it opens one per call in flight and keeps them alive. Prints
 * {@code jdk-peer ready on http://127.0.0.1:PORT} once listening.
 */
public final class JdkFanOut extends Handler.Abstract.NonBlocking {
    private final HttpClient client;
    private final HttpRequest call;
    private final int calls;

    JdkFanOut(PeerOptions options) {
        AtomicInteger threads = new AtomicInteger();
        ExecutorService executor = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors(), task -> {
            Thread thread = new Thread(task, "jdk-peer-client-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(executor).build();
        this.call = HttpRequest.newBuilder(options.partner()).GET().build();
        this.calls = options.calls();
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        long start = System.nanoTime();
        @SuppressWarnings("unchecked")
        CompletableFuture<Part>[] parts = new CompletableFuture[calls];
        for (int i = 0; i < calls; i++) {
            parts[i] = client.sendAsync(call, BodyHandlers.ofByteArray())
                    .thenApply(answer -> new Part(answer, System.nanoTime() - start));
        }
        CompletableFuture.allOf(parts).whenComplete((all, failure) -> {
            for (int i = 0; failure == null && i < calls; i++) {
                if (parts[i].join().response.statusCode() != 200) {
                    failure = new IllegalStateException("status " + parts[i].join().response.statusCode());
                }
            }
            if (failure != null) {
                CorePeer.failed(response, callback);
                return;
            }
            byte[][] bodies = new byte[calls][];
            long[] elapsed = new long[calls];
            for (int i = 0; i < calls; i++) {
                bodies[i] = parts[i].join().response.body();
                elapsed[i] = parts[i].join().elapsedNanos;
            }
            CorePeer.complete(response, callback, start, bodies, elapsed);
        });
        return true;
    }


    /** One call's answer and when it came, counted from the inbound request. */
    private record Part(HttpResponse<byte[]> response, long elapsedNanos) {
    }

    public static Server createServer(PeerOptions options) {
        Server server = CorePeer.server("jdk-peer", options);
        server.setHandler(new JdkFanOut(options));
        return server;
    }

    public static void main(String[] args) throws Exception {
        CorePeer.run("jdk-peer", createServer(PeerOptions.parse("jdk-peer", args)));
    }
}
