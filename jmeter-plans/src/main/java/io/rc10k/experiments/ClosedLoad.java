package io.rc10k.experiments;

import io.rc10k.harness.Http1Heads;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;

/**
 * Webbench's part in the reactor experiment: N clients, each with one GET on the wire at a time and the next
 * sent as soon as the answer is in (a closed model, no think time), all on one selector thread so that the
 * load takes as little of the CPU it shares with the server as it can. Kept alive, the clients' connections
 * last across points; otherwise each request has a connection of its own ({@code Connection: close}) and a
 * client opens the next as its answer ends.
 *
 * <pre>
 * try (ClosedLoad load = new ClosedLoad(address, 10_000, true)) {
 *     ClosedLoad.Window w = load.run("/business/sleep?micros=200&amp;epoch=1", 1_000, 3_000);
 *     // end the point's queued work (epoch 2), then:
 *     load.drain(15_000);
 * }
 * </pre>
 *
 * Counts the 200s that end inside the measured window, and any other status or broken connection as a failure;
 * a 410 is an answer to an earlier point ({@link BusinessFront}) and is not counted. Not thread-safe.
 */
final class ClosedLoad implements AutoCloseable {
    /** What a measured window saw: 200s, failures, the first failure, the window, and the mean answer time. */
    record Window(long ok, long failed, String firstFailure, long nanos, double meanMillis) {
        double perSecond() {
            return ok * 1e9 / nanos;
        }
    }

    private static final int BUFFER = 4 * 1024;

    private final InetSocketAddress address;
    private final int clients;
    private final boolean keepAlive;
    private final Selector selector;
    private byte[] request;
    private boolean sending;
    private int onTheWire;
    private long windowStart = Long.MAX_VALUE;
    private long windowEnd;
    private long ok;
    private long failed;
    private long answerNanos;
    private String firstFailure;

    /** One client's connection and what it has read of its answer. */
    private static final class Client {
        final SocketChannel channel;
        final ByteBuffer in = ByteBuffer.allocate(BUFFER);
        long sentAt;
        boolean waiting;

        Client(SocketChannel channel) {
            this.channel = channel;
        }
    }

    ClosedLoad(InetSocketAddress address, int clients, boolean keepAlive) throws IOException {
        if (clients < 1) {
            throw new IllegalArgumentException("clients < 1: " + clients);
        }
        this.address = address;
        this.clients = clients;
        this.keepAlive = keepAlive;
        this.selector = Selector.open();
    }

    boolean keepAlive() {
        return keepAlive;
    }

    /**
     * Sends {@code pathAndQuery} from every client for {@code warmupMillis}, then counts the answers of the
     * next {@code measureMillis}; returns with the clients' last requests still on the wire.
     */
    Window run(String pathAndQuery, long warmupMillis, long measureMillis) throws IOException {
        request = ("GET " + pathAndQuery + " HTTP/1.1\r\nHost: " + address.getHostString() + ":" + address.getPort()
                + "\r\n" + (keepAlive ? "" : "Connection: close\r\n") + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
        sending = true;
        ok = 0;
        failed = 0;
        answerNanos = 0;
        firstFailure = null;
        windowStart = Long.MAX_VALUE;
        int open = selector.keys().size();
        for (int i = open; i < clients; i++) {
            connect();
        }
        for (SelectionKey key : selector.keys()) {
            Client client = (Client) key.attachment();
            if (client.channel.isConnected() && !client.waiting) {
                send(client);
            }
        }
        long start = System.nanoTime();
        pollUntil(start + warmupMillis * 1_000_000);
        ok = 0;
        failed = 0;
        answerNanos = 0;
        firstFailure = null;
        windowStart = System.nanoTime();
        windowEnd = windowStart + measureMillis * 1_000_000;
        pollUntil(windowEnd);
        sending = false;
        long n = ok;
        return new Window(n, failed, firstFailure, windowEnd - windowStart, n == 0 ? Double.NaN
                : answerNanos / 1e6 / n);
    }

    /**
     * Waits, at most {@code millis}, for the answers still on the wire (the server answers them at once once
     * their epoch has passed); returns how many never came. Connections that are not kept alive are closed.
     */
    int drain(long millis) throws IOException {
        long end = System.nanoTime() + millis * 1_000_000;
        while (onTheWire > 0 && System.nanoTime() < end) {
            poll(100);
        }
        int missing = onTheWire;
        if (missing > 0 || !keepAlive) {
            closeAll();
        }
        return missing;
    }

    private void pollUntil(long endNanos) throws IOException {
        for (long left = endNanos - System.nanoTime(); left > 0; left = endNanos - System.nanoTime()) {
            poll(Math.max(1, left / 1_000_000));
        }
    }

    private void connect() throws IOException {
        SocketChannel channel = SocketChannel.open();
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        Client client = new Client(channel);
        if (channel.connect(address)) {
            channel.register(selector, SelectionKey.OP_READ, client);
            send(client);
        } else {
            channel.register(selector, SelectionKey.OP_CONNECT, client);
        }
    }

    private void poll(long waitMillis) throws IOException {
        if (selector.select(waitMillis) == 0) {
            return;
        }
        Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
        while (keys.hasNext()) {
            SelectionKey key = keys.next();
            keys.remove();
            Client client = (Client) key.attachment();
            try {
                if (key.isConnectable()) {
                    client.channel.finishConnect();
                    key.interestOps(SelectionKey.OP_READ);
                    if (sending) {
                        send(client);
                    }
                } else if (key.isReadable()) {
                    read(key, client);
                }
            } catch (IOException e) {
                // Its answer is lost; another client takes its place while the point lasts.
                if (client.waiting) {
                    onTheWire--;
                }
                fail(e.toString());
                key.cancel();
                client.channel.close();
                if (sending) {
                    connect();
                }
            }
        }
    }

    private void send(Client client) throws IOException {
        ByteBuffer out = ByteBuffer.wrap(request);
        while (out.hasRemaining()) {
            // One small request on an idle connection: its socket buffer is empty, the write does not split.
            client.channel.write(out);
        }
        client.sentAt = System.nanoTime();
        client.waiting = true;
        onTheWire++;
    }

    private void read(SelectionKey key, Client client) throws IOException {
        ByteBuffer in = client.in;
        int n = client.channel.read(in);
        if (n < 0 && !client.waiting) {
            key.cancel();
            client.channel.close();
            return;
        }
        int headersEnd = Http1Heads.endOfHead(in.array(), in.position());
        if (headersEnd < 0 || in.position() < headersEnd + 4
                + Http1Heads.contentLength(new String(in.array(), 0, headersEnd, StandardCharsets.ISO_8859_1))) {
            if (n < 0) {
                throw new IOException("closed by the server before its answer ended");
            }
            if (!in.hasRemaining()) {
                throw new IOException("an answer of more than " + BUFFER + " bytes");
            }
            return;
        }
        String status = new String(in.array(), 0, Math.min(12, headersEnd), StandardCharsets.ISO_8859_1);
        in.clear();
        client.waiting = false;
        onTheWire--;
        long now = System.nanoTime();
        if (now >= windowStart && now <= windowEnd || windowStart == Long.MAX_VALUE) {
            if (status.equals("HTTP/1.1 200")) {
                ok++;
                answerNanos += now - client.sentAt;
            } else if (!status.equals("HTTP/1.1 410")) {
                fail(status);
            }
        }
        if (!keepAlive) {
            key.cancel();
            client.channel.close();
            if (sending) {
                connect();
            }
        } else if (sending) {
            send(client);
        }
    }

    private void fail(String why) {
        long now = System.nanoTime();
        if (now < windowStart || now > windowEnd) {
            return;
        }
        failed++;
        if (firstFailure == null) {
            firstFailure = why;
        }
    }

    private void closeAll() throws IOException {
        for (SelectionKey key : selector.keys()) {
            key.channel().close();
        }
        selector.selectNow();
        onTheWire = 0;
    }

    @Override
    public void close() throws IOException {
        closeAll();
        selector.close();
    }
}
