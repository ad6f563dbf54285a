package io.rc10k.stubs.internal;

import java.io.IOException;
import java.net.InetAddress;

/**
 * Where and how a hostile partner listens, as its builder checked it: the address, the listen backlog, the idle
 * timeout and the stall cap.
 *
 * @param port 0 for an ephemeral port
 */
public record Listening(String host, int port, int acceptQueue, long idleTimeoutMillis, long maxStallMillis) {
    /** The same on an ephemeral loopback port: behind a TLS front that owns the public one. */
    public Listening onLoopback() {
        return new Listening(InetAddress.getLoopbackAddress().getHostAddress(), 0, acceptQueue, idleTimeoutMillis,
                maxStallMillis);
    }

    /** What {@code partner} ("the hostile partner") says when it cannot bind this address. */
    public IllegalStateException cannotListen(String partner, IOException e) {
        return new IllegalStateException(partner + " cannot listen on " + host + ":" + port + " (" + e.getMessage()
                + ")", e);
    }
}
