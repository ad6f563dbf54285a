package io.rc10k.benchmarks.load;

import io.rc10k.benchmarks.capacity.StubProcess;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Recorder;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The processes, the definitions and the load client of one {@link LoadExperiment}: partner stubs and a mashup
 * server, each a process of its own, and the open-model load that phases send.
 */
final class LoadRig implements AutoCloseable {
    private static final Pattern METRIC = Pattern.compile("(?m)^([a-z_]+)(\\{[^}]*})? ([0-9.eE+-]+)$");

    final StubProcess stubs;
    final MashupProcess server;
    final HttpClient client;
    final int maxInFlight;
    final LoadExperiment.Checks checks;

    private LoadRig(StubProcess stubs, MashupProcess server, HttpClient client, int maxInFlight, LoadExperiment.Checks checks) {
        this.stubs = stubs;
        this.server = server;
        this.client = client;
        this.maxInFlight = maxInFlight;
        this.checks = checks;
    }

    static LoadRig start(int maxInFlight, LoadExperiment.Checks checks) throws Exception {
        StubProcess stubs = StubProcess.start(Path.of(System.getProperty("rc10k.stubs.jar",
                StubProcess.DEFAULT_JAR.toString())), List.of("-Xmx512m"),
                List.of("--max-stall", "5000"));
        Path definitions = Files.createTempFile("rc10k-load", ".json");
        definitions.toFile().deleteOnExit();
        String base = stubs.uri().toString();
        Files.writeString(definitions, """
                {"partners": {
                   "p1": {"baseUri": "%s", "maxConnections": 4096, "maxQueued": 8192},
                   "p2": {"baseUri": "%s", "maxConnections": 4096, "maxQueued": 8192},
                   "flaky": {"baseUri": "%s", "maxConnections": 4096, "maxQueued": 8192, "retries": 0,
                             "maxResponseBytes": 4096, "circuitBreaker": {"enabled": false}}},
                 "mashups": {
                   "paper": {"deadlineMillis": %d, "calls": [
                     {"partner": "p1", "template": "/stub?delay=500"},
                     {"partner": "p2", "template": "/stub?delay=1000"}]},
                   "mix": {"deadlineMillis": %d, "parameters": {"f": {"required": true}},
                     "calls": [{"partner": "p1", "template": "/stub?delay=500"},
                               {"partner": "flaky", "template": "/stub?delay=300&fault={f}&bytes=1000"}]}}}
                """.formatted(base, base, base, LoadExperiment.DEADLINE_MILLIS, LoadExperiment.DEADLINE_MILLIS));
        MashupProcess server = MashupProcess.start(Path.of(System.getProperty("rc10k.mashup.jar",
                MashupProcess.DEFAULT_JAR.toString())), List.of("-Xmx512m"),
                List.of("--config", definitions.toString(), "--max-inflight", Integer.toString(maxInFlight)));
        QueuedThreadPool pool = new QueuedThreadPool(32, 8);
        pool.setName("load");
        HttpClient client = new HttpClient();
        client.setExecutor(pool);
        client.setMaxConnectionsPerDestination(8_000);
        client.setMaxRequestsQueuedPerDestination(100_000);
        client.setIdleTimeout(30_000);
        client.start();
        return new LoadRig(stubs, server, client, maxInFlight, checks);
    }

    /** Sends at {@code rate} per second for {@code seconds}; then measures how soon the server answers normally. */
    LoadExperiment.Phase run(String name, double rate, long seconds, boolean faults) throws Exception {
        System.out.printf("phase %s: %.0f requests/s for %d s%n", name, rate, seconds);
        URI paper = server.uri().resolve("/mashup/paper");
        String[] faultMix = {"reset", "stall", "malformed-json", "close-mid-body", "drip"};
        Recorder ok = new Recorder(3);
        Recorder shed = new Recorder(3);
        Recorder shedSent = new Recorder(3);
        LongAdder okCount = new LongAdder();
        LongAdder shedCount = new LongAdder();
        LongAdder other = new LongAdder();
        LongAdder failed = new LongAdder();
        Map<String, LongAdder> firstOthers = new ConcurrentHashMap<>();
        AtomicLong maxInbound = new AtomicLong();
        AtomicLong maxHeap = new AtomicLong();
        Thread sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    Map<String, Double> m = metrics();
                    maxInbound.accumulateAndGet(m.getOrDefault("mashup_inbound_inflight", 0.0).longValue(), Math::max);
                    maxHeap.accumulateAndGet((long) LoadExperiment.sum(m, "jvm_memory_used_bytes{area=\"heap\""), Math::max);
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    // A missed sample; the next one counts.
                }
            }
        }, "metrics-sampler");
        sampler.setDaemon(true);
        sampler.start();

        SplittableRandom random = new SplittableRandom(1);
        long total = Math.round(rate * seconds);
        long intervalNanos = (long) (1e9 / rate);
        long start = System.nanoTime();
        AtomicLong outstanding = new AtomicLong();
        for (long i = 0; i < total; i++) {
            long intended = start + i * intervalNanos;
            long wait = intended - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            URI target = faults && random.nextInt(5) == 0
                    ? server.uri().resolve("/mashup/mix?f=" + faultMix[random.nextInt(faultMix.length)])
                    : paper;
            outstanding.incrementAndGet();
            long sent = System.nanoTime();
            client.newRequest(target).timeout(LoadExperiment.DEADLINE_MILLIS + 10_000, TimeUnit.MILLISECONDS).send(result -> {
                long micros = (System.nanoTime() - intended) / 1_000;
                if (result.isFailed()) {
                    failed.increment();
                    firstOthers.computeIfAbsent(String.valueOf(result.getFailure()), k -> new LongAdder()).increment();
                } else if (result.getResponse().getStatus() == 200) {
                    okCount.increment();
                    ok.recordValue(micros);
                } else if (result.getResponse().getStatus() == 503) {
                    shedCount.increment();
                    shed.recordValue(micros);
                    shedSent.recordValue((System.nanoTime() - sent) / 1_000);
                } else {
                    other.increment();
                    firstOthers.computeIfAbsent("status " + result.getResponse().getStatus(),
                            k -> new LongAdder()).increment();
                }
                outstanding.decrementAndGet();
            });
        }
        long loadEnd = System.nanoTime();
        long deadline = loadEnd + TimeUnit.MILLISECONDS.toNanos(LoadExperiment.DEADLINE_MILLIS + 15_000);
        while (outstanding.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        long recovery = recovery(paper, loadEnd);
        sampler.interrupt();
        if (!firstOthers.isEmpty()) {
            System.out.println("  unexpected: " + firstOthers);
        }
        LoadExperiment.Phase phase = new LoadExperiment.Phase(name, rate, seconds, total, okCount.sum(), shedCount.sum(), other.sum(),
                failed.sum() + outstanding.get(), ok.getIntervalHistogram(), shed.getIntervalHistogram(),
                shedSent.getIntervalHistogram(),
                maxInbound.get(), maxHeap.get() / (double) (1 << 20), recovery, checks);
        System.out.println("  " + phase.row());
        return phase;
    }

    /** Milliseconds from the end of the load until a fresh request is answered 200 within its deadline. */
    private long recovery(URI paper, long loadEnd) throws InterruptedException {
        long limit = loadEnd + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < limit) {
            try {
                long t = System.nanoTime();
                ContentResponse r = client.newRequest(paper).timeout(LoadExperiment.DEADLINE_MILLIS + 1_000, TimeUnit.MILLISECONDS)
                        .send();
                if (r.getStatus() == 200 && System.nanoTime() - t < TimeUnit.MILLISECONDS.toNanos(LoadExperiment.DEADLINE_MILLIS)) {
                    return Math.max(0, (t - loadEnd) / 1_000_000);
                }
            } catch (Exception e) {
                // Not yet normal; try again.
            }
            Thread.sleep(100);
        }
        return Long.MAX_VALUE / 1_000_000;
    }

    void quiesce() throws Exception {
        long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < limit) {
            Map<String, Double> m = metrics();
            if (m.getOrDefault("mashup_inbound_inflight", 1.0) == 0 && m.getOrDefault("mashup_outbound_inflight", 1.0) == 0) {
                return;
            }
            Thread.sleep(100);
        }
    }

    double heapMiB() throws Exception {
        return LoadExperiment.sum(metrics(), "jvm_memory_used_bytes{area=\"heap\"") / (1 << 20);
    }

    Map<String, Double> metrics() throws Exception {
        String text = client.newRequest(server.uri().resolve("/metrics")).timeout(10, TimeUnit.SECONDS).send()
                .getContentAsString();
        Map<String, Double> values = new ConcurrentHashMap<>();
        Matcher m = METRIC.matcher(text);
        while (m.find()) {
            values.merge(m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.parseDouble(m.group(3)),
                    Double::sum);
        }
        return values;
    }

    @Override
    public void close() throws Exception {
        client.stop();
        server.close();
        stubs.close();
    }
}
