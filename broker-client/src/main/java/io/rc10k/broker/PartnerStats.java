package io.rc10k.broker;

import java.util.List;
import java.util.Map;

/**
 * A snapshot of one partner as the broker sees it, for metrics.
 *
 * @param partner            the partner's name
 * @param inFlight           exchanges admitted and not yet ended
 * @param connectionsOpen    connections open now (in use or idle)
 * @param connectionsActive  connections carrying an exchange now
 * @param connectionsIdle    connections open and idle in the pool
 * @param outcomes           exchanges ended, by kind, since the client started
 * @param circuit            the circuit breaker: {@code closed}, {@code open} or {@code half_open}
 */
public record PartnerStats(String partner, int inFlight, int connectionsOpen, int connectionsActive,
        int connectionsIdle, Map<Outcome.Kind, Long> outcomes, String circuit, List<Host> hosts) {
    /**
     * One of the partner's hosts ({@link Partner#baseUris()}).
     *
     * @param host       {@code host:port}
     * @param inFlight   attempts out to it now (counted only for a partner with several hosts; else 0)
     * @param ejected    whether it takes no calls now, ejected after failures in a row ({@link Ejection})
     * @param ejections  times it was ejected, since start
     */
    public record Host(String host, int inFlight, boolean ejected, long ejections) {
    }
}
