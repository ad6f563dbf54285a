package io.rc10k.broker.internal;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;

/**
 * {@link Http1Loop}'s hand-over of tasks, copied line for line: {@code execute} and the end of {@code run}
 * (its {@code finally} block). Left out: the selector's wake-up, the closing of the connections and of the
 * selector (none touches a task), and the logging of a task that throws. A real loop cannot be made per
 * jcstress state: each holds a selector (file descriptors) and a 64 KB direct buffer, and jcstress makes
 * up to 10,240 states at once. A change to those parts of {@link Http1Loop} is a change to this copy.
 */
final class Http1LoopStopModel {
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile Thread thread;

    /** {@code Http1Loop.execute}. */
    void execute(Runnable task) {
        if (stopped.getCount() == 0) {
            runSafely(task);
            return;
        }
        tasks.add(task);
        if (stopped.getCount() == 0) {
            for (Runnable left = tasks.poll(); left != null; left = tasks.poll()) {
                runSafely(left);
            }
        }
    }

    /** {@code Http1Loop.run}, its loop already left ({@code running} false): the {@code finally} block. */
    void end() {
        thread = Thread.currentThread();
        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
            runSafely(task);
        }
        thread = null;
        stopped.countDown();
        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
            runSafely(task);
        }
    }

    private static void runSafely(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException e) {
            // logged and ignored in Http1Loop
        }
    }
}
