package io.rc10k.broker.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingMethod;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * The blocking calls BlockHound saw on event threads ({@link EventThreadIntegration}) in this test JVM,
 * kept until a test takes them. {@link BlockHoundExtension} installs BlockHound and fails each test
 * during which one was seen; a test that makes one on purpose takes it with {@link #take()}.
 *
 * <pre>{@code
 * CountDownLatch done = new CountDownLatch(1);
 * onALoop(() -> { Thread.sleep(1); done.countDown(); });   // recorded before the sleep goes ahead
 * assertTrue(done.await(10, TimeUnit.SECONDS));
 * assertEquals("java.lang.Thread.sleep", BlockingCalls.take().get(0).method());
 * }</pre>
 *
 * <p>Threading: calls are recorded on the thread that made them, without blocking it or throwing into
 * it (Jetty and the broker would log and swallow the error, and the test might pass); the call then
 * goes ahead. Taken from any thread.</p>
 */
public final class BlockingCalls {
    /** Enough to see the pattern; a loop that blocks on every call would otherwise fill the heap. */
    private static final int KEPT = 20;
    private static final Queue<Seen> SEEN = new ConcurrentLinkedQueue<>();
    private static final AtomicInteger COUNT = new AtomicInteger();
    private static final ThreadLocal<Boolean> RECORDING = new ThreadLocal<>();
    private static boolean installed;

    /** One blocking call: the method, the thread, and the stack from the caller of the method up. */
    public record Seen(String method, String thread, Throwable stack) {
        AssertionError error() {
            AssertionError error = new AssertionError("blocking call " + method + " on the event thread " + thread
                    + " (event threads never block: DESIGN.md; what counts as one: EventThreadIntegration)");
            error.setStackTrace(stack.getStackTrace());
            return error;
        }
    }

    private BlockingCalls() {
    }

    /** Installs BlockHound for this JVM, once; later calls do nothing. */
    public static synchronized void install() {
        if (installed) {
            return;
        }
        try {
            BlockHound.Builder builder = BlockHound.builder().with(new EventThreadIntegration());
            // What a module allows on top (its own queues, its test logging backend), listed in its test
            // tree's META-INF/services. Not BlockHound's bundled integrations (BlockHound.install() loads
            // them): they allow every console write and Logback's synchronous appenders, just what an event
            // thread must not reach.
            for (BlockHoundIntegration more : ServiceLoader.load(BlockHoundIntegration.class)) {
                if (!more.getClass().getName().startsWith("reactor.blockhound.")) {
                    builder.with(more);
                }
            }
            builder.blockingMethodCallback(BlockingCalls::record).install();
        } catch (RuntimeException e) {
            throw new IllegalStateException("BlockHound could not be installed; its test JVM needs "
                    + "-XX:+AllowRedefinitionToAddDeleteMethods and -Djdk.attach.allowAttachSelf=true (the "
                    + "blockhound.argLine property of the parent pom; an IDE needs them in its JUnit VM options)", e);
        }
        installed = true;
    }

    private static void record(BlockingMethod method) {
        if (RECORDING.get() != null) {
            return; // a blocking call made while recording one: recording it too would never end
        }
        RECORDING.set(Boolean.TRUE);
        try {
            if (COUNT.incrementAndGet() <= KEPT) {
                Throwable stack = new Throwable();
                stack.setStackTrace(callerUp(stack.getStackTrace()));
                SEEN.add(new Seen(method.toString(), Thread.currentThread().getName(), stack));
            }
        } finally {
            RECORDING.remove();
        }
    }

    /** The frames from the blocking method's caller up: BlockHound's and this class's are noise. */
    private static StackTraceElement[] callerUp(StackTraceElement[] frames) {
        for (int i = 0; i < frames.length; i++) {
            if (frames[i].getClassName().equals("reactor.blockhound.BlockHoundRuntime")
                    && frames[i].getMethodName().equals("checkBlocking")) {
                return Arrays.copyOfRange(frames, i + 1, frames.length);
            }
        }
        return frames;
    }

    /** Every call seen since the last take, oldest first (at most the first {@value #KEPT}). */
    public static List<Seen> take() {
        List<Seen> taken = new ArrayList<>();
        for (Seen seen = SEEN.poll(); seen != null; seen = SEEN.poll()) {
            taken.add(seen);
        }
        COUNT.set(0);
        return taken;
    }

    /** Fails with every call seen since the last take: the first as the error, the others suppressed. */
    public static void assertNone() {
        int count = COUNT.get();
        List<Seen> seen = take();
        if (seen.isEmpty()) {
            return;
        }
        AssertionError first = seen.get(0).error();
        seen.stream().skip(1).map(Seen::error).forEach(first::addSuppressed);
        if (count > seen.size()) {
            first.addSuppressed(new AssertionError((count - seen.size()) + " more blocking calls not kept"));
        }
        throw first;
    }
}
