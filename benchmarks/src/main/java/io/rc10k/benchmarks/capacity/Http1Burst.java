package io.rc10k.benchmarks.capacity;

import io.rc10k.harness.Http1Heads;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * A minimal HTTP/1.1 load generator for capacity runs: N connections opened at once, one GET each,
 * all on one selector thread. Jetty's client pays for pooling and listeners that a burst of one-shot
 * connections does not need; on a 2-core machine its CPU would starve the process under test.
 * Only what a burst needs is parsed: the status line, {@code Content-Length} and, when asked for, one
 * header that a 200 must carry to count as OK (a mashup's {@code Mashup-Complete: true}).
 * Not thread-safe; one burst per instance, read {@link #answers()} after {@link #run} returned.
 */
public final class Http1Burst {
    /** What the burst saw; times are {@link System#nanoTime()} values. */
    public record Outcome(int ok, int failed, String firstFailure, long firstSentNanos, long lastSentNanos,
            long lastAnsweredNanos) {
    }

    private static final int RESPONSE_BUFFER = 8 * 1024;

    private final InetSocketAddress address;
    private final byte[] request;
    private final String requiredName;
    private final String requiredValue;
    private final Map<String, Integer> answers = new TreeMap<>();
    private int ok;
    private int failed;
    private String firstFailure;
    private long lastSent;
    private long lastAnswered;

    public Http1Burst(URI target) {
        this(target, null, null);
    }

    /** A burst whose 200s count as OK only when they carry {@code name: value} (name case-insensitive). */
    public Http1Burst(URI target, String requiredName, String requiredValue) {
        this.requiredName = requiredName;
        this.requiredValue = requiredValue;
        this.address = new InetSocketAddress(target.getHost(), target.getPort());
        String pathAndQuery = target.getRawPath() + (target.getRawQuery() == null ? "" : "?" + target.getRawQuery());
        this.request = ("GET " + pathAndQuery + " HTTP/1.1\r\nHost: " + target.getHost() + ":" + target.getPort()
                + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Runs {@code connections} requests at once and returns when all ended or {@code timeoutMillis} passed. */
    public Outcome run(int connections, long timeoutMillis) throws IOException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        int open = 0;
        long first = System.nanoTime();
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < connections; i++) {
                SocketChannel channel = null;
                try {
                    channel = SocketChannel.open();
                    channel.configureBlocking(false);
                    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    if (channel.connect(address)) {
                        send(channel, selector);
                    } else {
                        channel.register(selector, SelectionKey.OP_CONNECT);
                    }
                    open++;
                } catch (IOException e) {
                    // One connection that cannot open (file limit, refused) fails alone; the burst goes on.
                    fail(e.toString());
                    if (channel != null) {
                        channel.close();
                    }
                }
                // Serve what is ready between connects, so early answers are not held back.
                if (i % 256 == 0) {
                    open -= poll(selector, 0);
                }
            }
            while (open > 0 && System.nanoTime() < deadline) {
                open -= poll(selector, 100);
            }
            for (SelectionKey key : selector.keys()) {
                // Keys of channels closed above stay in the set, cancelled, until the next select.
                if (key.isValid()) {
                    fail("no answer within " + timeoutMillis + " ms");
                }
                key.channel().close();
            }
        }
        return new Outcome(ok, failed, firstFailure, first, lastSent, lastAnswered);
    }

    /**
     * Responses received, by status code; a 200 without the required header is counted apart, under
     * {@code "200 without <name>: <value>"}. Connections that failed before an answer are not here.
     */
    public Map<String, Integer> answers() {
        return new TreeMap<>(answers);
    }

    /** Handles ready channels; returns how many connections ended. */
    private int poll(Selector selector, long waitMillis) throws IOException {
        int n = waitMillis == 0 ? selector.selectNow() : selector.select(waitMillis);
        if (n == 0) {
            return 0;
        }
        int ended = 0;
        Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
        while (keys.hasNext()) {
            SelectionKey key = keys.next();
            keys.remove();
            SocketChannel channel = (SocketChannel) key.channel();
            try {
                if (key.isConnectable()) {
                    channel.finishConnect();
                    send(channel, selector);
                } else if (key.isReadable() && read(channel, (ByteBuffer) key.attachment())) {
                    channel.close();
                    ended++;
                }
            } catch (IOException e) {
                fail(e.toString());
                channel.close();
                ended++;
            }
        }
        return ended;
    }

    private void send(SocketChannel channel, Selector selector) throws IOException {
        ByteBuffer out = ByteBuffer.wrap(request);
        while (out.hasRemaining()) {
            // A request of a hundred bytes fits any fresh socket buffer; no OP_WRITE dance is needed.
            if (channel.write(out) == 0) {
                throw new IOException("socket buffer full on a fresh connection");
            }
        }
        lastSent = System.nanoTime();
        channel.register(selector, SelectionKey.OP_READ, ByteBuffer.allocate(RESPONSE_BUFFER));
    }

    /** Reads what is there; returns true once the response is complete (or the peer closed). */
    private boolean read(SocketChannel channel, ByteBuffer in) throws IOException {
        int n = channel.read(in);
        String text = new String(in.array(), 0, in.position(), StandardCharsets.ISO_8859_1);
        int headersEnd = text.indexOf("\r\n\r\n");
        if (headersEnd >= 0) {
            long length = Http1Heads.contentLength(text.substring(0, headersEnd));
            if (length >= 0 && in.position() - headersEnd - 4 >= length) {
                answered(text, headersEnd);
                return true;
            }
        }
        if (n < 0) {
            fail(headersEnd < 0 ? "closed before headers" : "closed before the whole body");
            return true;
        }
        if (!in.hasRemaining()) {
            fail("response larger than " + RESPONSE_BUFFER + " bytes");
            return true;
        }
        return false;
    }

    private void answered(String text, int headersEnd) {
        lastAnswered = System.nanoTime();
        String status = text.length() >= 12 ? text.substring(9, 12) : "?";
        if (status.equals("200") && requiredName != null && !carriesRequired(text.substring(0, headersEnd))) {
            String key = "200 without " + requiredName + ": " + requiredValue;
            answers.merge(key, 1, Integer::sum);
            fail(key);
            return;
        }
        answers.merge(status, 1, Integer::sum);
        if (status.equals("200")) {
            ok++;
        } else {
            fail(text.substring(0, Math.min(text.indexOf('\r'), 40)));
        }
    }

    private boolean carriesRequired(String head) {
        return requiredValue.equals(Http1Heads.header(head, requiredName));
    }

    private void fail(String why) {
        failed++;
        if (firstFailure == null) {
            firstFailure = why;
        }
    }
}
