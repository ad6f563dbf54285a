package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.AppenderBase;
import io.rc10k.mashup.internal.observability.CountingAsyncAppender;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The log queue never blocks the thread that logs: a line it has no room for is dropped and counted, exactly. */
class CountingAsyncAppenderTest {
    @Test
    void aLineThatFindsTheQueueFullIsDroppedAndCountedAndTheOthersAreWrittenInOrder() throws Exception {
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter()); // what a line's MDC is copied from when it is queued
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> written = new CopyOnWriteArrayList<>();
        AppenderBase<ILoggingEvent> stalled = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent event) {
                writing.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS); // a console nobody reads
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                written.add(event.getMessage());
            }
        };
        stalled.setContext(context);
        stalled.start();
        CountingAsyncAppender queue = new CountingAsyncAppender();
        queue.setContext(context);
        queue.setName("ASYNC");
        queue.setQueueSize(2);
        queue.addAppender(stalled);
        queue.start();
        try {
            long before = CountingAsyncAppender.dropped();
            queue.doAppend(event(context, "first"));
            assertTrue(writing.await(30, TimeUnit.SECONDS), "the writer took the first line");
            // The writer is stuck on the first line: two lines fit in the queue, the next three do not.
            for (String line : List.of("second", "third", "fourth", "fifth", "sixth")) {
                queue.doAppend(event(context, line));
            }
            assertEquals(3, CountingAsyncAppender.dropped() - before);
            release.countDown();
            queue.stop(); // writes what is queued
            assertEquals(List.of("first", "second", "third"), written);
        } finally {
            release.countDown();
            queue.stop();
            stalled.stop();
        }
    }

    private static ILoggingEvent event(LoggerContext context, String message) {
        Logger logger = context.getLogger("test");
        return new LoggingEvent(Logger.class.getName(), logger, Level.INFO, message, null, null);
    }
}
