package io.rc10k.benchmarks.peers;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpVersion;
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
 * ({@link AsyncServlet}) instead of a core handler: the mashup server's inbound design with none of its
 * features. Prints {@code loop-peer ready on http://127.0.0.1:PORT} once listening.
 */
public final class LoopFanOut extends Handler.Abstract.NonBlocking {
    private static final int PARTNER_CONNECTIONS = 256;

    private final Client client;
    private final int calls;

    LoopFanOut(Client client, int calls) {
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
    static void fanOut(Client client, int calls, long startNanos, Parts parts) {
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

    /** What a call's caller hears: the status (0 when the exchange failed) and the body. */
    interface Done {
        void done(int status, byte[] body);
    }

    /**
     * The client: loops, a pool of kept-alive connections to one partner, and the calls waiting for one.
     * Kept to the fast path on purpose (no deadlines, no body bound, no retries): the yardstick of what
     * such a loop costs, not a client to use.
     */
    static final class Client {
        private final InetSocketAddress address;
        private final byte[] request;
        private final Loop[] loops;
        private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
        private final Queue<Done> waiting = new ConcurrentLinkedQueue<>();
        private final AtomicInteger open = new AtomicInteger();
        private final AtomicInteger next = new AtomicInteger();

        Client(URI partner, int loops) throws IOException {
            this.address = new InetSocketAddress(partner.getHost(), partner.getPort());
            String target = partner.getRawPath() + (partner.getRawQuery() == null ? "" : "?" + partner.getRawQuery());
            this.request = ("GET " + target + " HTTP/1.1\r\nHost: " + partner.getHost() + ":" + partner.getPort()
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            this.loops = new Loop[loops];
            for (int i = 0; i < loops; i++) {
                this.loops[i] = new Loop("loop-peer-" + i);
                this.loops[i].start();
            }
        }

        void get(Done done) {
            Connection connection = idle.pollFirst();
            while (connection != null && !connection.channel.isOpen()) {
                connection = idle.pollFirst(); // closed by the partner while idle
            }
            if (connection != null) {
                connection.send(done);
                return;
            }
            if (open.incrementAndGet() <= PARTNER_CONNECTIONS) {
                loops[Math.floorMod(next.getAndIncrement(), loops.length)].connect(done);
                return;
            }
            open.decrementAndGet();
            waiting.add(done);
            // A connection released meanwhile may not have seen this call: look again.
            connection = idle.pollFirst();
            if (connection != null) {
                Done first = waiting.poll();
                if (first != null) {
                    connection.send(first);
                } else {
                    idle.offerFirst(connection);
                }
            }
        }

        void release(Connection connection) {
            Done queued = waiting.poll();
            if (queued != null) {
                connection.send(queued);
            } else {
                idle.offerFirst(connection);
            }
        }

        /** One selector and its thread. */
        final class Loop extends Thread {
            private final Selector selector;
            private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

            Loop(String name) throws IOException {
                super(name);
                setDaemon(true);
                this.selector = Selector.open();
            }

            void connect(Done first) {
                tasks.add(() -> {
                    try {
                        SocketChannel channel = SocketChannel.open();
                        channel.configureBlocking(false);
                        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                        Connection connection = new Connection(this, channel, first);
                        channel.register(selector, SelectionKey.OP_CONNECT, connection);
                        if (channel.connect(address)) {
                            connection.connected();
                        }
                    } catch (IOException e) {
                        open.decrementAndGet();
                        first.done(0, null);
                    }
                });
                selector.wakeup();
            }

            @Override
            public void run() {
                try {
                    while (selector.isOpen()) {
                        selector.select(key -> ((Connection) key.attachment()).ready(key));
                        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
                            task.run();
                        }
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }

        /** A kept-alive connection: registered for reading from connect to close; one exchange at a time. */
        final class Connection implements HttpParser.ResponseHandler {
            private final Loop loop;
            private final SocketChannel channel;
            private final HttpParser parser = new HttpParser(this);
            private final ByteBuffer in = ByteBuffer.allocateDirect(16 * 1024);
            private final ByteArrayOutputStream body = new ByteArrayOutputStream(512);
            private volatile Done current;
            private int status;

            Connection(Loop loop, SocketChannel channel, Done first) {
                this.loop = loop;
                this.channel = channel;
                this.current = first;
                in.flip();
            }

            void connected() throws IOException {
                channel.keyFor(loop.selector).interestOps(SelectionKey.OP_READ);
                write();
            }

            void send(Done done) {
                current = done;
                try {
                    write();
                } catch (IOException e) {
                    fail();
                }
            }

            private void write() throws IOException {
                ByteBuffer out = ByteBuffer.wrap(request);
                while (out.hasRemaining()) {
                    channel.write(out); // a few dozen bytes into an empty socket buffer: written at once
                }
            }

            void ready(SelectionKey key) {
                try {
                    if (key.isConnectable()) {
                        channel.finishConnect();
                        connected();
                        return;
                    }
                    in.compact();
                    int read = channel.read(in);
                    in.flip();
                    if (read < 0) {
                        fail();
                        return;
                    }
                    while (in.hasRemaining() && current != null) {
                        if (parser.parseNext(in)) {
                            break;
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    fail();
                }
            }

            private void fail() {
                Done done = current;
                current = null;
                idle.remove(this);
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
                open.decrementAndGet();
                if (done != null) {
                    done.done(0, null);
                }
            }

            @Override
            public void startResponse(HttpVersion version, int status, String reason) {
                this.status = status;
                body.reset();
            }

            @Override
            public void parsedHeader(HttpField field) {
            }

            @Override
            public boolean headerComplete() {
                return false;
            }

            @Override
            public boolean content(ByteBuffer content) {
                byte[] bytes = new byte[content.remaining()];
                content.get(bytes);
                body.writeBytes(bytes);
                return false;
            }

            @Override
            public boolean contentComplete() {
                return false;
            }

            @Override
            public boolean messageComplete() {
                Done done = current;
                current = null;
                int answered = status;
                byte[] bytes = body.toByteArray();
                parser.reset();
                release(this);
                done.done(answered, bytes);
                return true;
            }

            @Override
            public void earlyEOF() {
                fail();
            }
        }
    }

    public static Server createServer(PeerOptions options) throws Exception {
        Server server = CorePeer.server("loop-peer", options);
        Client client = new Client(options.partner(), Runtime.getRuntime().availableProcessors());
        if (Boolean.getBoolean("loop-peer.servlet")) {
            ServletContextHandler context = new ServletContextHandler("/");
            ServletHolder holder = new ServletHolder("fan-out", new AsyncServlet(client, options.calls()));
            holder.setAsyncSupported(true);
            context.addServlet(holder, "/*");
            server.setHandler(context);
        } else {
            server.setHandler(new LoopFanOut(client, options.calls()));
        }
        return server;
    }

    /**
     * The same fan-out behind a Jetty ee11 async servlet, as the mashup server answers: {@code startAsync()},
     * the calls on the client's loops, the composite written with Servlet non-blocking output from the
     * loop that completed the last part, then {@code complete()}. No routing, checks, metrics or trace
     * context: what the servlet layer alone adds to the loop-peer.
     */
    static final class AsyncServlet extends HttpServlet {
        private final transient Client client;
        private final int calls;

        AsyncServlet(Client client, int calls) {
            this.client = client;
            this.calls = calls;
        }

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            long start = System.nanoTime();
            AsyncContext async = request.startAsync();
            async.setTimeout(0);
            ServletOutputStream out = response.getOutputStream();
            // Bit 1: the output is writable; bit 2: every part is in. Whichever comes second writes.
            AtomicInteger events = new AtomicInteger();
            AtomicBoolean written = new AtomicBoolean();
            byte[][][] composite = new byte[1][][];
            long[][] times = new long[1][];
            boolean[] failed = {false};
            Runnable write = () -> {
                written.set(true);
                try {
                    if (failed[0]) {
                        response.setStatus(502);
                        response.setHeader("Mashup-Complete", "false");
                        response.setContentLength(0);
                        async.complete();
                        return;
                    }
                    byte[] json = CorePeer.composite(start, composite[0], times[0]);
                    response.setStatus(200);
                    response.setContentType("application/json");
                    response.setHeader("Mashup-Complete", "true");
                    response.setContentLength(json.length);
                    out.write(json);
                    if (out.isReady()) {
                        async.complete();
                    }
                } catch (IOException e) {
                    async.complete();
                }
            };
            out.setWriteListener(new WriteListener() {
                @Override
                public void onWritePossible() {
                    if (written.get()) {
                        async.complete();
                    } else if ((events.getAndAdd(1) & 2) != 0) {
                        write.run();
                    }
                }

                @Override
                public void onError(Throwable failure) {
                    async.complete();
                }
            });
            fanOut(client, calls, start, (bodies, elapsed, anyFailed) -> {
                composite[0] = bodies;
                times[0] = elapsed;
                failed[0] = anyFailed;
                if ((events.getAndAdd(2) & 1) != 0) {
                    write.run();
                }
            });
        }
    }

    public static void main(String[] args) throws Exception {
        CorePeer.run("loop-peer", createServer(PeerOptions.parse("loop-peer", args)));
    }
}
