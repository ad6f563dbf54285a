package io.rc10k.broker.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * The requests one thread starts in a row, written together: while a fan-out starts its calls, an h2c
 * connection queues each call's frames instead of writing them, and the batch's end writes each connection
 * once — C requests to a partner in one write instead of C (and the partner reads them at once).
 *
 * <pre>{@code
 * try (WriteBatch batch = WriteBatch.open()) {
 *     for (RealExchange exchange : exchanges) exchange.start();
 * }
 * }</pre>
 *
 * <p>Threading: a batch is its thread's; opened inside another, it leaves the writing to the outer one.</p>
 */
public final class WriteBatch implements AutoCloseable {
    private static final ThreadLocal<WriteBatch> CURRENT = new ThreadLocal<>();
    private static final WriteBatch NESTED = new WriteBatch();
    private final List<H2cConnection> deferred = new ArrayList<>(2);

    private WriteBatch() {
    }

    /** Opens this thread's batch, or joins the one it has open. */
    public static WriteBatch open() {
        if (CURRENT.get() != null) {
            return NESTED;
        }
        WriteBatch batch = new WriteBatch();
        CURRENT.set(batch);
        return batch;
    }

    /** True when this thread has a batch open, which then writes {@code connection}'s queue as it closes. */
    static boolean defer(H2cConnection connection) {
        WriteBatch batch = CURRENT.get();
        if (batch == null) {
            return false;
        }
        if (!batch.deferred.contains(connection)) {
            batch.deferred.add(connection);
        }
        return true;
    }

    /** Writes what the batch's calls queued, connection by connection. */
    @Override
    public void close() {
        if (this == NESTED) {
            return;
        }
        CURRENT.remove();
        for (H2cConnection connection : deferred) {
            connection.flushQueued();
        }
    }
}
