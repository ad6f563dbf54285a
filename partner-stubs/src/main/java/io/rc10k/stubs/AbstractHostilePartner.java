package io.rc10k.stubs;

import io.rc10k.stubs.internal.HostileCounters;
import io.rc10k.stubs.internal.Listening;

/**
 * What both hostile partners, {@link HostilePartner} (HTTP/1.1) and {@link HostileH2Partner} (h2c), tell of how
 * they listen and count: the settings every partner listens with, and the counters of connections and answers
 * their servers keep alike. Each subclass adds its own settings and its counts by misbehaviour.
 */
abstract class AbstractHostilePartner {
    final Listening listening;

    AbstractHostilePartner(Listening listening) {
        this.listening = listening;
    }

    /** The counters of the running server; an {@link IllegalStateException} before {@code start()}. */
    abstract HostileCounters counters();

    public String host() {
        return listening.host();
    }

    /**
     * TCP connections accepted since start. Behind the HTTP/1.1 partner's TLS front, the partner's own: one per
     * connection whose handshake succeeded (the relay opens it then), so a client that reuses its TLS connection
     * reuses this one too.
     */
    public long connectionsAccepted() {
        return counters().connectionsAccepted();
    }

    /** TCP connections open now. */
    public long connectionsOpen() {
        return counters().connectionsOpen();
    }

    /** Correct 200 answers: {@code /ok}, and in the HTTP/1.1 partner's chaos mode the draws that did not misbehave. */
    public long okAnswers() {
        return counters().okAnswers();
    }

    /**
     * 400, 404 and (HTTP/1.1) 431 answers: requests that named no misbehaviour or asked for one wrongly; and the
     * connections the h2c partner closed at accept because every connection thread was busy.
     */
    public long refusals() {
        return counters().refusals();
    }

    /** Connections the partner closed because a misbehaviour held them until {@link #maxStallMillis()}. */
    public long cappedConnections() {
        return counters().cappedConnections();
    }

    public long maxStallMillis() {
        return listening.maxStallMillis();
    }

    public long idleTimeoutMillis() {
        return listening.idleTimeoutMillis();
    }
}
