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
 * runs is a call that never completes. On {@link Http1LoopStopModel}, a copy of the loop's hand-over.
 */
@JCStressTest
@Description("Http1Loop: a task queued while the loop ends runs exactly once")
@Outcome(id = "1", expect = Expect.ACCEPTABLE, desc = "the task ran once")
@Outcome(id = "0", expect = Expect.FORBIDDEN, desc = "queued after the loop's last drain: never run, its call hangs")
@Outcome(expect = Expect.FORBIDDEN, desc = "the task ran twice")
@State
public class Http1LoopStopTest {
    private final Http1LoopStopModel loop = new Http1LoopStopModel();
    private final AtomicInteger ran = new AtomicInteger();
    private final Runnable task = ran::incrementAndGet;

    @Actor
    public void callerQueuesTask() {
        loop.execute(task);
    }

    @Actor
    public void loopEnds() {
        loop.end();
    }

    @Arbiter
    public void arbiter(I_Result r) {
        r.r1 = ran.get();
    }
}
