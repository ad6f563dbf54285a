package io.rc10k.broker.internal;

import io.rc10k.broker.Partner;
import java.util.Map;
import org.eclipse.jetty.client.ConnectionPool;
import org.eclipse.jetty.client.Destination;
import org.eclipse.jetty.client.DuplexConnectionPool;
import org.eclipse.jetty.client.MultiplexConnectionPool;

/**
 * Gives each partner that Jetty's client calls (the h2c ones; HTTP/1.1 partners are on
 * {@link Http1Wire}) a connection pool of its own size. Requests carry the partner's name as their
 * Jetty tag, so each partner is its own destination even when partners share a host and port.
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
            return new DuplexConnectionPool(destination, 64);
        }
        return partner.protocol().multiplexed()
                ? new MultiplexConnectionPool(destination, partner.maxConnections(), partner.maxStreamsPerConnection())
                : new DuplexConnectionPool(destination, partner.maxConnections());
    }
}
