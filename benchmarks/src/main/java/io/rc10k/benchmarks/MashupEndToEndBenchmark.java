package io.rc10k.benchmarks;

import io.rc10k.broker.Partner;
import io.rc10k.mashup.Definitions;
import io.rc10k.mashup.MashupDefinition;
import io.rc10k.mashup.MashupOptions;
import io.rc10k.mashup.MashupServer;
import io.rc10k.mashup.ParameterDefinition;
import io.rc10k.stubs.PartnerStubs;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
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
 * Mashups per second through the whole server: a GET over loopback to an in-process standalone
 * mashup server ({@link MashupServer#createServer}, port 0) whose C calls go to a zero-delay
 * in-process stub, routed, fanned out, composed and written back — in each mode. Eight client
 * threads each keep one request in flight (Jetty's blocking {@code send()} on kept-alive connections).
 *
 * <pre>
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar benchmarks/target/benchmarks.jar MashupEndToEndBenchmark -prof gc
 * </pre>
 *
 * Client, server and stub share this JVM and its cores, so the score is the cost of the whole path,
 * not the server's capacity; {@code Efficiency} measures the server process alone. Mode
 * {@code virtual} needs JDK 21 or newer: on an older JDK the server refuses to start and JMH reports
 * that trial as failed with the server's message (see {@code FanOutBenchmark.VirtualThreads} for why
 * it fails rather than skips).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(8)
public class MashupEndToEndBenchmark {
    @Param({"async", "sync", "virtual"})
    public String mode;

    @Param({"1", "6"})
    public int calls;

    private PartnerStubs stubs;
    private Server server;
    private HttpClient client;
    private URI mashup;

    @Setup(Level.Trial)
    public void start() throws Exception {
        stubs = PartnerStubs.start();
        MashupDefinition.Builder definition = MashupDefinition.builder("bench")
                .parameter(ParameterDefinition.required("city"));
        for (int i = 0; i < calls; i++) {
            definition.call("part" + i, "stub", "/stub?id={city}");
        }
        Definitions definitions = Definitions.builder()
                .partner(Partner.builder("stub", stubs.uri().toString()).maxConnections(256).build())
                .mashup(definition.build())
                .build();
        try {
            server = MashupServer.createServer(MashupOptions.builder().port(0)
                    .mode(io.rc10k.mashup.Mode.parse(mode)).build(), definitions);
        } catch (IllegalArgumentException e) {
            stubs.close();
            throw e;
        }
        server.start();
        int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        mashup = URI.create("http://127.0.0.1:" + port + "/mashup/bench?city=Paris");
        client = new HttpClient();
        client.setMaxConnectionsPerDestination(64);
        client.start();
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        client.stop();
        server.stop();
        stubs.close();
    }

    /** One mashup request, answered with a complete composite; returns its length. */
    @Benchmark
    public int mashup() throws Exception {
        ContentResponse response = client.newRequest(mashup).timeout(10, TimeUnit.SECONDS).send();
        if (response.getStatus() != 200) {
            throw new IllegalStateException("mashup answered " + response.getStatus() + ": "
                    + response.getContentAsString());
        }
        return response.getContent().length;
    }
}
