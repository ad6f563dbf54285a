package io.rc10k.broker.internal;

import java.nio.channels.SelectionKey;

/**
 * A connection registered on an {@link Http1Loop}: an HTTP/1.1 one ({@link Http1Connection}) or an h2c one
 * ({@link H2cConnection}). The loop tells it when its channel is ready, asks it every tick to check its
 * deadlines, and closes it as the loop ends. All three run on the loop's thread.
 */
interface LoopConnection {
    /** The selector says the channel is ready. */
    void ready(SelectionKey key);

    /** Every tick: the connect, call and idle deadlines, against {@code now} ({@link System#nanoTime()}). */
    void check(long now);

    /** Closes the connection, ending the calls on it; idempotent. */
    void close();
}
