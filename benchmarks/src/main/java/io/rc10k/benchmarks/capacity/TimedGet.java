package io.rc10k.benchmarks.capacity;

import io.rc10k.harness.Http1Heads;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * One kept-alive HTTP/1.1 connection on which one thread sends GETs, one at a time, and times each
 * answer from just before the request is written to the last byte of the body read — on the calling
 * thread, with no client pool or callback hand-off between the socket and the clock.
 *
 * <pre>{@code
 * try (TimedGet get = new TimedGet(server, 90_000)) {
 *     TimedGet.Answer answer = get.send("/mashup/required");
 *     long micros = (answer.answeredNanos() - answer.sentNanos()) / 1_000;
 * }
 * }</pre>
 *
 * Reads only what a mashup answer needs: the status, the head and a body of {@code Content-Length}
 * bytes (the mashup server always sends one). Every read waits at most {@code timeoutMillis}. A failed
 * or {@code Connection: close} exchange closes the connection; the next {@link #send} opens another.
 * Not thread-safe: one per thread.
 */
final class TimedGet implements AutoCloseable {
    private static final int MAX_HEAD = 16 * 1024;
    private static final int MAX_BODY = 1024 * 1024;

    /** One answer; times are {@link System#nanoTime()} values of the calling thread. */
    record Answer(int status, String head, byte[] body, long sentNanos, long answeredNanos) {
        String header(String name) {
            return Http1Heads.header(head, name);
        }
    }

    private final InetSocketAddress address;
    private final String host;
    private final int timeoutMillis;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    TimedGet(URI server, int timeoutMillis) {
        this.address = new InetSocketAddress(server.getHost(), server.getPort());
        this.host = server.getHost() + ":" + server.getPort();
        this.timeoutMillis = timeoutMillis;
    }

    /** Sends {@code GET pathAndQuery} and reads the whole answer; an IOException leaves the connection closed. */
    Answer send(String pathAndQuery) throws IOException {
        try {
            if (socket == null) {
                open();
            }
            byte[] request = ("GET " + pathAndQuery + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1);
            long sent = System.nanoTime();
            out.write(request);
            out.flush();
            String head = readHead();
            long length = Http1Heads.contentLength(head);
            if (length < 0 || length > MAX_BODY) {
                throw new IOException("no usable Content-Length (" + length + ") in: " + firstLine(head));
            }
            byte[] body = in.readNBytes((int) length);
            long answered = System.nanoTime();
            if (body.length < length) {
                throw new IOException("closed after " + body.length + " of " + length + " body bytes");
            }
            if ("close".equalsIgnoreCase(Http1Heads.header(head, "Connection"))) {
                close();
            }
            return new Answer(status(head), head, body, sent, answered);
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private void open() throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(timeoutMillis);
        socket.connect(address, timeoutMillis);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    private String readHead() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream(512);
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException(head.size() == 0 ? "closed before an answer" : "closed within the head");
            }
            head.write(b);
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
            if (head.size() > MAX_HEAD) {
                throw new IOException("a head over " + MAX_HEAD + " bytes");
            }
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    private static int status(String head) throws IOException {
        String line = firstLine(head);
        if (!line.startsWith("HTTP/1.1 ") || line.length() < 12) {
            throw new IOException("not an HTTP/1.1 status line: " + line);
        }
        try {
            return Integer.parseInt(line.substring(9, 12));
        } catch (NumberFormatException e) {
            throw new IOException("not an HTTP/1.1 status line: " + line, e);
        }
    }

    private static String firstLine(String head) {
        int end = head.indexOf('\r');
        return end < 0 ? head : head.substring(0, end);
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // Closing is all that is left to do with it.
            }
            socket = null;
        }
    }
}
