package io.rc10k.broker.fuzz;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackDecoder;
import org.eclipse.jetty.http2.hpack.HpackException;

/**
 * An h2c partner (prior knowledge) that answers with whatever frames it is told to: each connection it
 * accepts takes the next {@link H2Plan} given to {@link #next}, and on a thread of its own reads the client's
 * preface and SETTINGS (kept for the judge), writes the plan's early bytes (the server's SETTINGS, which a
 * client may wait for), reads until the client's request HEADERS (and CONTINUATIONs, decoded with Jetty's
 * {@link HpackDecoder} as a server must), then writes the rest for the request's stream, as the plan cuts
 * them, and ends as the plan says. It serves one request a connection; afterwards it reads and drops what
 * the client sends until the client closes or {@link Served#end()} closes the connection.
 *
 * <pre>{@code
 * try (RawH2Partner partner = RawH2Partner.start()) {
 *     RawH2Partner.Served served = partner.next(plan);
 *     broker.send(Call.to("raw").path("x").build());
 *     served.requested().get(10, TimeUnit.SECONDS).meant();
 * }
 * }</pre>
 *
 * <p>Threading: {@link #next} from any thread; each connection on its own daemon thread.</p>
 */
final class RawH2Partner implements AutoCloseable {
    /** The largest frame the partner reads from the client. */
    private static final int MAX_CLIENT_FRAME = 1 << 20;

    private final ServerSocket server;
    private final Thread acceptor;
    private final AtomicReference<Served> next = new AtomicReference<>();
    private final AtomicInteger unplanned = new AtomicInteger();
    private final Map<Socket, Boolean> sockets = new ConcurrentHashMap<>();
    private final AtomicInteger connectionsAccepted = new AtomicInteger();
    private volatile IntConsumer pauseProbe = written -> {
    };
    private volatile boolean closed;

    /**
     * What happened on the connection: the client's SETTINGS (identifier to value), whether its request came and on
     * which stream (1 when it did not), how many bytes went before it, and the bytes the client was meant to read.
     */
    record Request(int connection, int clientStream, Map<Integer, Long> clientSettings, boolean seen, int early,
            byte[] meant) {
    }

    /** One request's answer: what was asked for, and how far the partner got. */
    static final class Served {
        final H2Plan plan;
        private final CompletableFuture<Request> requested = new CompletableFuture<>();
        private final CompletableFuture<Void> written = new CompletableFuture<>();
        private final CompletableFuture<Void> connectionEnded = new CompletableFuture<>();
        private final CompletableFuture<Void> taken = new CompletableFuture<>();
        private final AtomicInteger connections = new AtomicInteger();
        private volatile Socket socket;
        /** Set when the request's headers came. */
        private volatile boolean seen;

        Served(H2Plan plan) {
            this.plan = plan;
        }

        /** Completes when the request came and its answer is out, or the connection ended first. */
        CompletableFuture<Request> requested() {
            return requested;
        }

        /** Completes when every byte went out and the ending was done, or writing failed (the client closed). */
        CompletableFuture<Void> written() {
            return written;
        }

        /** Completes when the connection that carried the request has ended, on either side. */
        CompletableFuture<Void> connectionEnded() {
            return connectionEnded;
        }

        /** True once the request's headers came. */
        boolean seen() {
            return seen;
        }

        /** Completes when a connection has come for this plan. */
        CompletableFuture<Void> taken() {
            return taken;
        }

        /** Connections that came for this plan (one). */
        int connections() {
            return connections.get();
        }

        /** Closes the request's connection from the partner's side (the try is over). */
        void end() {
            Socket open = socket;
            if (open != null) {
                try {
                    open.close();
                } catch (IOException e) {
                    // closed already
                }
            }
        }
    }

    private RawH2Partner(ServerSocket server) {
        this.server = server;
        this.acceptor = new Thread(this::accept, "raw-h2-partner-accept");
        acceptor.setDaemon(true);
    }

    static RawH2Partner start() throws IOException {
        RawH2Partner partner = new RawH2Partner(new ServerSocket(0, 512, InetAddress.getLoopbackAddress()));
        partner.acceptor.start();
        return partner;
    }

    int port() {
        return server.getLocalPort();
    }

    /** Called on the connection's thread after each pause, with the bytes of the answer written so far. */
    void onPause(IntConsumer probe) {
        this.pauseProbe = probe;
    }

    /** The plan for the next connection the partner accepts, in place of one no connection took. */
    Served next(H2Plan plan) {
        Served served = new Served(plan);
        next.set(served);
        return served;
    }

    /** Connections accepted with no plan waiting: the client opened one nobody expected; closed at once. */
    int unplanned() {
        return unplanned.get();
    }

    int connectionsAccepted() {
        return connectionsAccepted.get();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket socket = server.accept();
                int number = connectionsAccepted.incrementAndGet();
                sockets.put(socket, Boolean.TRUE);
                Thread thread = new Thread(() -> serve(socket, number), "raw-h2-partner-" + number);
                thread.setDaemon(true);
                thread.start();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("raw h2 partner: accept failed: " + e);
                }
            }
        }
    }

    private void serve(Socket socket, int number) {
        Served served = next.getAndSet(null);
        if (served == null) {
            unplanned.incrementAndGet();
            closeQuietly(socket);
            sockets.remove(socket);
            return;
        }
        served.socket = socket;
        served.connections.incrementAndGet();
        served.taken.complete(null);
        H2Plan plan = served.plan;
        Map<Integer, Long> settings = new TreeMap<>();
        int stream = 1;
        boolean seen = false;
        byte[] meant = plan.bytes(1);
        int early = plan.earlyLength();
        try (socket) {
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            OutputStream out = socket.getOutputStream();
            H2Frames.readPreface(in);
            H2Frames.Frame first = H2Frames.read(in, MAX_CLIENT_FRAME);
            if (first != null && first.type() == H2Frames.SETTINGS) {
                readSettings(first.payload(), settings);
            }
            // The server's preface before the request: a client may wait for it (Jetty's does).
            out.write(meant, 0, early);
            out.flush();
            if (early < meant.length) {
                HpackDecoder decoder = new HpackDecoder(64 * 1024, System::nanoTime);
                ByteArrayOutputStream block = new ByteArrayOutputStream();
                while (!seen) {
                    H2Frames.Frame frame = H2Frames.read(in, MAX_CLIENT_FRAME);
                    if (frame == null) {
                        return;
                    }
                    if (frame.type() == H2Frames.HEADERS || frame.type() == H2Frames.CONTINUATION) {
                        stream = frame.streamId();
                        block.writeBytes(headerFragment(frame));
                        if ((frame.flags() & H2Frames.END_HEADERS) != 0) {
                            path(decoder, block.toByteArray()); // decoded as a server must, then not needed
                            seen = true;
                            served.seen = true;
                        }
                    }
                }
                byte[] forStream = plan.bytes(stream);
                System.arraycopy(forStream, early, meant, early, meant.length - early);
                write(out, meant, early, plan.cut());
            }
            served.requested.complete(new Request(number, stream, Map.copyOf(settings), seen, early, meant));
            switch (plan.ending()) {
                case CLOSE -> socket.shutdownOutput();
                case RESET -> {
                    socket.setSoLinger(true, 0);
                    socket.close();
                }
                case KEEP_OPEN -> {
                }
            }
            served.written.complete(null);
            RawPartner.drain(in);
        } catch (IOException | HpackException e) {
            // the client closed or reset, or the test ended the connection
        } finally {
            // Without the request, the client was meant to read the server's preface alone.
            served.requested.complete(new Request(number, stream, Map.copyOf(settings), seen, early,
                    seen ? meant : Arrays.copyOf(meant, early)));
            served.written.complete(null);
            sockets.remove(socket);
            served.connectionEnded.complete(null);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closed already
        }
    }

    private static void readSettings(byte[] payload, Map<Integer, Long> settings) {
        for (int i = 0; i + 6 <= payload.length; i += 6) {
            int id = ((payload[i] & 0xFF) << 8) | (payload[i + 1] & 0xFF);
            long value = ByteBuffer.wrap(payload, i + 2, 4).getInt() & 0xFFFF_FFFFL;
            settings.put(id, value);
        }
    }

    /** The header block fragment of a HEADERS or CONTINUATION frame from the client, padding and priority cut off. */
    private static byte[] headerFragment(H2Frames.Frame frame) {
        byte[] p = frame.payload();
        int from = 0;
        int to = p.length;
        if (frame.type() == H2Frames.HEADERS) {
            if ((frame.flags() & H2Frames.PADDED) != 0) {
                to -= p[0] & 0xFF;
                from = 1;
            }
            if ((frame.flags() & H2Frames.PRIORITY_FLAG) != 0) {
                from += 5;
            }
        }
        return Arrays.copyOfRange(p, from, Math.max(from, to));
    }

    private static String path(HpackDecoder decoder, byte[] block) throws HpackException {
        MetaData metaData = decoder.decode(ByteBuffer.wrap(block));
        return metaData instanceof MetaData.Request request ? request.getHttpURI().getPath() : null;
    }

    /** The bytes from {@code from} on, cut as the plan says. */
    private void write(OutputStream out, byte[] bytes, int from, H2Plan.Cut cut) throws IOException {
        int[] writes = cut.writes(bytes.length - from);
        int at = from;
        for (int i = 0; i < writes.length; i++) {
            out.write(bytes, at, writes[i]);
            out.flush();
            at += writes[i];
            if (i == cut.pauseAfter() && cut.pauseMillis() > 0) {
                RawPartner.sleep(cut.pauseMillis());
                pauseProbe.accept(at);
            }
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Socket socket : sockets.keySet()) {
            socket.close();
        }
    }
}
