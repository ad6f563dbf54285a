package io.rc10k.broker.internal;

import io.rc10k.broker.Partner;
import io.rc10k.broker.Protocol;
import java.net.URI;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.io.ByteBufferPool;

/**
 * Calls to h2c partners (HTTP/2 over cleartext with prior knowledge) on the broker's own loops, the ones
 * the HTTP/1.1 calls run on ({@link Http1Wire}): a call's request is written by the thread that starts it,
 * its response parsed and delivered on the loop that reads its connection, its deadline checked by the loops'
 * ticks — so an h2c call costs what an HTTP/1.1 one does in threads and hand-offs, with a connection carrying
 * many calls at once. Jetty's HTTP/2 parser and HPACK do the framing; {@link H2cConnection} the rest.
 *
 * <p>Per partner host, at most {@code maxConnections} connections of at most {@code maxStreamsPerConnection}
 * streams each (see {@link H2cDestination}). Jetty's client remains for comparison
 * ({@code BrokerClient.Builder#jettyForH2c()}) and for h2 over TLS.</p>
 *
 * <p>Threading: any thread starts and aborts calls; events as {@link H2cConnection} says. Runs while its
 * loops run: it has no lifecycle of its own.</p>
 */
public final class H2cWire implements Wire {
    private final Http1Wire loops;
    private final ByteBufferPool buffers;
    /** Per partner, a destination per host ({@link Partner#baseUris()}), in the partner's order. */
    private final Map<String, H2cDestination[]> destinations = new LinkedHashMap<>();

    public H2cWire(Collection<Partner> partners, Http1Wire loops, ByteBufferPool buffers) {
        this.loops = loops;
        this.buffers = buffers;
        for (Partner partner : partners) {
            if (partner.protocol() == Protocol.H2C && !partner.secure()) {
                destinations.put(partner.name(), partner.baseUris().stream()
                        .map(base -> new H2cDestination(this, partner, base)).toArray(H2cDestination[]::new));
            }
        }
        loops.share(this);
    }

    @Override
    public Call newCall(String partner, String method, URI uri, HttpFields headers, byte[] body, long timeoutNanos,
            Events events) {
        H2cDestination[] hosts = destinations.get(partner);
        if (hosts == null) {
            throw new IllegalArgumentException("partner \"" + partner + "\" is not an h2c partner of this wire");
        }
        H2cDestination destination = hosts[0];
        for (int i = 1; i < hosts.length && !destination.serves(uri); i++) {
            destination = hosts[i];
        }
        return new H2cCall(destination, method, uri, headers, body, timeoutNanos, events);
    }

    @Override
    public boolean isRunning() {
        return loops.isRunning();
    }

    /** A new connection of {@code destination}, on the next loop; nothing happens until {@link #open}. */
    H2cConnection newConnection(H2cDestination destination) {
        return new H2cConnection(loops.nextLoop(), destination, buffers);
    }

    /** Any thread: connects {@code connection} on its loop. */
    void open(H2cConnection connection) {
        try {
            loops.onLoop(connection.loop, connection.destination.address, connection::open);
        } catch (RuntimeException e) {
            // No thread to look the name up on: the connection never opens; its calls end with why.
            connection.loop.execute(() -> connection.closeWith(e));
        }
    }

    /** On the first loop, every tick: ends the calls that waited for a stream past their deadline. */
    void expireWaiting(long now) {
        for (H2cDestination[] hosts : destinations.values()) {
            for (H2cDestination destination : hosts) {
                destination.expireWaiting(now);
            }
        }
    }

    /** The loops stop: the waiting calls fail (those on connections end as the loops close them). */
    void failWaiting(Throwable cause) {
        for (H2cDestination[] hosts : destinations.values()) {
            for (H2cDestination destination : hosts) {
                destination.failWaiting(cause);
            }
        }
    }

    /** Open, active and idle connections to {@code partner}, all its hosts; zeros for a partner not served here. */
    public int[] connections(String partner) {
        int[] counts = new int[3];
        for (H2cDestination destination : destinations.getOrDefault(partner, new H2cDestination[0])) {
            int[] one = destination.connections();
            for (int i = 0; i < 3; i++) {
                counts[i] += one[i];
            }
        }
        return counts;
    }
}
