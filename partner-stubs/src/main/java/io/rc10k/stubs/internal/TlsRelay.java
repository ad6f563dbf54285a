package io.rc10k.stubs.internal;

import io.rc10k.stubs.StubCertificate;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TLS front for a cleartext server on loopback (the hostile partner's): it accepts TLS 1.3 or 1.2 with a
 * {@link StubCertificate} and relays bytes both ways, one backend connection per TLS connection, opened
 * once the handshake is done. What the backend does to its connection reaches the client inside TLS
 * unchanged: its bytes as they come (each read goes out at once as TLS records), its close (FIN) as
 * {@code close_notify} and FIN, its reset (RST) as a reset of the TCP connection under TLS (SO_LINGER 0,
 * no {@code close_notify}); the client's close and reset reach the backend the same way. An end is an EOF
 * read on either side (passed on as a close) or a read or write that failed (passed on as a reset).
 *
 * <pre>{@code
 * TlsRelay relay = TlsRelay.start("127.0.0.1", 0, 4096, certificate, backendPort, 256, 30_000);
 * // https://127.0.0.1:<relay.port()> now reaches the backend over TLS
 * relay.close();
 * }</pre>
 *
 * <p>Blocking sockets, so threads: {@code hostile-tls-<port>-accept}, and per connection
 * {@code hostile-tls-<port>-<n>-in} (the handshake, then client to backend) and {@code -out} (backend to
 * client), all daemons. At most {@code maxConnections} connections are relayed at once (two threads each);
 * more wait in the accept queue until one ends. {@link #close()} closes the server socket and every
 * connection, which ends every thread. ALPN offers {@code http/1.1} only: the backend speaks nothing else.
 * Randoms come from DRBG, as in the stubs' HTTPS mode.</p>
 */
public final class TlsRelay implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TlsRelay.class);
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
    private static final int BUFFER_BYTES = 16 * 1024;
    private static final int CONNECT_TIMEOUT_MILLIS = 10_000;
    private static final long JOIN_MILLIS = 5_000;

    private final ServerSocket server;
    private final SSLSocketFactory tls;
    private final InetSocketAddress backend;
    private final int handshakeTimeoutMillis;
    private final Semaphore permits;
    private final String prefix;
    private final Set<Pipe> pipes = ConcurrentHashMap.newKeySet();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final AtomicLong accepted = new AtomicLong();
    private final Thread acceptor;
    private volatile boolean closed;

    private TlsRelay(ServerSocket server, SSLSocketFactory tls, InetSocketAddress backend, int maxConnections,
            int handshakeTimeoutMillis) {
        this.server = server;
        this.tls = tls;
        this.backend = backend;
        this.handshakeTimeoutMillis = handshakeTimeoutMillis;
        this.permits = new Semaphore(maxConnections);
        this.prefix = "hostile-tls-" + server.getLocalPort() + "-";
        this.acceptor = new Thread(this::accept, prefix + "accept");
        acceptor.setDaemon(true);
    }

    /**
     * Binds {@code host:port} and relays to {@code backendPort} on loopback.
     *
     * @param maxConnections connections relayed at once; past it, new ones wait in the accept queue
     * @param handshakeTimeoutMillis how long a client may take to finish its handshake
     */
    public static TlsRelay start(String host, int port, int acceptQueue, StubCertificate certificate, int backendPort,
            int maxConnections, long handshakeTimeoutMillis) throws IOException {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections: " + maxConnections + " < 1");
        }
        SSLSocketFactory tls = socketFactory(certificate);
        ServerSocket server = new ServerSocket();
        try {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(host, port), acceptQueue);
        } catch (IOException e) {
            server.close();
            throw e;
        }
        TlsRelay relay = new TlsRelay(server, tls, new InetSocketAddress(InetAddress.getLoopbackAddress(),
                backendPort), maxConnections, (int) Math.min(Integer.MAX_VALUE, handshakeTimeoutMillis));
        relay.acceptor.start();
        return relay;
    }

    private static SSLSocketFactory socketFactory(StubCertificate certificate) {
        try {
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(certificate.keyStore(), StubCertificate.PASSWORD.toCharArray());
            SSLContext context = SSLContext.getInstance("TLS");
            // Not NativePRNG, which reads /dev/urandom for every handshake's randoms.
            context.init(keys.getKeyManagers(), null, SecureRandom.getInstance("DRBG"));
            return context.getSocketFactory();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot serve TLS with " + certificate + ": " + e, e);
        }
    }

    /** The port clients connect to. */
    public int port() {
        return server.getLocalPort();
    }

    /** TCP connections accepted since start, handshakes that failed included. */
    public long connectionsAccepted() {
        return accepted.get();
    }

    /** Connections being relayed (or handshaking) now. */
    public int connectionsOpen() {
        return pipes.size();
    }

    private void accept() {
        while (!closed) {
            try {
                permits.acquire();
            } catch (InterruptedException e) {
                return; // closing
            }
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                permits.release();
                if (!closed) {
                    LOG.warn("TLS relay on port {}: accept failed", port(), e);
                }
                continue;
            }
            accepted.incrementAndGet();
            Pipe pipe = new Pipe(client, prefix + accepted.get());
            pipes.add(pipe);
            if (closed) {
                pipe.end(Side.BACKEND, true); // close() may have passed this one by
                continue;
            }
            pipe.start(pipe.name + "-in", pipe::clientToBackend);
        }
    }

    /** Closes the server socket and every connection (reset, no {@code close_notify}); waits a few seconds for the threads. */
    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            LOG.debug("closing the TLS relay's server socket: {}", e.toString());
        }
        acceptor.interrupt();
        for (Pipe pipe : pipes) {
            pipe.end(Side.BACKEND, true);
        }
        long deadline = System.nanoTime() + JOIN_MILLIS * 1_000_000;
        threads.add(acceptor);
        for (Thread thread : threads) {
            try {
                thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The side of a relayed connection whose read ended (EOF or failure) or whose write failed. */
    private enum Side { CLIENT, BACKEND }

    /** One relayed connection: the client's TCP socket under TLS, and its own connection to the backend. */
    private final class Pipe {
        private final Socket client;
        private final String name;
        private final AtomicBoolean ended = new AtomicBoolean();
        private volatile SSLSocket secure;
        private volatile Socket cleartext;

        Pipe(Socket client, String name) {
            this.client = client;
            this.name = name;
        }

        void start(String threadName, Runnable task) {
            Thread thread = new Thread(task, threadName);
            thread.setDaemon(true);
            threads.removeIf(t -> !t.isAlive());
            threads.add(thread);
            thread.start();
        }

        /** The {@code -in} thread: handshake, connect to the backend, start {@code -out}, then relay. */
        void clientToBackend() {
            try {
                client.setTcpNoDelay(true);
                client.setSoTimeout(handshakeTimeoutMillis);
                SSLSocket socket = (SSLSocket) tls.createSocket(client, null, true);
                SSLParameters parameters = socket.getSSLParameters();
                parameters.setProtocols(PROTOCOLS);
                parameters.setApplicationProtocols(new String[] {"http/1.1"});
                socket.setSSLParameters(parameters);
                secure = socket;
                socket.startHandshake();
                client.setSoTimeout(0);
                Socket connection = new Socket();
                connection.setTcpNoDelay(true);
                cleartext = connection;
                if (ended.get()) {
                    connection.close(); // the relay closed during the handshake
                    return;
                }
                connection.connect(backend, CONNECT_TIMEOUT_MILLIS);
            } catch (IOException e) {
                LOG.debug("{}: no relay: {}", name, e.toString());
                end(Side.CLIENT, true);
                return;
            }
            start(name + "-out", () -> relay(cleartext, secure, Side.BACKEND));
            relay(secure, cleartext, Side.CLIENT);
        }

        /** Copies {@code from}'s bytes to {@code to} as they come, until an end on either side. */
        private void relay(Socket from, Socket to, Side reading) {
            Side writing = reading == Side.CLIENT ? Side.BACKEND : Side.CLIENT;
            byte[] buffer = new byte[BUFFER_BYTES];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                while (true) {
                    int n;
                    try {
                        n = in.read(buffer);
                    } catch (IOException e) {
                        end(reading, true);
                        return;
                    }
                    if (n < 0) {
                        end(reading, false);
                        return;
                    }
                    try {
                        out.write(buffer, 0, n);
                        out.flush();
                    } catch (IOException e) {
                        end(writing, true);
                        return;
                    }
                }
            } catch (IOException e) { // a stream could not be had: the socket is closed already
                end(reading, true);
            }
        }

        /**
         * The first end wins: {@code side} closed (EOF) or broke ({@code reset}); the other side is told the
         * same way — closed with {@code close_notify} and FIN, or reset — and both sockets are closed.
         */
        void end(Side side, boolean reset) {
            if (!ended.compareAndSet(false, true)) {
                return;
            }
            Socket backendSocket = cleartext;
            if (side == Side.BACKEND) {
                if (reset) {
                    abort(client);
                } else {
                    closeTls();
                }
                closeQuietly(backendSocket);
            } else {
                if (backendSocket != null && reset) {
                    abort(backendSocket);
                } else {
                    closeQuietly(backendSocket);
                }
                closeQuietly(client);
            }
            pipes.remove(this);
            permits.release();
        }

        /** {@code close_notify}, then FIN, as the hostile partner's own graceful close (shutdownOutput, close). */
        private void closeTls() {
            SSLSocket socket = secure;
            try {
                if (socket != null) {
                    socket.shutdownOutput();
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("{}: close_notify: {}", name, e.toString());
            }
            closeQuietly(client);
        }

        /** RST: SO_LINGER 0 on the TCP socket itself, so that no {@code close_notify} goes out first. */
        private void abort(Socket socket) {
            try {
                socket.setSoLinger(true, 0);
            } catch (IOException e) {
                LOG.debug("{}: SO_LINGER 0: {}", name, e.toString());
            }
            closeQuietly(socket);
        }

        private void closeQuietly(Socket socket) {
            if (socket == null) {
                return;
            }
            try {
                socket.close();
            } catch (IOException e) {
                LOG.debug("{}: close: {}", name, e.toString());
            }
        }
    }
}
