package io.rc10k.broker.fuzz;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * A partner that answers with whatever bytes it is told to, on a loopback socket: a thread per
 * connection reads a request head (up to its blank line), looks up the {@link ResponsePlan} registered
 * for the request's path ({@code /fuzz/ID}), writes its bytes as the plan cuts them, then closes,
 * half-closes or keeps the connection for the next request, as the plan ends. Unlike partner-stubs it
 * knows nothing of HTTP beyond the request head: every byte it sends is the plan's.
 *
 * <pre>{@code
 * try (RawPartner partner = RawPartner.start()) {
 *     RawPartner.Served served = partner.register(7, ResponsePlan.whole("x", bytes, Ending.CLOSE));
 *     broker.send(Call.to("raw").path("fuzz/7").build());
 *     served.written().get(10, TimeUnit.SECONDS);
 * }
 * }</pre>
 *
 * <p>Threading: {@link #register} from any thread; each connection on its own daemon thread.</p>
 */
public final class RawPartner implements AutoCloseable {
    private static final int MAX_HEAD_BYTES = 16 * 1024;

    private final ServerSocket server;
    private final Thread acceptor;
    private final Map<Integer, Served> plans = new ConcurrentHashMap<>();
    private final Map<Socket, Boolean> sockets = new ConcurrentHashMap<>();
    private final AtomicInteger connectionsAccepted = new AtomicInteger();
    /** Connections on which the partner will read another request: not closed, not half-closed. */
    private final AtomicInteger serving = new AtomicInteger();
    private volatile IntConsumer pauseProbe = written -> {
    };
    private volatile boolean closed;

    /** One request's answer: what was asked for, and how far the partner got. */
    public static final class Served {
        final ResponsePlan plan;
        private final CompletableFuture<Request> requested = new CompletableFuture<>();
        private final CompletableFuture<Void> written = new CompletableFuture<>();
        private final CompletableFuture<Void> connectionEnded = new CompletableFuture<>();

        Served(ResponsePlan plan) {
            this.plan = plan;
        }

        /** Completes when the request arrived, with the connection it came on and its place there. */
        public CompletableFuture<Request> requested() {
            return requested;
        }

        /** Completes when every byte went out and the ending was done, or writing failed (the client closed). */
        public CompletableFuture<Void> written() {
            return written;
        }

        /** Completes when the connection that carried the request has ended, on either side. */
        public CompletableFuture<Void> connectionEnded() {
            return connectionEnded;
        }
    }

    /** Where a request came: the connection's number and the request's place on it (1 for the first). */
    public record Request(int connection, int onConnection) {
    }

    private RawPartner(ServerSocket server) {
        this.server = server;
        this.acceptor = new Thread(this::accept, "raw-partner-accept");
        acceptor.setDaemon(true);
    }

    public static RawPartner start() throws IOException {
        RawPartner partner = new RawPartner(new ServerSocket(0, 512, InetAddress.getLoopbackAddress()));
        partner.acceptor.start();
        return partner;
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Called on the connection's thread after each pause, with the bytes of the answer written so far. */
    public void onPause(IntConsumer probe) {
        this.pauseProbe = probe;
    }

    /** The plan for the request to {@code /fuzz/ID}; an unknown path gets its connection closed. */
    public Served register(int id, ResponsePlan plan) {
        Served served = new Served(plan);
        plans.put(id, served);
        return served;
    }

    public void forget(int id) {
        plans.remove(id);
    }

    public int connectionsAccepted() {
        return connectionsAccepted.get();
    }

    /** Connections the partner still reads requests on (neither closed nor half-closed by it). */
    public int connectionsServing() {
        return serving.get();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket socket = server.accept();
                int number = connectionsAccepted.incrementAndGet();
                serving.incrementAndGet();
                sockets.put(socket, Boolean.TRUE);
                Thread thread = new Thread(() -> serve(socket, number), "raw-partner-" + number);
                thread.setDaemon(true);
                thread.start();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("raw partner: accept failed: " + e);
                }
            }
        }
    }

    private void serve(Socket socket, int number) {
        boolean stillServing = true;
        CompletableFuture<Void> ended = new CompletableFuture<>();
        try (socket) {
            socket.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            for (int onConnection = 1; ; onConnection++) {
                String head = readHead(in);
                if (head == null) {
                    return; // the client closed
                }
                Served served = plans.get(id(head));
                if (served == null) {
                    return;
                }
                ended = served.connectionEnded;
                served.requested.complete(new Request(number, onConnection));
                ResponsePlan plan = served.plan;
                try {
                    write(out, plan);
                    switch (plan.ending()) {
                        case CLOSE -> {
                            serving.decrementAndGet();
                            stillServing = false;
                            socket.close();
                            served.written.complete(null);
                            return;
                        }
                        case HALF_CLOSE -> {
                            serving.decrementAndGet();
                            stillServing = false;
                            socket.shutdownOutput();
                            served.written.complete(null);
                            drain(in);
                            return;
                        }
                        case KEEP_OPEN -> served.written.complete(null);
                    }
                } catch (IOException e) {
                    served.written.complete(null); // the client closed first: that is its right
                    return;
                }
            }
        } catch (IOException e) {
            // reset by the client
        } finally {
            if (stillServing) {
                serving.decrementAndGet();
            }
            sockets.remove(socket);
            ended.complete(null);
        }
    }

    private void write(OutputStream out, ResponsePlan plan) throws IOException {
        byte[] bytes = plan.bytes();
        int at = 0;
        for (int i = 0; i < plan.writes().length; i++) {
            out.write(bytes, at, plan.writes()[i]);
            out.flush();
            at += plan.writes()[i];
            if (plan.pauses()[i] > 0) {
                sleep(plan.pauses()[i]);
                pauseProbe.accept(at);
            }
        }
    }

    static void sleep(int millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void drain(InputStream in) throws IOException {
        byte[] sink = new byte[4096];
        while (in.read(sink) >= 0) {
            // until the client closes
        }
    }

    private static int id(String head) {
        // "GET /fuzz/123 HTTP/1.1"
        int start = head.indexOf("/fuzz/");
        if (start < 0) {
            return -1;
        }
        int end = start + 6;
        while (end < head.length() && Character.isDigit(head.charAt(end))) {
            end++;
        }
        try {
            return Integer.parseInt(head.substring(start + 6, end));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The request head up to its blank line; null at the end of the stream. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream(256);
        int matched = 0;
        while (matched < 4) {
            int b;
            try {
                b = in.read();
            } catch (SocketException reset) {
                return null;
            }
            if (b < 0) {
                return null;
            }
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
            if (head.size() > MAX_HEAD_BYTES) {
                throw new IOException("request head over " + MAX_HEAD_BYTES + " bytes");
            }
        }
        return head.toString(StandardCharsets.ISO_8859_1);
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
