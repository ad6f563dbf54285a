package io.rc10k.stubs.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One selector thread of the hostile partner. It owns its connections: every read, write and state
 * change of a connection happens on it, so connections need no locks. Other threads (the timer) hand
 * it work through {@link #execute}.
 *
 * <pre>{@code
 * HostileLoop loop = new HostileLoop("hostile-9009-loop-0");
 * loop.start();
 * loop.execute(() -> loop.register(channel, SelectionKey.OP_READ, connection));
 * }</pre>
 *
 * <p>Nothing on a loop blocks: sockets are non-blocking, and pauses are timer tasks.</p>
 */
final class HostileLoop implements Executor {
    private static final Logger LOG = LoggerFactory.getLogger(HostileLoop.class);

    /** What a loop's selector watches: the acceptor or a connection. Called on the loop only. */
    interface Ready {
        void ready(SelectionKey key);

        /** The loop is stopping: let go of the channel. */
        void stop();
    }

    private final Selector selector;
    private final Thread thread;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private volatile boolean running = true;

    HostileLoop(String name) {
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a selector for " + name, e);
        }
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    /** Runs {@code task} on the loop, soon; from any thread. */
    @Override
    public void execute(Runnable task) {
        tasks.add(task);
        if (!inLoop()) {
            selector.wakeup();
        }
    }

    /** On the loop only. */
    SelectionKey register(SelectableChannel channel, int ops, Ready ready) throws IOException {
        return channel.register(selector, ops, ready);
    }

    private void run() {
        while (running) {
            runTasks();
            try {
                selector.select(this::dispatch);
            } catch (IOException e) {
                LOG.warn("{}: select failed, the loop stops", thread.getName(), e);
                running = false;
            }
        }
        for (SelectionKey key : selector.keys()) {
            ((Ready) key.attachment()).stop();
        }
        try {
            selector.close();
        } catch (IOException e) {
            LOG.debug("{}: closing the selector", thread.getName(), e);
        }
        runTasks(); // connections handed over but not yet opened: they find the selector closed, and close
    }

    private void runTasks() {
        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.warn("{}: a task failed", thread.getName(), e);
            }
        }
    }

    private void dispatch(SelectionKey key) {
        if (!key.isValid()) {
            return;
        }
        try {
            ((Ready) key.attachment()).ready(key);
        } catch (RuntimeException e) {
            LOG.warn("{}: a connection failed", thread.getName(), e);
        }
    }

    /** Stops the loop and closes every channel on it; waits up to 5 s for the thread to end. */
    void stop() {
        running = false;
        selector.wakeup();
        if (!inLoop()) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
