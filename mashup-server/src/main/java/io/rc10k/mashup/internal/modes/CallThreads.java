package io.rc10k.mashup.internal.modes;

import io.rc10k.mashup.Mode;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.component.AbstractLifeCycle;

/**
 * The threads the blocking modes park in while a partner call is in flight: one platform thread
 * per call ({@code sync-call-N}, sync mode) or one virtual thread per call ({@code mashup-call-N},
 * virtual mode). A lifecycle bean of the server (or the web application): created at start, shut
 * down at stop, restartable.
 */
public final class CallThreads extends AbstractLifeCycle implements Executor {
    private final boolean virtual;
    private volatile Executor executor;
    private ExecutorService platform;

    private CallThreads(boolean virtual) {
        this.virtual = virtual;
    }

    /** The threads a blocking mode runs its outbound calls on (not started); null for async, which has none. */
    public static CallThreads of(Mode mode) {
        return mode.blocks() ? new CallThreads(mode == Mode.VIRTUAL) : null;
    }

    @Override
    protected void doStart() {
        if (virtual) {
            executor = VirtualThreads.getNamedVirtualThreadsExecutor("mashup-call-");
            if (executor == null) {
                throw new IllegalStateException("virtual threads are not available on " + Runtime.version());
            }
        } else {
            AtomicInteger n = new AtomicInteger();
            platform = Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "sync-call-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
            executor = platform;
        }
    }

    @Override
    protected void doStop() throws InterruptedException {
        if (platform != null) {
            platform.shutdown();
            // Calls are bounded by their deadlines; give them a moment, then stop waiting.
            if (!platform.awaitTermination(1, TimeUnit.SECONDS)) {
                platform.shutdownNow();
            }
            platform = null;
        }
        executor = null;
    }

    @Override
    public void execute(Runnable task) {
        Executor current = executor;
        if (current == null) {
            throw new RejectedExecutionException("call threads are stopped");
        }
        current.execute(task);
    }
}
