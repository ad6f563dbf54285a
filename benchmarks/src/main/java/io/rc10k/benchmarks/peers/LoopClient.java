package io.rc10k.benchmarks.peers;

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
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpVersion;

/**
 * The {@link LoopFanOut} peer's client: loops, a pool of kept-alive connections to one partner, and the calls
 * waiting for one. At most {@value #PARTNER_CONNECTIONS} connections to the partner; calls beyond wait in a queue.
 * Kept to the fast path on purpose (no deadlines, no body bound, no retries): the yardstick of what such a loop
 * costs, not a client to use.
 */
final class LoopClient {
    private static final int PARTNER_CONNECTIONS = 256;

    /** What a call's caller hears: the status (0 when the exchange failed) and the body. */
    interface Done {
        void done(int status, byte[] body);
    }

    private final InetSocketAddress address;
    private final byte[] request;
    private final Loop[] loops;
    private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
    private final Queue<Done> waiting = new ConcurrentLinkedQueue<>();
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger next = new AtomicInteger();

    LoopClient(URI partner, int loops) throws IOException {
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
        public boolean contentComplete() {
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

