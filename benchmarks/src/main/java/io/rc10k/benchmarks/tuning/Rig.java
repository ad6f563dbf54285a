package io.rc10k.benchmarks.tuning;

import io.rc10k.benchmarks.capacity.StubProcess;
import io.rc10k.benchmarks.launch.Launch;
import io.rc10k.harness.Prometheus;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * What every sweep of {@link Tuning} stands on: the jars, one partner-stubs process (HTTP/1.1 and h2c) for the
 * whole run, the definitions files, mashup servers started with one value of a knob each, and a Jetty client
 * for open-model load and scrapes. Closes everything it started.
 *
 * <pre>{@code
 * try (Rig rig = new Rig(settings)) {
 *     Path definitions = rig.definitions(Rig.mashup(rig.stubs(), "\"protocol\":\"h2c\"", 6, "", 5_000));
 *     Map<String, ServerProcess> servers = rig.start(Map.of("1",
 *             new Rig.Server(definitions, List.of("--selectors", "1"))));
 * }
 * }</pre>
 *
 * Not thread-safe: one sweep at a time.
 */
final class Rig implements AutoCloseable {
    /** The mashup every definitions file of a sweep names. */
    static final String MASHUP = "/mashup/m";
    private static final Pattern MASHUP_READY = Pattern.compile("mashup-server ready on (http://\\S+)");

    /**
     * How the run is done.
     *
     * @param launch        the servers' java and JVM options (each server's own come after), and the jars
     * @param rounds        interleaved rounds per sweep (every value once per round)
     * @param warmupMillis  the longest warm-up of a closed-loop window, and the open-model warm-up phase
     * @param measureMillis a closed-loop window, and an open-model phase
     */
    record Settings(Launch launch, int rounds, long warmupMillis, long measureMillis) {
        Settings {
            if (rounds < 1) {
                throw new IllegalArgumentException("--rounds: " + rounds + " (accepted: at least 1)");
            }
            if (warmupMillis < 0 || measureMillis < 500) {
                throw new IllegalArgumentException("--warmup-ms " + warmupMillis + ", --measure-ms " + measureMillis
                        + " (accepted: warm-up at least 0, measure at least 500)");
            }
        }
    }

    /**
     * One server of a sweep: its definitions, its options past {@code --config} and {@code --port 0}, its JVM
     * options (after the launch's), its {@code java} (null: the launch's), and the open-file limit it runs under
     * (0: this process's).
     */
    record Server(Path definitions, List<String> args, List<String> jvmArgs, String java, long openFiles) {
        Server(Path definitions, List<String> args) {
            this(definitions, args, List.of(), null, 0);
        }
    }

    private final Settings settings;
    private final List<Path> files = new ArrayList<>();
    private StubProcess stubs;
    private HttpClient client;

    Rig(Settings settings) throws IOException {
        settings.launch().requireJars(false);
        this.settings = settings;
    }

    Settings settings() {
        return settings;
    }

    /** The partner stubs, started on first use: HTTP/1.1 and h2c on one port, stalls capped at 5 s. */
    URI stubs() throws IOException {
        if (stubs == null) {
            stubs = StubProcess.start(settings.launch().stubJar(), List.of(), List.of("--h2c", "--max-stall", "5000"));
        }
        return stubs.uri();
    }

    StubProcess stubProcess() throws IOException {
        stubs();
        return stubs;
    }

    /**
     * A definitions file of one partner {@code stub} at {@code stubs} (its other fields: {@code partnerFields},
     * JSON members without braces) and one mashup {@link #MASHUP} of {@code calls} GETs of
     * {@code /stub?<query>&id=k}, within {@code deadlineMillis}. The partner's circuit breaker is off: a sweep
     * measures its knob, and failures stay what they are instead of turning into {@code circuit_open}.
     */
    static String mashup(URI stubs, String partnerFields, int calls, String query, long deadlineMillis) {
        StringBuilder json = new StringBuilder(String.format(Locale.ROOT,
                "{\"partners\":{\"stub\":{\"baseUri\":\"%s\",\"circuitBreaker\":{\"enabled\":false}%s}},"
                        + "\"mashups\":{\"m\":{\"deadlineMillis\":%d,\"calls\":[",
                stubs, partnerFields.isEmpty() ? "" : "," + partnerFields, deadlineMillis));
        for (int k = 1; k <= calls; k++) {
            json.append(k > 1 ? "," : "").append(String.format(Locale.ROOT,
                    "{\"name\":\"p%d\",\"partner\":\"stub\",\"template\":\"/stub?%sid=%d\"}", k,
                    query.isEmpty() ? "" : query + "&", k));
        }
        return json.append("]}}}").toString();
    }

    /** Writes {@code json} to a temporary file, deleted when the rig closes. */
    Path definitions(String json) throws IOException {
        Path file = Files.createTempFile("tuning-", ".json");
        files.add(file);
        return Files.writeString(file, json);
    }

    /**
     * Starts a server per entry, all at once (each waits for its JVM), and returns them under the same keys
     * once every one is ready; if one cannot start, the others are stopped and its failure thrown.
     */
    Map<String, ServerProcess> start(Map<String, Server> servers) throws IOException {
        Map<String, CompletableFuture<ServerProcess>> starting = new LinkedHashMap<>();
        servers.forEach((name, server) -> starting.put(name, CompletableFuture.supplyAsync(() -> {
            try {
                return ServerProcess.start("mashup " + name, command(server), MASHUP_READY);
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        })));
        Map<String, ServerProcess> started = new LinkedHashMap<>();
        IOException failure = null;
        for (Map.Entry<String, CompletableFuture<ServerProcess>> e : starting.entrySet()) {
            try {
                started.put(e.getKey(), e.getValue().join());
            } catch (CompletionException ex) {
                Throwable cause = ex.getCause();
                failure = cause instanceof IOException io ? io : new IOException(cause);
            }
        }
        if (failure != null) {
            started.values().forEach(ServerProcess::close);
            throw failure;
        }
        return started;
    }

    /** {@code [prlimit --nofile=N:N] java [jvmArgs] -jar mashup-server.jar --config F --port 0 … [args]}. */
    private List<String> command(Server server) {
        List<String> command = new ArrayList<>();
        if (server.openFiles() > 0) {
            command.addAll(List.of("prlimit", "--nofile=" + server.openFiles() + ":" + server.openFiles()));
        }
        List<String> jvmArgs = new ArrayList<>(settings.launch().jvmArgs());
        jvmArgs.addAll(server.jvmArgs());
        command.addAll(ServerProcess.mashupCommand(server.java() != null ? server.java() : settings.launch().java(),
                jvmArgs, settings.launch().mashupJar(), server.definitions(), server.args()));
        return command;
    }

    /** The Jetty client of open-model load and scrapes: pooled keep-alive connections, 32 threads. */
    HttpClient client() throws Exception {
        if (client == null) {
            QueuedThreadPool pool = new QueuedThreadPool(32, 8);
            pool.setName("tuning-load");
            client = new HttpClient();
            client.setExecutor(pool);
            client.setMaxConnectionsPerDestination(8_000);
            client.setMaxRequestsQueuedPerDestination(100_000);
            client.setIdleTimeout(30_000);
            client.start();
        }
        return client;
    }

    /** The server's {@code /metrics} now (on its main port). */
    Prometheus metrics(ServerProcess server) throws Exception {
        ContentResponse response = client().newRequest(server.uri().resolve("/metrics")).timeout(10, TimeUnit.SECONDS)
                .send();
        if (response.getStatus() != 200) {
            throw new IOException("GET " + server.uri() + "/metrics: status " + response.getStatus());
        }
        return Prometheus.parse(System.currentTimeMillis(), response.getContentAsString());
    }

    @Override
    public void close() throws Exception {
        try {
            if (client != null) {
                client.stop();
            }
        } finally {
            if (stubs != null) {
                stubs.close();
            }
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
    }
}
