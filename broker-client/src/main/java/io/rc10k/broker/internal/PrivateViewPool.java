package io.rc10k.broker.internal;

import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.RetainableByteBuffer;

/**
 * The buffers Jetty's clients take: the pooled ones of the pool it wraps, each acquisition seen through a view of
 * its own (its own position and limit over the pooled memory), released to that pool as usual.
 *
 * <pre>{@code
 * ByteBufferPool buffers = new PrivateViewPool(shared);
 * connector.setByteBufferPool(buffers);
 * client.setByteBufferPool(buffers);
 * }</pre>
 *
 * <p>Why: Jetty's HTTP/1.1 receiver ({@code HttpReceiverOverHTTP.parse}) keeps the network buffer it began
 * parsing, and when the exchange was failed inside the headers or content notification it then empties that
 * buffer (its position and limit set to 0). But inside that notification the application's read went on
 * parsing; it found the failure, read no more bytes and gave the buffer back to the pool. Another connection
 * may have taken it in between — the retry of the failed call is one — and the late emptying throws away the
 * bytes it has read and not yet parsed (its call then waits for bytes it already had) or moves them from under
 * its parser (a "Bad Response"). A view per acquisition confines that late emptying to the view Jetty gave
 * back; the memory's next holder reads through a view of its own.</p>
 *
 * <p>Thread-safe as the wrapped pool is.</p>
 */
final class PrivateViewPool extends ByteBufferPool.Wrapper {
    PrivateViewPool(ByteBufferPool pooled) {
        super(pooled);
    }

    @Override
    public RetainableByteBuffer.Mutable acquire(int size, boolean direct) {
        RetainableByteBuffer.Mutable pooled = super.acquire(size, direct);
        // Retained and released through the pooled buffer: it goes back to its pool when the view is released.
        return new RetainableByteBuffer.FixedCapacity(pooled.getByteBuffer().duplicate(), pooled);
    }
}
