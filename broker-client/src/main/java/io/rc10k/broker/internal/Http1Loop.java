package io.rc10k.broker.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One selector of an {@link Http1Wire} and the connections registered on it (HTTP/1.1 ones, and the
 * {@link H2cWire}'s h2c ones), run as one long task on
 * the shared executor (as Jetty's own selectors are). Every {@value #TICK_MILLIS} ms it checks its
 * connections' connect, call and idle deadlines, so no exchange needs a timer of its own. Between two
 * selects it runs at most {@value #MAX_TASKS_PER_SELECT} queued tasks: a burst of new calls, each
 * queueing the opening of a connection, must not hold back the connections that are ready (connects to
 * finish and requests to write, answers to read) nor the deadline checks.
 *
 * <p>Threading: {@link #execute} and {@link #run(Runnable)} from any thread; everything else on the loop's
 * thread. Tasks and callbacks run on it must not block: it reads every connection it holds.</p>
 */
final class Http1Loop implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(Http1Loop.class);
    static final long TICK_MILLIS = 50;
    /**
     * Tasks run between two selects. Without a bound, a burst of calls arriving at once queued opens that
     * other threads kept adding to while the loop ran them, and no connect was finished, so no request
     * written, until the queue ran dry (docs/results/cold-burst.md).
     */
    static final int MAX_TASKS_PER_SELECT = 64;

    final Selector selector;
    /** Where responses are read and parsed: the parser keeps what it needs, so one buffer serves every connection. */
    final ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);
    private final Http1Wire wire;
    private final LoopTasks tasks = new LoopTasks();
    private final Set<LoopConnection> connections = new HashSet<>();
    private volatile Thread thread;
    private volatile boolean running = true;
    private long lastTick = System.nanoTime();

    Http1Loop(Http1Wire wire) throws IOException {
        this.wire = wire;
        this.selector = Selector.open();
    }

    /** Runs {@code task} on the loop: at once when called on it, else soon. */
    void run(Runnable task) {
        if (Thread.currentThread() == thread) {
            task.run();
        } else {
            execute(task);
        }
    }

    /** Queues {@code task} for the loop's thread; once the loop has ended, runs it here (its call fails). */
    void execute(Runnable task) {
        if (tasks.add(task) && Thread.currentThread() != thread) {
            selector.wakeup();
        }
    }

    /** True when called on this loop's thread. */
    boolean isCurrentThread() {
        return Thread.currentThread() == thread;
    }

    void adopt(LoopConnection connection) {
        connections.add(connection);
    }

    void forget(LoopConnection connection) {
        connections.remove(connection);
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        try {
            while (running && !Thread.currentThread().isInterrupted()) {
                if (tasks.isEmpty()) {
                    selector.select(this::ready, TICK_MILLIS);
                } else {
                    selector.selectNow(this::ready); // tasks queued by the loop itself: run them without waiting
                }
                tasks.runSome(MAX_TASKS_PER_SELECT);
                long now = System.nanoTime();
                if (now - lastTick >= TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS)) {
                    lastTick = now;
                    tick(now);
                }
            }
            if (running) {
                LOG.warn("HTTP/1.1 loop interrupted before its wire stopped; its connections are closed");
            }
        } catch (IOException | RuntimeException | Error e) {
            LOG.error("HTTP/1.1 loop failed; its connections are closed", e);
        } finally {
            tasks.end(this::close);
        }
    }

    /** As the loop ends, between the last two drains of its tasks: its connections and selector closed. */
    private void close() {
        for (LoopConnection connection : new ArrayList<>(connections)) {
            connection.close();
        }
        try {
            selector.close();
        } catch (IOException e) {
            LOG.debug("closing the selector", e);
        }
        thread = null;
    }

    private void ready(SelectionKey key) {
        ((LoopConnection) key.attachment()).ready(key);
    }

    private void tick(long now) {
        List<LoopConnection> all = new ArrayList<>(connections);
        for (LoopConnection connection : all) {
            try {
                connection.check(now);
            } catch (RuntimeException | AssertionError | StackOverflowError e) {
                LOG.warn("broker loop: checking a connection's deadlines failed; ignored", e);
            }
        }
        wire.tick(this, now);
    }

    /** Stops the loop: its connections close, ending the calls on them; waits up to {@code millis}. */
    void stop(long millis) throws InterruptedException {
        running = false;
        selector.wakeup();
        if (!tasks.awaitEnd(millis)) {
            LOG.warn("HTTP/1.1 loop did not stop within {} ms", millis);
        }
    }
}
