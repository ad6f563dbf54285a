package io.rc10k.broker.internal;

import io.rc10k.broker.Partner;
import java.util.Map;
import org.eclipse.jetty.client.AbstractConnectionPool;
import org.eclipse.jetty.client.ConnectionPool;
import org.eclipse.jetty.client.Destination;
import org.eclipse.jetty.client.MultiplexConnectionPool;

/**
 * Gives each partner a connection pool of its own size. Requests carry the partner's name as their
 * Jetty tag, so each partner is its own destination even when partners share a host and port.
 * HTTP/1.1 partners get Jetty's duplex pool on an {@link IdleStack}, where taking a connection does not
 * scan the busy ones; h2c partners get Jetty's multiplexed pool.
 */
public final class PartnerPools implements ConnectionPool.Factory {
    private final Map<String, Partner> partners;

    public PartnerPools(Map<String, Partner> partners) {
        this.partners = partners;
    }

    @Override
    public ConnectionPool newConnectionPool(Destination destination) {
        Partner partner = partners.get(String.valueOf(destination.getOrigin().getTag()));
        if (partner == null) {
            // Not a partner call (never made by the broker itself); keep Jetty's small default.
            return new Http1Pool(destination, 64);
        }
        return partner.protocol() == Partner.Protocol.H2C
                ? new MultiplexConnectionPool(destination, partner.maxConnections(), partner.maxStreamsPerConnection())
                : new Http1Pool(destination, partner.maxConnections());
    }

    /** One request per connection at a time, as Jetty's {@code DuplexConnectionPool}, on an idle stack. */
    static final class Http1Pool extends AbstractConnectionPool {
        Http1Pool(Destination destination, int maxConnections) {
            super(destination, () -> new IdleStack<>(maxConnections), 1);
        }
    }
}
