package io.rc10k.stubs;

import io.rc10k.stubs.internal.HostileCounters;
import io.rc10k.stubs.internal.HostileServer;
import io.rc10k.stubs.internal.Listening;
import io.rc10k.stubs.internal.TlsRelay;
import java.io.IOException;
import java.net.URI;
import java.util.Collection;
import java.util.List;

/**
 * A partner that breaks HTTP/1.1 on purpose, one named {@link Misbehaviour} per request: a raw-socket
 * server (not Jetty: it sends bytes no HTTP server would) for testing that a client ends every bad
 * answer as it should and that the next call to the partner is still correct.
 *
 * <pre>{@code
 * try (HostilePartner partner = HostilePartner.builder().maxStallMillis(2_000).build().start()) {
 *     URI broken = partner.uri(Misbehaviour.CHUNK_SIZE_INVALID);   // GET /chunk-size-invalid
 *     // ... call it: a correct client ends the call MALFORMED at once ...
 *     URI fine = partner.uri().resolve("/ok");                     // a correct 200 {"ok":true}
 *     assertEquals(1, partner.requests(Misbehaviour.CHUNK_SIZE_INVALID));
 * }
 * }</pre>
 *
 * <p>{@code GET /ok} answers correctly (keep-alive); {@code GET /<token>} misbehaves, tuned by
 * {@code every} and {@code bytes} where the docs say so; any other path is a 404 listing them all. In
 * chaos mode ({@link Builder#chaos}) any other path is answered correctly, or with probability p by a
 * misbehaviour drawn at random. Every misbehaviour ends within {@link Builder#maxStallMillis}: the
 * partner then closes the connection.</p>
 *
 * <p>With {@link Builder#tls} it is an {@code https} partner: a TLS front on its port relays every
 * connection to the same partner on a loopback port of its own, so each misbehaviour reaches the client
 * inside TLS unchanged, closes and resets included (docs/partner-stubs.md, "Over TLS").</p>
 *
 * <p>Threads: {@code loops} selector threads and one timer, whatever the number of connections; no
 * thread waits for a stalled or trickling one. The TLS front adds an acceptor and two threads per
 * connection, at most {@value #MAX_TLS_CONNECTIONS} connections at once. Counters are thread-safe and
 * raised before the first byte of what they count is written.</p>
 */
public final class HostilePartner extends AbstractHostilePartner implements AutoCloseable {
    public static final long DEFAULT_MAX_STALL_MILLIS = StubOptions.DEFAULT_MAX_STALL_MILLIS;
    public static final long DEFAULT_IDLE_TIMEOUT_MILLIS = StubOptions.DEFAULT_IDLE_TIMEOUT_MILLIS;
    public static final int DEFAULT_LOOPS = 1;
    public static final int MAX_LOOPS = 64;
    /** Connections the TLS front relays at once (two threads each); more wait in the accept queue. */
    public static final int MAX_TLS_CONNECTIONS = 256;

    private final HostileServer.Settings settings;
    private final StubCertificate tls;
    private volatile HostileServer server;
    private volatile TlsRelay relay;

    private HostilePartner(HostileServer.Settings settings, StubCertificate tls) {
        super(settings.listening());
        this.settings = settings;
        this.tls = tls;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Binds and starts serving; returns this. */
    public synchronized HostilePartner start() {
        if (server != null) {
            throw new IllegalStateException("the hostile partner is already running on port " + port());
        }
        if (tls == null) {
            server = listen(settings);
            return this;
        }
        // Over TLS the partner itself listens on a loopback port of its own, behind the relay.
        HostileServer behind = listen(settings.onLoopback());
        try {
            relay = TlsRelay.start(listening.host(), listening.port(), listening.acceptQueue(), tls, behind.port(),
                    MAX_TLS_CONNECTIONS, listening.idleTimeoutMillis());
        } catch (IOException e) {
            behind.stop();
            throw cannotListen(listening, e);
        }
        server = behind;
        return this;
    }

    private static HostileServer listen(HostileServer.Settings settings) {
        try {
            return HostileServer.start(settings);
        } catch (IOException e) {
            throw cannotListen(settings.listening(), e);
        }
    }

    private static IllegalStateException cannotListen(Listening listening, IOException e) {
        return listening.cannotListen("the hostile partner", e);
    }

    /** The port clients connect to (over TLS, the relay's); before {@link #start()}, the port it was built with. */
    public int port() {
        TlsRelay front = relay;
        if (front != null) {
            return front.port();
        }
        HostileServer running = server;
        return running == null ? listening.port() : running.port();
    }

    /** {@code http://host:port} ({@code https://} with {@link Builder#tls}), to {@link URI#resolve(String) resolve} paths against. */
    public URI uri() {
        return URI.create((tls == null ? "http" : "https") + "://" + host() + ":" + port());
    }

    /** The certificate of its TLS front; null for a cleartext partner. */
    public StubCertificate tls() {
        return tls;
    }

    /** Where {@code m} is served: {@code http://host:port/<token>} (or {@code https://}). */
    public URI uri(Misbehaviour m) {
        return uri().resolve("/" + m.token());
    }

    /** How many times {@code m} was acted: asked for by path, drawn by chaos, or at accept. */
    public long requests(Misbehaviour m) {
        return counters().requests(m);
    }

    /** Like {@link #requests(Misbehaviour)}, by token; an unknown token is an {@link IllegalArgumentException}. */
    public long requests(String token) {
        return requests(Misbehaviour.of(token));
    }

    /** Misbehaviours acted, of every kind. */
    public long misbehaviours() {
        return counters().misbehaviours();
    }

    public int loops() {
        return settings.loops();
    }

    /** Whether chaos mode is on: paths other than {@code /ok} and {@code /<token>} get a correct answer or a draw. */
    public boolean chaos() {
        return settings.chaos();
    }

    /** The chance that a chaos request misbehaves; 0 when chaos mode is off. */
    public double chaosProbability() {
        return settings.chaosProbability();
    }

    public long seed() {
        return settings.seed();
    }

    /** What chaos draws from. */
    public List<Misbehaviour> chaosAmong() {
        return settings.chaosAmong();
    }

    /** The misbehaviour every connection gets at accept, before any request; null when off. */
    public Misbehaviour atAccept() {
        return settings.atAccept();
    }

    @Override
    HostileCounters counters() {
        HostileServer running = server;
        if (running == null) {
            throw new IllegalStateException("the hostile partner was not started: call start()");
        }
        return running.counters();
    }

    /** Closes the server socket and every connection (the TLS front's first); the counters stay readable. */
    @Override
    public void close() {
        TlsRelay front = relay;
        if (front != null) {
            front.close();
        }
        HostileServer running = server;
        if (running != null) {
            running.stop();
        }
    }

    @Override
    public String toString() {
        return "HostilePartner{" + settings + (tls == null ? "" : ", tls=" + tls) + "}";
    }

    /** Settings of a hostile partner; each setter checks its value and names it in the error. */
    public static final class Builder extends HostileBuilder<Builder> {
        private int loops = DEFAULT_LOOPS;
        private boolean chaos;
        private double chaosProbability;
        private long seed = StubOptions.DEFAULT_SEED;
        private List<Misbehaviour> chaosAmong = List.of(Misbehaviour.values());
        private Misbehaviour atAccept;
        private StubCertificate tls;

        private Builder() {
        }

        @Override
        Builder self() {
            return this;
        }

        /** Selector threads sharing the connections (default {@value #DEFAULT_LOOPS}). */
        public Builder loops(int loops) {
            if (loops < 1 || loops > MAX_LOOPS) {
                throw new IllegalArgumentException("loops: " + loops + " (accepted: 1 to " + MAX_LOOPS + ")");
            }
            this.loops = loops;
            return this;
        }

        /**
         * Chaos mode: every path that is neither {@code /ok} nor a misbehaviour's is answered with a correct
         * {@code 200 {"ok":true}}, or with probability {@code probability} by a misbehaviour drawn uniformly
         * from {@link #chaosAmong} (every one, by default). The draws come from one generator seeded with
         * {@code seed}: the same seed gives the same sequence of decisions. With probability 0 every such
         * path is answered correctly: a control run.
         */
        public Builder chaos(double probability, long seed) {
            if (!(probability >= 0 && probability <= 1)) {
                throw new IllegalArgumentException("chaos: " + probability + " is not a probability (accepted: 0 to 1,"
                        + " e.g. 0.05)");
            }
            this.chaos = true;
            this.chaosProbability = probability;
            this.seed = seed;
            return this;
        }

        /** What chaos draws from: by default every misbehaviour (each ends within the stall cap). */
        public Builder chaosAmong(Collection<Misbehaviour> among) {
            if (among == null || among.isEmpty()) {
                throw new IllegalArgumentException("chaosAmong: empty (accepted: at least one misbehaviour)");
            }
            this.chaosAmong = List.copyOf(among.stream().distinct().toList());
            return this;
        }

        /**
         * Every connection gets {@code m} the moment it is accepted, before any byte of a request is read —
         * {@code answer-before-read}, {@code close-at-accept} and {@code reset-at-accept} as their names say,
         * any other as unasked-for bytes. What it sends answers the connection's first request; later
         * requests are served by path as usual. Null (the default) turns it off.
         */
        public Builder atAccept(Misbehaviour m) {
            this.atAccept = m;
            return this;
        }

        /**
         * Serve over TLS (1.3 or 1.2, ALPN {@code http/1.1}) with {@code certificate}: a relay on the partner's
         * port takes the handshake and pipes the bytes to the partner, which then listens on a loopback port
         * of its own. Every misbehaviour reaches the client inside TLS as it would in cleartext: the bytes as
         * written, a close as {@code close_notify} and FIN, a reset as a TCP reset. A handshake may take up to
         * {@link #idleTimeoutMillis}. Null (the default) serves cleartext.
         */
        public Builder tls(StubCertificate certificate) {
            this.tls = certificate;
            return this;
        }

        /** A partner with these settings, not yet started. */
        public HostilePartner build() {
            return new HostilePartner(new HostileServer.Settings(listening(), loops, chaos, chaosProbability, seed,
                    chaosAmong, atAccept), tls);
        }
    }
}
