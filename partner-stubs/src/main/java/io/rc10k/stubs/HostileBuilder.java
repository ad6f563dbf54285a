package io.rc10k.stubs;

import io.rc10k.stubs.internal.Listening;

/**
 * What the builders of both hostile partners ({@link HostilePartner.Builder}, {@link HostileH2Partner.Builder}) add
 * to {@link ListeningBuilder}: the one port they listen on.
 *
 * @param <B> the builder itself, which every setter returns
 */
abstract class HostileBuilder<B extends HostileBuilder<B>> extends ListeningBuilder<B> {
    private int port;

    HostileBuilder() {
    }

    /** 0 (the default) picks an ephemeral port. */
    public B port(int port) {
        this.port = checkPort(port);
        return self();
    }

    /** Where and how the partner listens, as set. */
    Listening listening() {
        return new Listening(host, port, acceptQueue, idleTimeoutMillis, maxStallMillis);
    }
}
