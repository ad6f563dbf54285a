package io.rc10k.broker.internal;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * A task handed to an {@link Http1Loop} as it stops runs exactly once: on the loop, in the loop's last
 * drain, or on the caller once the loop has ended (it then fails the call it carries). A task that never
 * runs is a call that never completes. On the loop's own {@link LoopTasks}: a real loop cannot be made per
 * jcstress state (each holds a selector and a 64 KB direct buffer, and jcstress makes up to 10,240 states at
 * once), and its tasks are all this needs.
 */
@JCStressTest
@Description("Http1Loop: a task queued while the loop ends runs exactly once")
@Outcome(id = "1", expect = Expect.ACCEPTABLE, desc = "the task ran once")
@Outcome(id = "0", expect = Expect.FORBIDDEN, desc = "queued after the loop's last drain: never run, its call hangs")
@Outcome(expect = Expect.FORBIDDEN, desc = "the task ran twice")
@State
public class Http1LoopStopTest {
    private final LoopTasks tasks = new LoopTasks();
    private final AtomicInteger ran = new AtomicInteger();
    private final Runnable task = ran::incrementAndGet;

    /** {@code Http1Loop.execute}. */
    @Actor
    public void callerQueuesTask() {
        tasks.add(task);
    }

    /** {@code Http1Loop.run}, its loop already left: the end of its {@code finally} block (closing nothing). */
    @Actor
    public void loopEnds() {
        tasks.end(() -> { });
    }

    @Arbiter
    public void arbiter(I_Result r) {
        r.r1 = ran.get();
    }
}
