package io.rc10k.stubs;

import io.rc10k.stubs.internal.HostileCounters;
import io.rc10k.stubs.internal.H2Server;
import java.io.IOException;
import java.net.URI;

/**
 * A partner that breaks HTTP/2 on purpose over cleartext (h2c, prior knowledge), one named
 * {@link H2Misbehaviour} per request: a raw-socket server that reads the client's preface and frames, decodes
 * its header blocks with Jetty's HPACK decoder, and writes its own frames by hand, for testing that an h2c
 * client ends every bad answer as it should and that its next call to the partner is still correct.
 *
 * <pre>{@code
 * try (HostileH2Partner partner = HostileH2Partner.builder().maxStallMillis(2_000).build().start()) {
 *     URI broken = partner.uri(H2Misbehaviour.BAD_HPACK);    // h2c GET /bad-hpack
 *     // ... call it: a correct client ends the call MALFORMED at once ...
 *     URI fine = partner.uri().resolve("/ok");              // a correct 200 {"ok":true}
 *     assertEquals(1, partner.requests(H2Misbehaviour.BAD_HPACK));
 * }
 * }</pre>
 *
 * <p>{@code GET /ok} answers correctly on a kept connection; {@code GET /<token>} misbehaves on that stream
 * (or on the whole connection, where the misbehaviour says so); any other path is a 404 listing them. It
 * answers SETTINGS and PING, honours the client's SETTINGS_MAX_FRAME_SIZE and flow-control windows (except
 * where a misbehaviour breaks them) and serves many streams on one connection. Every misbehaviour that leaves
 * a stream unanswered holds the connection at most {@link Builder#maxStallMillis}: the partner then closes it.</p>
 *
 * <p>Threads: one acceptor, one timer, and one thread per open connection from a pool of at most
 * {@link Builder#maxConnections} (a connection beyond them is closed at once and counted in
 * {@link #refusals()}). Counters are thread-safe and raised before the first byte of what they count is
 * written.</p>
 */
public final class HostileH2Partner extends AbstractHostilePartner implements AutoCloseable {
    public static final int DEFAULT_MAX_CONNECTIONS = 64;
    public static final int MAX_MAX_CONNECTIONS = 1_024;

    private final H2Server.Settings settings;
    private volatile H2Server server;

    private HostileH2Partner(H2Server.Settings settings) {
        super(settings.listening());
        this.settings = settings;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Binds and starts serving; returns this. */
    public synchronized HostileH2Partner start() {
        if (server != null) {
            throw new IllegalStateException("the hostile h2c partner is already running on port " + port());
        }
        try {
            server = H2Server.start(settings);
        } catch (IOException e) {
            throw listening.cannotListen("the hostile h2c partner", e);
        }
        return this;
    }

    /** The port it listens on; before {@link #start()}, the port it was built with. */
    public int port() {
        H2Server running = server;
        return running == null ? listening.port() : running.port();
    }

    /** {@code http://host:port}, to {@link URI#resolve(String) resolve} paths against (speak h2c to it). */
    public URI uri() {
        return URI.create("http://" + host() + ":" + port());
    }

    /** Where {@code m} is served: {@code http://host:port/<token>}. */
    public URI uri(H2Misbehaviour m) {
        return uri().resolve("/" + m.token());
    }

    /** How many times {@code m} was asked for (one per stream). */
    public long requests(H2Misbehaviour m) {
        return running().h2().requests(m);
    }

    /** Connections whose client did not announce SETTINGS_ENABLE_PUSH=0 (push-promise is then legal). */
    public long pushEnabledConnections() {
        return running().h2().pushEnabledConnections();
    }

    public int maxConnections() {
        return settings.maxConnections();
    }

    @Override
    HostileCounters counters() {
        return running().counters();
    }

    private H2Server running() {
        H2Server running = server;
        if (running == null) {
            throw new IllegalStateException("the hostile h2c partner was not started: call start()");
        }
        return running;
    }

    /** Closes the server socket and every connection; the counters stay readable. */
    @Override
    public void close() {
        H2Server running = server;
        if (running != null) {
            running.stop();
        }
    }

    @Override
    public String toString() {
        return "HostileH2Partner{" + settings + "}";
    }

    /** Settings of a hostile h2c partner; each setter checks its value and names it in the error. */
    public static final class Builder extends HostileBuilder<Builder> {
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;

        private Builder() {
        }

        @Override
        Builder self() {
            return this;
        }

        /** Connections served at once, one thread each (default {@value #DEFAULT_MAX_CONNECTIONS}). */
        public Builder maxConnections(int maxConnections) {
            if (maxConnections < 1 || maxConnections > MAX_MAX_CONNECTIONS) {
                throw new IllegalArgumentException("maxConnections: " + maxConnections + " (accepted: 1 to "
                        + MAX_MAX_CONNECTIONS + ")");
            }
            this.maxConnections = maxConnections;
            return this;
        }

        /** A partner with these settings, not yet started. */
        public HostileH2Partner build() {
            return new HostileH2Partner(new H2Server.Settings(listening(), maxConnections));
        }
    }
}
