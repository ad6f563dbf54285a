package io.rc10k.benchmarks.efficiency;

import io.rc10k.harness.Http1Heads;
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

/**
 * A closed-loop HTTP/1.1 load generator for efficiency runs: N kept-alive connections, each with one
 * GET on the wire at a time and the next sent as soon as the answer is in, all on one selector thread.
 * Cheap on purpose — on a 2-core machine its CPU competes with the process under test — so it parses
 * only the status line, {@code Content-Length} or a chunked body's chunk sizes (nginx's server-side includes
 * stream their page), and {@code Mashup-Complete}:
 * a 200 that says {@code Mashup-Complete: false} (a part failed) counts failed. Connection set-up
 * is paid once per run, not per request, so the servers' CPU goes to requests, not to accepts.
 * Not thread-safe; one {@link #run} at a time.
 */
final class KeepAliveLoad {
    /** What a run saw. */
    record Result(long ok, long failed, String firstFailure, long elapsedNanos) {
        double perSecond() {
            return ok * 1e9 / elapsedNanos;
        }
    }

    private static final int BUFFER = 16 * 1024;
    private static final long DRAIN_MILLIS = 15_000;

    private final InetSocketAddress address;
    private final byte[] request;
    private long ok;
    private long failed;
    private String firstFailure;
    private boolean sending;
    private int onTheWire;

    /** One connection: its channel and what it has read of the current answer. */
    private static final class Connection {
        final SocketChannel channel;
        ByteBuffer in = ByteBuffer.allocate(BUFFER);

        Connection(SocketChannel channel) {
            this.channel = channel;
        }
    }

    KeepAliveLoad(URI target) {
        this.address = new InetSocketAddress(target.getHost(), target.getPort());
        String path = target.getRawPath() == null || target.getRawPath().isEmpty() ? "/" : target.getRawPath();
        String pathAndQuery = path + (target.getRawQuery() == null ? "" : "?" + target.getRawQuery());
        this.request = ("GET " + pathAndQuery + " HTTP/1.1\r\nHost: " + target.getHost() + ":" + target.getPort()
                + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
    }

    /**
     * Keeps {@code connections} requests in flight for {@code millis}, then stops sending, waits
     * (bounded) for the answers still due, and closes every connection. Returns once all that is done,
     * so whatever the server spent meanwhile was spent on the requests counted.
     */
    Result run(int connections, long millis) throws IOException {
        ok = 0;
        failed = 0;
        firstFailure = null;
        onTheWire = 0;
        sending = true;
        long start = System.nanoTime();
        long end = start + millis * 1_000_000;
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < connections; i++) {
                open(selector);
            }
            while (System.nanoTime() < end) {
                poll(selector, Math.max(1, (end - System.nanoTime()) / 1_000_000));
            }
            sending = false;
            long drainEnd = System.nanoTime() + DRAIN_MILLIS * 1_000_000;
            while (onTheWire > 0 && System.nanoTime() < drainEnd) {
                poll(selector, 100);
            }
            long elapsed = System.nanoTime() - start;
            if (onTheWire > 0) {
                failed += onTheWire - 1;
                fail(onTheWire + " answers missing " + DRAIN_MILLIS + " ms after the last request");
            }
            for (SelectionKey key : selector.keys()) {
                key.channel().close();
            }
            return new Result(ok, failed, firstFailure, elapsed);
        }
    }

    private void open(Selector selector) throws IOException {
        SocketChannel channel = SocketChannel.open(address);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        channel.configureBlocking(false);
        Connection connection = new Connection(channel);
        channel.register(selector, SelectionKey.OP_READ, connection);
        send(connection);
    }

    private void poll(Selector selector, long waitMillis) throws IOException {
        try {
            selector.select(key -> {
                try {
                    ready(selector, key);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, waitMillis);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** Reads what came on the key's connection; a connection that broke is replaced while the run lasts. */
    private void ready(Selector selector, SelectionKey key) throws IOException {
        Connection connection = (Connection) key.attachment();
        try {
            read(connection);
        } catch (IOException e) {
            // Its answer is lost; a fresh connection takes its place.
            onTheWire--;
            fail(e.toString());
            key.channel().close();
            if (sending) {
                open(selector);
            }
        }
    }

    private void send(Connection connection) throws IOException {
        ByteBuffer out = ByteBuffer.wrap(request);
        while (out.hasRemaining()) {
            // One small request per connection at a time: the socket buffer is empty, a write rarely splits.
            connection.channel.write(out);
        }
        onTheWire++;
    }

    private void read(Connection connection) throws IOException {
        ByteBuffer in = connection.in;
        if (connection.channel.read(in) < 0) {
            throw new IOException("closed by the server");
        }
        int headersEnd = Http1Heads.endOfHead(in.array(), in.position());
        if (headersEnd < 0) {
            grow(connection);
            return;
        }
        String headers = new String(in.array(), 0, headersEnd, StandardCharsets.ISO_8859_1);
        long length = Http1Heads.contentLength(headers);
        long total;
        if (length >= 0) {
            total = headersEnd + 4 + length;
        } else if ("chunked".equalsIgnoreCase(Http1Heads.header(headers, "Transfer-Encoding"))) {
            total = chunkedEnd(in.array(), headersEnd + 4, in.position());
            if (total < 0) {
                grow(connection);
                return;
            }
            length = total - headersEnd - 4;
        } else {
            throw new IOException("no Content-Length in " + headers.substring(0, headers.indexOf('\r')));
        }
        if (in.position() < total) {
            if (total > in.capacity()) {
                ByteBuffer bigger = ByteBuffer.allocate((int) total);
                in.flip();
                bigger.put(in);
                connection.in = bigger;
            }
            return;
        }
        if (in.position() > total) {
            throw new IOException("more bytes than one answer: the server answered a request not sent");
        }
        // A 200 composite may still lack a part (a call that failed to connect, say): that is not a mashup done.
        boolean incomplete = "false".equals(Http1Heads.header(headers, "Mashup-Complete"));
        if (headers.startsWith("HTTP/1.1 200 ") && !incomplete) {
            ok++;
        } else {
            fail(headers.substring(0, headers.indexOf('\r')) + (incomplete ? ", Mashup-Complete: false: "
                    + new String(in.array(), headersEnd + 4, (int) Math.min(length, 300), StandardCharsets.ISO_8859_1)
                    : ""));
        }
        in.clear();
        onTheWire--;
        if (sending) {
            send(connection);
        }
    }

    /**
     * Where the chunked body that starts at {@code from} ends (past its last chunk and the empty trailer), or -1
     * while the bytes up to {@code limit} do not hold all of it.
     */
    static long chunkedEnd(byte[] bytes, int from, int limit) throws IOException {
        int at = from;
        while (true) {
            int lineEnd = indexOfCrLf(bytes, at, limit);
            if (lineEnd < 0) {
                return -1;
            }
            long size = 0;
            for (int i = at; i < lineEnd && bytes[i] != ';'; i++) {
                int digit = Character.digit(bytes[i], 16);
                if (digit < 0 || size > Integer.MAX_VALUE) {
                    throw new IOException("bad chunk size line: "
                            + new String(bytes, at, lineEnd - at, StandardCharsets.ISO_8859_1));
                }
                size = size * 16 + digit;
            }
            if (size == 0) {
                // No trailers expected: the last chunk's line is followed by the blank line that ends the body.
                return lineEnd + 4 <= limit ? lineEnd + 4 : -1;
            }
            at = (int) (lineEnd + 2 + size + 2);
            if (at > limit) {
                return -1;
            }
        }
    }

    private static int indexOfCrLf(byte[] bytes, int from, int limit) {
        for (int i = from + 1; i < limit; i++) {
            if (bytes[i] == '\n' && bytes[i - 1] == '\r') {
                return i - 1;
            }
        }
        return -1;
    }

    private static void grow(Connection connection) {
        if (!connection.in.hasRemaining()) {
            ByteBuffer bigger = ByteBuffer.allocate(connection.in.capacity() * 2);
            connection.in.flip();
            bigger.put(connection.in);
            connection.in = bigger;
        }
    }

    private void fail(String why) {
        failed++;
        if (firstFailure == null) {
            firstFailure = why;
        }
    }
}
