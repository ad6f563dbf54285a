package io.rc10k.benchmarks;

import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.FanOutResult;
import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import io.rc10k.stubs.PartnerStubs;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * How many fan-outs of C calls per second, against a zero-delay stub in this JVM over loopback:
 * the broker client's async FanOut on a shared pool, against the same calls made with Jetty's
 * blocking {@code send()} on one platform thread each. Eight mashups are in flight at a time.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar FanOutBenchmark -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(8)
public class FanOutBenchmark {
    @Param({"1", "6", "16"})
    public int calls;

    private PartnerStubs stubs;
    private QueuedThreadPool pool;
    private ScheduledExecutorScheduler scheduler;
    private BrokerClient broker;
    private HttpClient blockingClient;
    private ExecutorService threadPerCall;
    private URI target;

    @Setup(Level.Trial)
    public void start() throws Exception {
        stubs = PartnerStubs.start();
        target = stubs.uri().resolve("/stub");
        pool = new QueuedThreadPool(64, 8);
        pool.setName("bench");
        scheduler = new ScheduledExecutorScheduler("bench-scheduler", false);
        pool.start();
        scheduler.start();
        broker = BrokerClient.builder()
                .partner(Partner.builder("stub", stubs.uri().toString()).maxConnections(256).build())
                .executor(pool).scheduler(scheduler).byteBufferPool(new ArrayByteBufferPool())
                .build();
        broker.start();

        blockingClient = new HttpClient();
        blockingClient.setMaxConnectionsPerDestination(256);
        blockingClient.start();
        AtomicInteger n = new AtomicInteger();
        threadPerCall = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "blocking-call-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        threadPerCall.shutdownNow();
        blockingClient.stop();
        broker.stop();
        scheduler.stop();
        pool.stop();
        stubs.close();
    }

    /** One fan-out: C exchanges started at once, the caller resumed when all have answered. */
    @Benchmark
    public int brokerAsync() throws Exception {
        var fanOut = broker.fanOut(Duration.ofSeconds(10));
        for (int i = 0; i < calls; i++) {
            fanOut.call("stub", "stub");
        }
        FanOutResult result = fanOut.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
        return (int) result.count(Outcome.Kind.OK);
    }

    /** The same C calls, each blocking a platform thread of its own in {@code send()} (the paper's Eq. 1). */
    @Benchmark
    public int blockingSendThreadPerCall() throws Exception {
        List<Future<Integer>> answers = new ArrayList<>(calls);
        for (int i = 0; i < calls; i++) {
            answers.add(threadPerCall.submit(() -> blockingClient.newRequest(target)
                    .timeout(10, TimeUnit.SECONDS).send().getStatus()));
        }
        int ok = 0;
        for (Future<Integer> answer : answers) {
            ok += answer.get(30, TimeUnit.SECONDS) == 200 ? 1 : 0;
        }
        return ok;
    }
}
