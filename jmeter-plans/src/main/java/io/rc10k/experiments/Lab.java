package io.rc10k.experiments;

import com.sun.management.OperatingSystemMXBean;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Where an experiment finds what it runs — the jars, JMeter, the plans and their configurations —
 * and how it starts them: partner stubs and the mashup server, each a process of its own. Paths are
 * relative to the repository root ({@code --root}, default the working directory).
 */
record Lab(Path root, Path out, JMeter jmeter, Map<Integer, Integer> stubPorts) {
    private static final Pattern STUBS_READY = Pattern.compile("partner-stubs ready .* on: (http://\\S+)");
    private static final Pattern MASHUP_READY = Pattern.compile("mashup-server ready on (http://\\S+)");
    /** The first stub port the configurations name; the others follow it. */
    private static final int CONFIGURED_FIRST_PORT = 9101;

    /** @param stubPorts configured stub port → the port its stub took, while stubs run (filled by startStubs) */
    Lab(Path root, Path out, JMeter jmeter) {
        this(root, out, jmeter, new LinkedHashMap<>());
    }

    Path plan(String name) {
        return root.resolve("jmeter-plans").resolve(name);
    }

    Path config(String name) {
        Path given = Path.of(name);
        return Files.exists(given) ? given : root.resolve("jmeter-plans").resolve("configs").resolve(name);
    }

    /**
     * Partner stubs for the configurations, answering HTTP/1.1 and h2c: the configurations name
     * {@code 127.0.0.1:9101} up to {@code 9100 + count}; the stubs take free ports of this machine instead,
     * and {@link #startMashup} gives the server its configuration with those ports, so that two runs (two
     * builds, say) can share a machine.
     */
    ServerProcess startStubs(int count) throws IOException {
        stubPorts.clear();
        while (stubPorts.size() < count) {
            int port = ServerProcess.freePort();
            if (!stubPorts.containsValue(port)) {
                stubPorts.put(CONFIGURED_FIRST_PORT + stubPorts.size(), port);
            }
        }
        String ports = String.join(",", stubPorts.values().stream().map(String::valueOf).toList());
        return ServerProcess.startJar("stubs", jar("partner-stubs"), List.of(),
                List.of("--port", ports, "--host", "127.0.0.1", "--h2c"), STUBS_READY);
    }

    /** A fresh mashup server on an ephemeral port, access log off, its partners where the stubs are. */
    ServerProcess startMashup(Path config, String mode, int maxThreads) throws IOException {
        return startMashup(config, mode, maxThreads, List.of());
    }

    /** As {@link #startMashup(Path, String, int)}, with more of the server's options ({@code --max-inflight N}, say). */
    ServerProcess startMashup(Path config, String mode, int maxThreads, List<String> options) throws IOException {
        List<String> args = new ArrayList<>(List.of("--config", withStubPorts(config).toString(), "--mode", mode,
                "--port", "0", "--admin-port", "-1", "--max-threads", Integer.toString(maxThreads)));
        args.addAll(ServerProcess.NO_ACCESS_LOG);
        args.addAll(options);
        return ServerProcess.startJar("mashup", jar("mashup-server"), List.of(), args, MASHUP_READY);
    }

    /** The configuration with each configured stub port replaced by the port its stub took (a temporary copy). */
    private Path withStubPorts(Path config) throws IOException {
        if (stubPorts.isEmpty()) {
            return config;
        }
        String text = Files.readString(config);
        for (Map.Entry<Integer, Integer> port : stubPorts.entrySet()) {
            text = text.replace("127.0.0.1:" + port.getKey(), "127.0.0.1:" + port.getValue());
        }
        Path copy = Files.createTempFile("rc10k-" + config.getFileName().toString().replace(".json", "-"), ".json");
        copy.toFile().deleteOnExit();
        return Files.writeString(copy, text);
    }

    /**
     * What one JMeter run against one server saw: JMeter's samples, the server's {@code /metrics}
     * sampled throughout, and when the test began (epoch ms) — JMeter's own start, or its first sample.
     */
    record Run(List<Jtl.Sample> samples, MetricsSampler metrics, long start) {
    }

    /**
     * Runs {@code plan} against {@code server} (host and port given as the properties {@code host} and
     * {@code port}, besides {@code properties}), sampling its {@code /metrics} while JMeter runs.
     */
    Run runPlan(ServerProcess server, String plan, Path jtl, Map<String, String> properties, Duration bound)
            throws IOException, InterruptedException {
        Files.createDirectories(jtl.toAbsolutePath().getParent());
        Map<String, String> props = new LinkedHashMap<>();
        props.put("host", server.uri().getHost());
        props.put("port", Integer.toString(server.uri().getPort()));
        props.putAll(properties);
        MetricsSampler sampler = MetricsSampler.start(server.uri());
        long started;
        try {
            started = jmeter.run(plan(plan), jtl, props, bound);
        } finally {
            sampler.close();
        }
        List<Jtl.Sample> samples = Jtl.read(jtl);
        long firstSample = samples.stream().mapToLong(Jtl.Sample::start).min().orElseThrow(
                () -> new IOException("JMeter sent nothing; see " + jtl));
        return new Run(samples, sampler, started > 0 ? started : firstSample);
    }

    private Path jar(String module) {
        return root.resolve(module).resolve("target").resolve(module + ".jar");
    }

    /** Cores, memory, JDK and OS of this machine, for the results files. */
    static String machine() {
        long memory = -1;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
            memory = os.getTotalMemorySize();
        }
        return String.format(Locale.ROOT, "%d cores, %.1f GiB, %s %s (%s), %s %s",
                Runtime.getRuntime().availableProcessors(), memory / (1024.0 * 1024 * 1024),
                System.getProperty("java.vm.name"), System.getProperty("java.runtime.version"),
                System.getProperty("java.vendor"), System.getProperty("os.name"), System.getProperty("os.version"));
    }

    static boolean virtualThreadsAvailable() {
        return Runtime.version().feature() >= 21;
    }
}
