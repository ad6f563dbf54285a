package io.rc10k.broker;

import java.util.List;
import java.util.concurrent.Executor;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.util.component.ContainerLifeCycle;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * What a broker client runs on: the executor, scheduler and buffer pool its builder was given, or — for each
 * not given — its own, made at start (a pool named {@code broker}, a scheduler named {@code broker-scheduler})
 * as beans of the client, so that they start and stop with it, and dropped at stop, so that a restart makes
 * new ones. Injected ones are never started or stopped by the client. Used by the client's lifecycle only.
 */
final class ClientResources {
    private final Executor injectedExecutor;
    private final Scheduler injectedScheduler;
    private final ByteBufferPool injectedBuffers;

    ClientResources(Executor executor, Scheduler scheduler, ByteBufferPool buffers) {
        this.injectedExecutor = executor;
        this.injectedScheduler = scheduler;
        this.injectedBuffers = buffers;
    }

    /** The executor given to the builder, or null. */
    Executor injectedExecutor() {
        return injectedExecutor;
    }

    /** The injected executor, or a pool of the client's own, added as its bean. */
    Executor executor(ContainerLifeCycle client) {
        if (injectedExecutor != null) {
            return injectedExecutor;
        }
        QueuedThreadPool pool = new QueuedThreadPool(200, 4);
        pool.setName("broker");
        client.addBean(pool, true);
        return pool;
    }

    /** The injected scheduler, or one of the client's own, added as its bean. */
    Scheduler scheduler(ContainerLifeCycle client) {
        if (injectedScheduler != null) {
            return injectedScheduler;
        }
        Scheduler scheduler = new ScheduledExecutorScheduler("broker-scheduler", false);
        client.addBean(scheduler, true);
        return scheduler;
    }

    ByteBufferPool buffers() {
        return injectedBuffers != null ? injectedBuffers : new ArrayByteBufferPool();
    }

    /** Removes the pool and scheduler {@link #executor} and {@link #scheduler} made, once the client stopped. */
    void dropOwn(ContainerLifeCycle client) {
        for (Object bean : List.copyOf(client.getBeans())) {
            if (bean instanceof QueuedThreadPool || bean instanceof ScheduledExecutorScheduler) {
                client.removeBean(bean);
            }
        }
    }
}
