package io.rc10k.broker.testing;

import java.lang.StackWalker.StackFrame;
import java.util.Iterator;
import java.util.function.Function;
import java.util.stream.Stream;
import org.eclipse.jetty.util.thread.Invocable;
import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * What BlockHound must know of this project's event threads (DESIGN.md: event threads never block).
 * A thread is on an event thread while it
 * <ul>
 * <li>runs one of the broker's HTTP/1.1 loops ({@code Http1Loop.run}, a long task on the shared pool),
 *     with everything the loop runs: response parsing, listener events, fan-out results, the mashup
 *     answers written there and the inbound connections {@code ResumingPool} resumes there;</li>
 * <li>produces for a Jetty {@code AdaptiveExecutionStrategy}: a {@code ManagedSelector} selecting and
 *     running the {@code NON_BLOCKING} tasks it produced itself (PC mode: a mashup GET behind
 *     {@code InlineMashups}, a partner stub's request), or an HTTP/2 connection parsing frames;</li>
 * <li>runs a task Jetty invoked as non-blocking ({@link Invocable#isNonBlockingInvocation()}: PIC mode,
 *     an {@code EITHER} task run by a producer that had no other thread to hand production to).</li>
 * </ul>
 * A producer that handed production to another thread before it runs a task that may block (EPC mode,
 * {@code epcRunTask}) is a worker again for that task. A pool thread is an event thread for some tasks
 * and a worker for others, so BlockHound asks at every blocking call (every thread is dynamic) and the
 * answer comes from the innermost of those frames on the stack.
 *
 * <p>The allow-list is below, each entry with why: waits of Jetty and the JDK that are part of running
 * an event loop. A module adds its own (its queues, its test logging backend) in an integration listed
 * in its test tree's {@code META-INF/services/reactor.blockhound.integration.BlockHoundIntegration}.
 * Not listed because BlockHound never reports it: the selectors' own wait ({@code Selector.select}:
 * {@code EPoll.wait} and monitors), non-blocking channel reads and writes themselves.</p>
 *
 * <pre>{@code
 * BlockHound.builder().with(new EventThreadIntegration()).install();
 * }</pre>
 */
public final class EventThreadIntegration implements BlockHoundIntegration {
    private static final String STRATEGY = "org.eclipse.jetty.util.thread.strategy.AdaptiveExecutionStrategy";
    private static final String LOOP = "io.rc10k.broker.internal.Http1Loop";
    private static final StackWalker WALKER = StackWalker.getInstance();
    private static final Function<Stream<StackFrame>, Boolean> INNERMOST = EventThreadIntegration::innermost;

    @Override
    public void applyTo(BlockHound.Builder builder) {
        builder.addDynamicThreadPredicate(thread -> true);
        builder.nonBlockingThreadPredicate(current -> current.or(thread -> onEventThread()));

        // Jetty's AutoLock guards short state changes (a selector's update queue, a pool's job queue, a
        // channel's state) and is never held across I/O or a callback: a contended one parks for as long
        // as another thread takes to change a few fields. Its await (a real wait) stays checked.
        builder.allowBlockingCallsInside("org.eclipse.jetty.util.thread.AutoLock", "lock");
        // Loading a class, once per JVM, reads its jar: the first malformed answer a loop sees loads the
        // exception that names it, and Jetty's HttpParser reads its MIME table as it is first initialised.
        // Not I/O on a request's path; a class loaded again is found in memory.
        builder.allowBlockingCallsInside("java.lang.ClassLoader", "loadClass");
        builder.allowBlockingCallsInside("org.eclipse.jetty.http.MimeTypes", "<clinit>");
        // Lock-free structures that spin (Thread.onSpinWait) for the few instructions a concurrent
        // thread needs to publish what it has already claimed: the next link of a serialized invoker
        // (the broker's listener events), a connection or buffer pool entry being released.
        builder.allowBlockingCallsInside("org.eclipse.jetty.util.thread.SerializedInvoker$Link", "next");
        builder.allowBlockingCallsInside("org.eclipse.jetty.util.ConcurrentPool$Holder", "acquired");
        // A write being cancelled as its connection closes (a server stopping) spins while another thread is
        // inside that connection's one non-blocking write, for as long as that system call takes.
        builder.allowBlockingCallsInside("org.eclipse.jetty.io.WriteFlusher", "cancelWrite");
        // A socket channel's read and write locks: closing a non-blocking channel takes both once, to let a
        // read or write another thread has in progress finish, and a read or write waits the same way for a
        // close. Each is held across one non-blocking system call, never a wait for the peer. (Channel I/O
        // itself is not something BlockHound sees: these allow only the locks.)
        builder.allowBlockingCallsInside("sun.nio.ch.SocketChannelImpl", "implCloseNonBlockingMode");
        builder.allowBlockingCallsInside("sun.nio.ch.SocketChannelImpl", "read");
        builder.allowBlockingCallsInside("sun.nio.ch.SocketChannelImpl", "write");
        // A selector finishing a closed channel's deregistration, inside its select: the channel's state lock,
        // which the thread that closed it holds only for the few fields of that close.
        builder.allowBlockingCallsInside("sun.nio.ch.SocketChannelImpl", "kill");
        // Setting or cancelling a timer (a fan-out deadline, Jetty's idle timeouts) takes the scheduler
        // queue's lock, which its one thread holds only to move the queue's head, never while it waits.
        builder.allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue",
                "offer");
        builder.allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue",
                "remove");
        // Cancelling a timer while the scheduler shuts down (the client stopping, its connections closing on
        // their event threads) also tries to finish the shutdown: the executor's lock over its worker set,
        // held only to count and interrupt idle workers. Running, it returns before the lock.
        builder.allowBlockingCallsInside("java.util.concurrent.ThreadPoolExecutor", "tryTerminate");
    }

    /** True when the current thread is on an event thread now, by the rules of the class javadoc. */
    static boolean onEventThread() {
        return Invocable.isNonBlockingInvocation() || WALKER.walk(INNERMOST);
    }

    private static Boolean innermost(Stream<StackFrame> frames) {
        Iterator<StackFrame> it = frames.iterator();
        while (it.hasNext()) {
            StackFrame frame = it.next();
            String type = frame.getClassName();
            if (type.equals(STRATEGY)) {
                String method = frame.getMethodName();
                if (method.equals("epcRunTask")) {
                    return false;
                }
                if (method.equals("tryProduce")) {
                    return true;
                }
            } else if (type.equals(LOOP) && frame.getMethodName().equals("run")) {
                return true;
            }
        }
        return false;
    }
}
