package io.rc10k.broker.internal;

import io.rc10k.broker.Balancing;
import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import java.net.URI;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A partner's hosts ({@link Partner#baseUris()}): which one an attempt goes to, and which ones are
 * ejected. Lock-free on the call path; an ejection (rare) takes this object's lock to keep the last
 * host in, and logs after releasing it.
 *
 * <p>A partner with one host has nothing to choose: {@link #pick} returns it and nothing is counted.</p>
 */
public final class PartnerHosts {
    private static final Logger LOG = LoggerFactory.getLogger(PartnerHosts.class);
    private static final long NOT_EJECTED = Long.MIN_VALUE;

    /** One host: its base URI, its calls out now, its failures in a row and its ejection. */
    public static final class Host {
        private final URI base;
        /** {@code scheme://host:port}: what replaces the first host's in a call's URI. */
        private final String origin;
        private final String label;
        final AtomicInteger inFlight = new AtomicInteger();
        private final AtomicInteger failuresInARow = new AtomicInteger();
        private volatile long ejectedUntil = NOT_EJECTED;
        private final LongAdder ejections = new LongAdder();

        Host(URI base) {
            this.base = base;
            this.origin = base.getScheme() + "://" + base.getRawAuthority();
            this.label = base.getRawAuthority();
        }

        /** {@code host:port}, as metrics label it. */
        public String label() {
            return label;
        }

        public URI base() {
            return base;
        }

        public int inFlight() {
            return inFlight.get();
        }

        /** Whether it takes no calls now (its cool-down is running). */
        public boolean ejected() {
            return ejected(System.nanoTime());
        }

        /** Times it was ejected, since start. */
        public long ejections() {
            return ejections.sum();
        }

        private boolean ejected(long now) {
            long until = ejectedUntil;
            return until != NOT_EJECTED && now - until < 0;
        }

        /** {@code uri}, made for the first host, sent to this one instead. */
        URI rebase(URI uri, Host first) {
            return this == first ? uri : URI.create(origin + uri.toString().substring(first.origin.length()));
        }

        @Override
        public String toString() {
            return label;
        }
    }

    private final String partner;
    private final Host[] hosts;
    private final boolean roundRobin;
    private final int failuresToEject;
    private final long coolDownNanos;
    private final AtomicInteger turn = new AtomicInteger();

    public PartnerHosts(Partner partner) {
        this.partner = partner.name();
        this.hosts = partner.baseUris().stream().map(Host::new).toArray(Host[]::new);
        this.roundRobin = partner.balancing() == Balancing.ROUND_ROBIN;
        this.failuresToEject = partner.ejection().consecutiveFailures();
        this.coolDownNanos = partner.ejection().coolDown().toNanos();
    }

    public List<Host> all() {
        return List.of(hosts);
    }

    Host first() {
        return hosts[0];
    }

    boolean single() {
        return hosts.length == 1;
    }

    /**
     * The host for the next attempt: not ejected, not {@code avoid} (the host a retry or hedge follows)
     * unless nothing else is left, then the one with the fewest calls out (or simply the next in turn).
     */
    Host pick(Host avoid) {
        if (hosts.length == 1) {
            return hosts[0];
        }
        long now = System.nanoTime();
        int start = Math.floorMod(turn.getAndIncrement(), hosts.length);
        Host best = null;
        int bestLoad = Integer.MAX_VALUE;
        for (int i = 0; i < hosts.length; i++) {
            Host host = hosts[(start + i) % hosts.length];
            if (host == avoid || host.ejected(now)) {
                continue;
            }
            if (roundRobin) {
                return host;
            }
            int load = host.inFlight.get();
            if (load < bestLoad) {
                best = host;
                bestLoad = load;
            }
        }
        if (best != null) {
            return best;
        }
        // Only the avoided one is in, or (two ejected at once by a race the lock does not see) none is.
        return avoid != null && !avoid.ejected(now) ? avoid : hosts[start];
    }

    /** An attempt went to {@code host}. */
    void started(Host host) {
        if (hosts.length > 1) {
            host.inFlight.incrementAndGet();
        }
    }

    /** An attempt on {@code host} ended with {@code kind}: counted toward its ejection as the breaker counts. */
    void ended(Host host, Outcome.Kind kind, int status) {
        if (hosts.length == 1) {
            return;
        }
        host.inFlight.decrementAndGet();
        if (!CircuitBreaker.isCounted(kind, status)) {
            return;
        }
        if (!CircuitBreaker.isFailure(kind, status)) {
            if (host.failuresInARow.get() != 0) {
                host.failuresInARow.set(0);
            }
            return;
        }
        int inARow = host.failuresInARow.incrementAndGet();
        if (inARow >= failuresToEject && eject(host)) {
            LOG.warn("partner {}: host {} ejected for {} ms after {} failures in a row (last: {}); the others take "
                    + "its calls", partner, host, coolDownNanos / 1_000_000, inARow, kind.label());
        }
    }

    /** Ejects {@code host} unless it is ejected already or no other host would be left; true when it did. */
    private synchronized boolean eject(Host host) {
        long now = System.nanoTime();
        if (host.ejected(now)) {
            return false;
        }
        for (Host other : hosts) {
            if (other != host && !other.ejected(now)) {
                host.ejectedUntil = now + coolDownNanos;
                host.failuresInARow.set(0);
                host.ejections.increment();
                return true;
            }
        }
        return false; // the last one in: it keeps taking calls
    }
}
