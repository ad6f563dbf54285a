package io.rc10k.mashup.internal.observability;

import ch.qos.logback.classic.AsyncAppender;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Logback's {@link AsyncAppender} that never blocks the thread that logs and counts every line it
 * drops ({@code mashup_log_dropped_lines_total}). The standalone server's {@code logback.xml} puts its
 * console appender behind it: a line logged on a selector or a broker loop (the access line of a mashup
 * answered there) is queued, and one thread ({@code AsyncAppender-Worker-ASYNC}) writes it.
 *
 * <pre>{@code
 * <appender name="ASYNC" class="io.rc10k.mashup.internal.observability.CountingAsyncAppender">
 *     <queueSize>8192</queueSize>
 *     <appender-ref ref="STDERR"/>
 * </appender>
 * }</pre>
 *
 * <p>A line is dropped only when {@code queueSize} lines are already waiting to be written (or, if a
 * configuration sets a {@code discardingThreshold} above its default of 0, when a TRACE, DEBUG or INFO
 * line finds fewer places left than that). {@code neverBlock} is always on. Exact counting: Logback's
 * queue drops a line it has no room for without telling; so this appender counts the lines waiting
 * (accepted, not yet handed to the console appender) and keeps them at most {@code queueSize}, so
 * that the queue always has room for the line it is offered, and the line over is dropped here and
 * counted.</p>
 *
 * <p>Threading: {@link #append} from any thread, never waiting (it may park on the queue's lock while
 * another thread adds or the writer takes a few lines); the attached appender runs on the worker.</p>
 */
public final class CountingAsyncAppender extends AsyncAppender {
    /** Lines accepted and not yet handed to the attached appender: queued, or taken by the worker. */
    private final AtomicInteger waiting = new AtomicInteger();

    public CountingAsyncAppender() {
        setNeverBlock(true);
        setDiscardingThreshold(0);
    }

    @Override
    public void start() {
        if (!isNeverBlock()) {
            addWarn("neverBlock=false ignored: " + getName() + " never blocks the thread that logs");
            setNeverBlock(true);
        }
        super.start();
    }

    @Override
    public void addAppender(Appender<ILoggingEvent> appender) {
        Handoff handoff = new Handoff(appender);
        handoff.setContext(getContext());
        handoff.start();
        super.addAppender(handoff);
    }

    @Override
    protected void append(ILoggingEvent event) {
        if (waiting.incrementAndGet() > getQueueSize()) {
            waiting.decrementAndGet();
            DroppedLogLines.add();
            return;
        }
        // Fewer than queueSize lines wait besides this one, so the queue has room: Logback's offer succeeds.
        boolean handled = false;
        try {
            super.append(event);
            handled = true;
        } finally {
            if (!handled) {
                waiting.decrementAndGet(); // preparing the line failed (Logback reports it): it never waited
            }
        }
    }

    @Override
    protected boolean isDiscardable(ILoggingEvent event) {
        // Asked only when fewer than discardingThreshold places are left; true drops the line.
        boolean discard = super.isDiscardable(event);
        if (discard) {
            waiting.decrementAndGet();
            DroppedLogLines.add();
        }
        return discard;
    }

    /** Lines dropped by every appender of this class since the JVM started. */
    public static long dropped() {
        return DroppedLogLines.count();
    }

    /** The attached appender, as the worker sees it: a line handed to it no longer waits. */
    private final class Handoff extends UnsynchronizedAppenderBase<ILoggingEvent> {
        private final Appender<ILoggingEvent> target;

        Handoff(Appender<ILoggingEvent> target) {
            this.target = target;
            setName(target.getName());
        }

        @Override
        public void doAppend(ILoggingEvent event) {
            waiting.decrementAndGet();
            target.doAppend(event);
        }

        @Override
        protected void append(ILoggingEvent event) {
            target.doAppend(event); // not reached: doAppend hands every line over
        }
    }
}
