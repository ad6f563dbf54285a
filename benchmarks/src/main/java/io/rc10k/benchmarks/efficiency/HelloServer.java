package io.rc10k.benchmarks.efficiency;

import io.rc10k.harness.CommandLine;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The bare Jetty hello-world that {@link Efficiency} measures the mashup server against: one core
 * handler that answers every request with a fixed 13-byte text body, on the same pool size,
 * connector settings and JVM flags as the standalone mashup server.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.efficiency.HelloServer --port 0
 * </pre>
 *
 * The handler is non-blocking by default (Jetty may run it on the selector thread, no hand-off):
 * the cheapest exchange Jetty can serve, so that an efficiency of 1.0 is a real limit.
 * {@code --blocking} declares it blocking instead, as a servlet is, which costs a dispatch per request.
 * It prints {@code hello ready on http://HOST:PORT} once it accepts connections.
 */
public final class HelloServer {
    private static final byte[] HELLO = "Hello, world\n".getBytes(StandardCharsets.US_ASCII);

    private HelloServer() {
    }

    public static Server createServer(String host, int port, boolean blocking) {
        QueuedThreadPool pool = new QueuedThreadPool(200, 8);
        pool.setName("hello");
        Server server = new Server(pool);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setHost(host);
        connector.setPort(port);
        connector.setAcceptQueueSize(4096);
        connector.setIdleTimeout(30_000);
        server.addConnector(connector);
        server.setHandler(blocking ? new Hello() : new NonBlockingHello());
        return server;
    }

    /** Answers hello; Jetty dispatches it to a pool thread, as it does a servlet. */
    private static final class Hello extends Handler.Abstract {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            return answer(response, callback);
        }
    }

    /** The same answer, declared non-blocking: Jetty may run it on the thread that read the request. */
    private static final class NonBlockingHello extends Handler.Abstract.NonBlocking {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            return answer(response, callback);
        }
    }

    private static boolean answer(Response response, Callback callback) {
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, HELLO.length);
        response.write(true, ByteBuffer.wrap(HELLO), callback);
        return true;
    }

    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = 8080;
        boolean blocking = false;
        CommandLine line = new CommandLine("hello", "--host HOST (127.0.0.1) --port N (8080) --blocking --help --version",
                args);
        while (line.next()) {
            switch (line.option()) {
                case "--host" -> host = line.value();
                case "--port" -> port = line.intValue();
                case "--blocking" -> blocking = true;
                default -> line.unknown();
            }
        }
        Server server = createServer(host, port, blocking);
        server.setStopAtShutdown(true);
        server.start();
        System.out.println("hello ready on http://" + host + ":"
                + ((ServerConnector) server.getConnectors()[0]).getLocalPort()
                + (blocking ? " (blocking handler)" : " (non-blocking handler)"));
        server.join();
    }
}
