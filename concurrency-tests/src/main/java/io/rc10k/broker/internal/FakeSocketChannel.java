package io.rc10k.broker.internal;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Set;

/**
 * A connected socket that takes every byte written and never has one to read; no file descriptor. What an
 * {@link Http1Connection} needs to send a request from a jcstress actor, millions of times a run. A subclass
 * may play the partner ({@link AnsweringChannel}).
 */
class FakeSocketChannel extends SocketChannel {
    FakeSocketChannel() {
        super(SelectorProvider.provider());
    }

    @Override
    public int write(ByteBuffer src) {
        int n = src.remaining();
        src.position(src.limit());
        return n;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) {
        long n = 0;
        for (int i = offset; i < offset + length; i++) {
            n += write(srcs[i]);
        }
        return n;
    }

    @Override
    public int read(ByteBuffer dst) {
        return 0;
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) {
        return 0;
    }

    @Override
    public SocketChannel bind(SocketAddress local) {
        return this;
    }

    @Override
    public <T> SocketChannel setOption(SocketOption<T> name, T value) {
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) {
        return null;
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return Set.of();
    }

    @Override
    public SocketChannel shutdownInput() {
        return this;
    }

    @Override
    public SocketChannel shutdownOutput() {
        return this;
    }

    @Override
    public Socket socket() {
        throw new UnsupportedOperationException("a fake channel has no socket");
    }

    @Override
    public boolean isConnected() {
        return true;
    }

    @Override
    public boolean isConnectionPending() {
        return false;
    }

    @Override
    public boolean connect(SocketAddress remote) {
        return true;
    }

    @Override
    public boolean finishConnect() throws IOException {
        return true;
    }

    @Override
    public SocketAddress getRemoteAddress() {
        return null;
    }

    @Override
    public SocketAddress getLocalAddress() {
        return null;
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
    }

    @Override
    protected void implConfigureBlocking(boolean block) throws IOException {
    }
}
