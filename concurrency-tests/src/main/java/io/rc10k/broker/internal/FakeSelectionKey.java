package io.rc10k.broker.internal;

import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;

/**
 * What a loop's selector hands a connection over a {@link FakeSocketChannel}: always valid, ready for the
 * operations it was made with, taking any interest set and a cancel without a selector behind it.
 */
final class FakeSelectionKey extends SelectionKey {
    private final int readyOps;

    FakeSelectionKey(int readyOps) {
        this.readyOps = readyOps;
    }

    @Override
    public SelectableChannel channel() {
        throw new UnsupportedOperationException("a fake key has no channel");
    }

    @Override
    public Selector selector() {
        throw new UnsupportedOperationException("a fake key has no selector");
    }

    @Override
    public boolean isValid() {
        return true;
    }

    @Override
    public void cancel() {
    }

    @Override
    public int interestOps() {
        return SelectionKey.OP_READ;
    }

    @Override
    public SelectionKey interestOps(int ops) {
        return this;
    }

    @Override
    public int readyOps() {
        return readyOps;
    }
}
