package io.rc10k.benchmarks;

import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.Call;
import io.rc10k.broker.FanOutResult;
import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import io.rc10k.stubs.PartnerStubs;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * How many fan-outs of C calls per second (one fan-out is one mashup's outbound side), against a
 * zero-delay stub in this JVM over loopback: the broker client's async FanOut on a shared pool,
 * against the same C calls made with Jetty's blocking {@code send()} on one platform thread each,
 * on one virtual thread each, and with the JDK's {@code java.net.http.HttpClient.sendAsync} — the
 * peer a user would pick instead of this library. Eight mashups are in flight at a time.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar FanOutBenchmark -prof gc
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar benchmarks/target/benchmarks.jar FanOutBenchmark -prof gc
 * </pre>
 *
 * The score is mashups per second; {@code -prof gc} adds {@code gc.alloc.rate.norm}, the bytes
 * allocated per mashup (client side and, since the stub shares the JVM, the stub's side too).
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
    private ExecutorService virtualThreadPerCall;
    private java.net.http.HttpClient jdkClient;
    private URI target;
    private HttpRequest jdkRequest;

    @Setup(Level.Trial)
    public void start(BenchmarkParams params) throws Exception {
        if (params.getBenchmark().endsWith(".blockingSendVirtualThreadPerCall")) {
            // First, before anything starts: a failed setup gets no teardown.
            virtualThreadPerCall = newVirtualThreadPerTaskExecutor();
        }
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

        // HTTP/1.1 as the stub speaks it; the default (HTTP/2) would add an h2c upgrade attempt to every
        // new connection. Its own default executor, as a user would have it.
        jdkClient = java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).build();
        jdkRequest = HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(10)).GET().build();
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        // HttpClient is AutoCloseable from JDK 21 on; on 17 its daemon threads end with the JVM.
        if (jdkClient instanceof AutoCloseable closeable) {
            closeable.close();
        }
        threadPerCall.shutdownNow();
        if (virtualThreadPerCall != null) {
            virtualThreadPerCall.shutdownNow();
        }
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
            fanOut.add(Call.to("stub").path("stub").build());
        }
        FanOutResult result = fanOut.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
        return (int) result.count(Outcome.Kind.OK);
    }

    /** The same C calls, each blocking a platform thread of its own in {@code send()} (the paper's Eq. 1). */
    @Benchmark
    public int blockingSendThreadPerCall() throws Exception {
        return blockingFanOut(threadPerCall);
    }

    /**
     * The same blocking code with each call on a virtual thread of its own. JDK 21 or newer.
     *
     * <p>On an older JDK this benchmark's setup fails fast with a message naming the JDK and how to run
     * one that has virtual threads, rather than skipping: JMH has no "skipped" result, so a skip would
     * either print a score for work not done or leave a row silently missing from the table. JMH
     * reports the failure for this benchmark alone and goes on with the others (unless
     * {@code -foe true}). {@code Executors.newVirtualThreadPerTaskExecutor()} is reached by reflection
     * because this code is compiled with {@code --release 17}.</p>
     */
    @Benchmark
    public int blockingSendVirtualThreadPerCall() throws Exception {
        return blockingFanOut(virtualThreadPerCall);
    }

    /** The same C calls with the JDK's client: {@code sendAsync} each, then wait for all. */
    @Benchmark
    public int jdkHttpClientSendAsync() throws Exception {
        List<CompletableFuture<HttpResponse<byte[]>>> answers = new ArrayList<>(calls);
        for (int i = 0; i < calls; i++) {
            answers.add(jdkClient.sendAsync(jdkRequest, HttpResponse.BodyHandlers.ofByteArray()));
        }
        int ok = 0;
        for (CompletableFuture<HttpResponse<byte[]>> answer : answers) {
            ok += answer.get(30, TimeUnit.SECONDS).statusCode() == 200 ? 1 : 0;
        }
        return ok;
    }

    private static ExecutorService newVirtualThreadPerTaskExecutor() {
        try {
            return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new UnsupportedOperationException("blockingSendVirtualThreadPerCall needs virtual threads (JDK 21 "
                    + "or newer); this is " + Runtime.version() + ". Run the jar with a newer java, or give the forks "
                    + "one with -jvm /path/to/jdk-21+/bin/java", e);
        }
    }

    private int blockingFanOut(ExecutorService threads) throws Exception {
        List<Future<Integer>> answers = new ArrayList<>(calls);
        for (int i = 0; i < calls; i++) {
            answers.add(threads.submit(() -> blockingClient.newRequest(target)
                    .timeout(10, TimeUnit.SECONDS).send().getStatus()));
        }
        int ok = 0;
        for (Future<Integer> answer : answers) {
            ok += answer.get(30, TimeUnit.SECONDS) == 200 ? 1 : 0;
        }
        return ok;
    }
}
