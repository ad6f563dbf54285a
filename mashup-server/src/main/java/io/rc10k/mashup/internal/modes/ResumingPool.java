package io.rc10k.mashup.internal.modes;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.server.AbstractMetaDataConnection;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The standalone server's pool in async mode: it runs an inbound connection's resumption on a broker
 * loop instead of waking a thread for it.
 *
 * <p>When an answer completes on a thread other than the one that read its request — in async mode,
 * the broker loop that read the last part — Jetty hands the connection to the pool, to read what the
 * client sent next. That read mostly finds nothing and re-arms the connection; at most it finds the
 * next request, and a mashup GET is itself non-blocking ({@link InlineMashups} hands anything else to
 * the pool). So on a loop the pool runs it there: no wake-up, no context switch per mashup
 * (docs/results/peers.md). From any other thread, and for any other job, it is an ordinary pool.</p>
 *
 * <pre>{@code
 * ResumingPool pool = new ResumingPool(200, 8);
 * // ... once the broker client exists:
 * pool.resumeOn(broker::isLoopThread);
 * }</pre>
 *
 * <p>Threading: {@link #resumeOn} once, before the server serves; {@link #execute} from any thread.</p>
 */
public final class ResumingPool extends QueuedThreadPool {
    private volatile BooleanSupplier onLoop = () -> false;
    private final LongAdder resumedInline = new LongAdder();

    public ResumingPool(int maxThreads, int minThreads) {
        super(maxThreads, minThreads);
    }

    /** Where connections may be resumed in place: true on a thread that may run them (a broker loop). */
    public void resumeOn(BooleanSupplier onLoop) {
        this.onLoop = onLoop;
    }

    @Override
    public void execute(Runnable job) {
        // Jetty's HTTP/1.1 server connection is the Runnable it hands over to resume reading.
        if (job instanceof AbstractMetaDataConnection && onLoop.getAsBoolean()) {
            resumedInline.increment();
            job.run();
            return;
        }
        super.execute(job);
    }

    /** Connections resumed on the thread that completed their answer, since start. */
    public long resumedInline() {
        return resumedInline.sum();
    }
}
