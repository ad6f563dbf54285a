package io.rc10k.broker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * {@link LoopTasks}, driven directly on one thread (the hand-over as a loop ends, raced, is the jcstress test
 * {@code Http1LoopStopTest}): the loop runs what was queued, a bounded number at a time, and every task runs
 * once even after the loop has ended.
 */
class LoopTasksTest {
    private final LoopTasks tasks = new LoopTasks();
    private final List<String> ran = new CopyOnWriteArrayList<>();

    private Runnable task(String name) {
        return () -> ran.add(name);
    }

    @Test
    void theLoopRunsWhatWasQueuedInOrderAndNoMoreThanItsBoundAtATime() {
        for (int i = 0; i < 5; i++) {
            assertTrue(tasks.add(task("t" + i)), "queued for the loop");
        }
        tasks.runSome(3);
        assertEquals(List.of("t0", "t1", "t2"), ran);
        assertFalse(tasks.isEmpty());
        tasks.runSome(3);
        assertEquals(List.of("t0", "t1", "t2", "t3", "t4"), ran);
        assertTrue(tasks.isEmpty());
    }

    @Test
    void asTheLoopEndsWhatIsQueuedAndWhatClosingQueuesRunThenLaterTasksRunOnTheirCaller() throws Exception {
        tasks.add(task("queued"));
        assertFalse(tasks.awaitEnd(0));
        tasks.end(() -> {
            ran.add("closing");
            tasks.add(task("queued while closing"));
        });
        assertEquals(List.of("queued", "closing", "queued while closing"), ran);
        assertTrue(tasks.awaitEnd(0));
        assertFalse(tasks.add(task("after the end")), "nobody would run it later");
        assertEquals("after the end", ran.get(ran.size() - 1));
        assertTrue(tasks.isEmpty());
    }

    @Test
    void aTaskThatThrowsIsIgnoredAndTheNextStillRuns() {
        tasks.add(() -> {
            throw new IllegalStateException("a task's bug (expected by the test)");
        });
        tasks.add(task("next"));
        tasks.runSome(10);
        assertEquals(List.of("next"), ran);
    }
}
