package io.rc10k.broker.internal;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tasks handed to one {@link Http1Loop}: queued by any thread, run by the loop, and each run exactly
 * once even as the loop ends — by the loop, in its last drain, or, once it has ended, on the thread that
 * hands it over (a task carries a call: one never run is a call that never completes).
 *
 * <pre>{@code
 * if (tasks.add(task)) selector.wakeup();    // any thread
 * tasks.runSome(MAX_TASKS_PER_SELECT);       // the loop, between two selects
 * tasks.end(this::closeConnections);         // the loop, as it ends
 * }</pre>
 *
 * <p>Threading: {@link #add} from any thread; {@link #runSome} and {@link #end} on the loop's thread only.
 * A task that throws is logged and ignored.</p>
 */
final class LoopTasks {
    private static final Logger LOG = LoggerFactory.getLogger(Http1Loop.class);

    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final CountDownLatch ended = new CountDownLatch(1);

    /**
     * Queues {@code task} for the loop: true when the loop will run it; false when the loop has ended (stopped,
     * or failed), and the task has run here, failing the call it carries.
     */
    boolean add(Runnable task) {
        if (ended.getCount() == 0) {
            runSafely(task);
            return false;
        }
        tasks.add(task);
        if (ended.getCount() == 0) {
            // The loop ended between the check and the add, perhaps after its last drain: run what it left.
            drain();
            return false;
        }
        return true;
    }

    boolean isEmpty() {
        return tasks.isEmpty();
    }

    /** On the loop: runs up to {@code max} of the tasks queued. */
    void runSome(int max) {
        for (int ran = 0; ran < max; ran++) {
            Runnable task = tasks.poll();
            if (task == null) {
                return;
            }
            runSafely(task);
        }
    }

    /**
     * On the loop, as it ends: runs what is queued, then {@code closing} (which may queue more), then marks the
     * loop ended and runs what came meanwhile. From then on, {@link #add} runs each task on its caller.
     */
    void end(Runnable closing) {
        drain();
        closing.run();
        ended.countDown();
        // Tasks queued between the first drain and the count-down: run them now, failing their calls.
        drain();
    }

    /** Waits up to {@code millis} for the loop to end; false when it has not. */
    boolean awaitEnd(long millis) throws InterruptedException {
        return ended.await(millis, TimeUnit.MILLISECONDS);
    }

    private void drain() {
        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
            runSafely(task);
        }
    }

    private static void runSafely(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException | AssertionError | StackOverflowError e) {
            LOG.warn("HTTP/1.1 loop task failed; ignored", e);
        }
    }
}
