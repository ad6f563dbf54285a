package io.rc10k.benchmarks.fleet;

import io.rc10k.benchmarks.capacity.StubProcess;
import io.rc10k.benchmarks.load.OpenModelLoad;
import io.rc10k.harness.Prometheus;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The processes of one fleet run: three partner stubs (one per partner), N mashup servers, HAProxy in
 * front of them, and the load generator's client. Closing it stops them all.
 */
final class Fleet implements AutoCloseable {
    private static final Pattern READY = Pattern.compile("mashup-server ready on (http://\\S+)");
    private static final String MASHUP = "/mashup/c6";
    /** The mashup's deadline: the calls take callMillis, so a complete answer comes well within it. */
    static final int DEADLINE_MILLIS = 10_000;
    private static final List<String> JVM = List.of("-Xmx1g");

    private final List<AutoCloseable> processes;
    private final List<ServerProcess> instances;
    private final List<URI> metrics;
    private final List<List<String>> instanceArgs;
    private final Path mashupJar;
    private final HaproxyProcess haproxy;
    private final HttpClient client;

    private Fleet(List<AutoCloseable> processes, List<ServerProcess> instances, List<URI> metrics,
            List<List<String>> instanceArgs, Path mashupJar, HaproxyProcess haproxy, HttpClient client) {
        this.processes = processes;
        this.instances = instances;
        this.metrics = metrics;
        this.instanceArgs = instanceArgs;
        this.mashupJar = mashupJar;
        this.haproxy = haproxy;
        this.client = client;
    }

    static Fleet start(int count, int callMillis) throws Exception {
        List<AutoCloseable> processes = new ArrayList<>();
        try {
            Path stubJar = Path.of(System.getProperty("rc10k.stubs.jar", StubProcess.DEFAULT_JAR.toString()));
            List<String> partners = new ArrayList<>();
            for (String name : List.of("a", "b", "c")) {
                StubProcess stub = StubProcess.start(stubJar, List.of("-Xmx2g"), List.of());
                processes.add(stub);
                partners.add("\"%s\": {\"baseUri\": \"%s\", \"maxConnections\": 5000, \"maxQueued\": 8192}"
                        .formatted(name, stub.uri()));
            }
            Path definitions = Files.createTempFile("rc10k-fleet", ".json");
            definitions.toFile().deleteOnExit();
            StringBuilder calls = new StringBuilder();
            for (String name : List.of("a", "b", "c")) {
                for (int i = 1; i <= 2; i++) {
                    calls.append(calls.isEmpty() ? "" : ",\n").append("{\"name\": \"%s%d\", \"partner\": \"%s\", "
                            .formatted(name, i, name)).append("\"template\": \"/stub?delay=%d&id=%d\"}"
                            .formatted(callMillis, i));
                }
            }
            Files.writeString(definitions, "{\"partners\": {" + String.join(",\n", partners) + "},\n"
                    + "\"mashups\": {\"c6\": {\"deadlineMillis\": " + DEADLINE_MILLIS + ", \"calls\": [" + calls
                    + "]}}}\n");
            Path mashupJar = Path.of(System.getProperty("rc10k.mashup.jar", "mashup-server/target/mashup-server.jar"));
            List<ServerProcess> instances = new ArrayList<>();
            List<URI> metrics = new ArrayList<>();
            List<List<String>> instanceArgs = new ArrayList<>();
            List<HaproxyProcess.Backend> backends = new ArrayList<>();
            // Closed with the fleet, whichever process runs each instance by then.
            processes.add(() -> instances.forEach(ServerProcess::close));
            for (int i = 0; i < count; i++) {
                int admin = ServerProcess.freePort();
                List<String> args = new ArrayList<>(List.of("--config", definitions.toString(), "--port", "0",
                        "--admin-port", Integer.toString(admin)));
                args.addAll(ServerProcess.NO_ACCESS_LOG);
                ServerProcess instance = ServerProcess.startJar(label(i), mashupJar, JVM, args, READY);
                instances.add(instance);
                // A restart takes the same ports: HAProxy's server line names them.
                args.set(args.indexOf("--port") + 1, Integer.toString(instance.uri().getPort()));
                instanceArgs.add(args);
                metrics.add(URI.create("http://127.0.0.1:" + admin + "/metrics"));
                backends.add(new HaproxyProcess.Backend(instance.uri().getPort(), admin));
            }
            Path recipe = Path.of(System.getProperty("rc10k.haproxy.recipe", HaproxyProcess.RECIPE.toString()));
            HaproxyProcess haproxy = HaproxyProcess.start(recipe, ServerProcess.freePort(), ServerProcess.freePort(),
                    backends);
            processes.add(haproxy);
            haproxy.awaitUp(Duration.ofSeconds(60));
            QueuedThreadPool pool = new QueuedThreadPool(32, 8);
            pool.setName("load");
            HttpClient client = new HttpClient();
            client.setExecutor(pool);
            client.setMaxConnectionsPerDestination(12_000);
            client.setMaxRequestsQueuedPerDestination(100_000);
            client.setIdleTimeout(30_000);
            client.start();
            processes.add(client::stop);
            return new Fleet(processes, instances, metrics, instanceArgs, mashupJar, haproxy, client);
        } catch (Exception e) {
            closeAll(processes);
            throw e;
        }
    }

    /** {@code rate × seconds} requests at {@code rate} per second through HAProxy, each awaited (bounded). */
    FleetPhase phase(double rate, int seconds) throws Exception {
        long count = Math.max(1, Math.round(rate * seconds));
        long[] completeBefore = completePerInstance();
        long serverCpu = serverCpuMillis();
        long haproxyCpu = haproxy.cpuMillis();
        LongAdder complete = new LongAdder();
        LongAdder incomplete = new LongAdder();
        Recorder latency = new Recorder(3);
        AtomicReference<String> first = new AtomicReference<>();
        double[] max = new double[2]; // outbound, inbound: written by the sampler only, read after its join
        AtomicBoolean sampling = new AtomicBoolean(true);
        Thread sampler = new Thread(() -> {
            while (sampling.get()) {
                double outbound = 0;
                double inbound = 0;
                try {
                    for (URI uri : metrics) {
                        Prometheus p = scrape(uri);
                        outbound += p.get("mashup_outbound_inflight");
                        inbound += p.get("mashup_inbound_inflight");
                    }
                    max[0] = Math.max(max[0], outbound);
                    max[1] = Math.max(max[1], inbound);
                } catch (IllegalStateException e) {
                    System.out.println("sample skipped: " + e.getMessage()); // a late scrape; the next one counts
                }
                try {
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "fleet-sampler");
        sampler.start();
        URI target = haproxy.uri().resolve(MASHUP);
        // The client's bound: HAProxy's queue (10 s) and the mashup's deadline, and some.
        OpenModelLoad load = new OpenModelLoad(client, i -> target, DEADLINE_MILLIS + 20_000);
        load.send(rate, count, (Result result, String body, OpenModelLoad.Timing timing) -> {
            boolean ok = result.isSucceeded() && result.getResponse().getStatus() == 200
                    && "true".equals(result.getResponse().getHeaders().get("Mashup-Complete"));
            if (ok) {
                complete.increment();
                latency.recordValue(Math.max(0, timing.fromIntendedMicros()));
            } else {
                incomplete.increment();
                first.compareAndSet(null, result.isFailed() ? String.valueOf(result.getFailure())
                        : result.getResponse().getStatus() + " " + body.substring(0, Math.min(120, body.length()))
                                .replaceAll("[\\s|]+", " "));
            }
        });
        boolean ended = load.awaitEnds(TimeUnit.MILLISECONDS.toNanos(DEADLINE_MILLIS + 40_000));
        sampling.set(false);
        sampler.join(10_000);
        long[] completeAfter = completePerInstance();
        long[] perInstance = new long[completeAfter.length];
        for (int i = 0; i < perInstance.length; i++) {
            perInstance[i] = completeAfter[i] - completeBefore[i];
        }
        long unended = ended ? 0 : load.outstanding();
        Histogram answered = latency.getIntervalHistogram();
        return new FleetPhase(instances.size(), rate, load.sent(), complete.sum(), incomplete.sum() + unended,
                unended > 0 ? unended + " not ended" : first.get(), max[0], max[1],
                serverCpuMillis() - serverCpu, haproxy.cpuMillis() - haproxyCpu, perInstance,
                answered.getValueAtPercentile(50) / 1000.0, answered.getValueAtPercentile(99) / 1000.0,
                answered.getMaxValue() / 1000.0);
    }

    /** HAProxy's name for instance {@code i} (from 0), as its server lines and stats say it. */
    static String label(int i) {
        return "mashup" + (i + 1);
    }

    int size() {
        return instances.size();
    }

    URI target() {
        return haproxy.uri().resolve(MASHUP);
    }

    HttpClient client() {
        return client;
    }

    HaproxyProcess haproxy() {
        return haproxy;
    }

    /**
     * SIGTERM to instance {@code i}, its exit awaited (bounded by the graceful stop and some), then the same
     * instance started again on the same ports. Returns the exit status of the stopped one (143: a graceful stop).
     */
    int restart(int i) throws Exception {
        int exit = instances.get(i).terminate(DEADLINE_MILLIS + 5_000 + 30_000);
        if (exit < 0) {
            throw new IOException(label(i) + " did not exit within its graceful stop after SIGTERM");
        }
        instances.set(i, ServerProcess.startJar(label(i), mashupJar, JVM, instanceArgs.get(i), READY));
        return exit;
    }

    /** SIGKILL to instance {@code i}; returns its exit status (137). The fleet goes on without it. */
    int kill(int i) throws InterruptedException {
        return instances.get(i).kill();
    }

    /** Waits, bounded, until HAProxy's checks hold instance {@code i} in {@code status} ({@code UP}, {@code DOWN}). */
    void awaitStatus(int i, String status, Duration bound) throws IOException, InterruptedException {
        long end = System.nanoTime() + bound.toNanos();
        String now = "";
        while (System.nanoTime() - end < 0) {
            now = haproxy.serverStatus().getOrDefault(label(i), "missing");
            if (now.startsWith(status)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IOException("HAProxy did not hold " + label(i) + " " + status + " within " + bound + ": " + now);
    }

    /** Instance {@code i}'s {@code /metrics}, or null while it does not answer (stopped, starting). */
    Prometheus scrapeOrNull(int i) {
        try {
            return scrape(metrics.get(i));
        } catch (IllegalStateException e) {
            return null;
        }
    }

    /**
     * Each instance's complete answers so far, read once its inbound in-flight gauge is 0 (bounded at 10 s):
     * an instance counts a request just after writing its answer, so the last answer can reach the client first.
     */
    private long[] completePerInstance() throws InterruptedException {
        long[] complete = new long[metrics.size()];
        for (int i = 0; i < complete.length; i++) {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            Prometheus now = scrape(metrics.get(i));
            while (now.sum("mashup_inbound_inflight", "") > 0 && System.nanoTime() - end < 0) {
                Thread.sleep(50);
                now = scrape(metrics.get(i));
            }
            complete[i] = Math.round(now.sum("mashup_requests_total", "outcome=\"complete\""));
        }
        return complete;
    }

    private long serverCpuMillis() throws IOException {
        long sum = 0;
        for (ServerProcess instance : instances) {
            long[] cpu = instance.cpuMillis();
            sum += cpu[0] + cpu[1];
        }
        return sum;
    }

    private Prometheus scrape(URI uri) {
        try {
            ContentResponse response = client.newRequest(uri).timeout(10, TimeUnit.SECONDS).send();
            if (response.getStatus() != 200) {
                throw new IOException("GET " + uri + ": " + response.getStatus());
            }
            return Prometheus.parse(System.currentTimeMillis(), response.getContentAsString());
        } catch (Exception e) {
            throw new IllegalStateException("scraping " + uri + ": " + e, e);
        }
    }

    @Override
    public void close() {
        closeAll(processes);
    }

    private static void closeAll(List<AutoCloseable> processes) {
        for (int i = processes.size() - 1; i >= 0; i--) {
            try {
                processes.get(i).close();
            } catch (Exception e) {
                System.out.println("closing: " + e);
            }
        }
    }
}
