package io.rc10k.mashup;

import io.rc10k.broker.Partner;
import io.rc10k.broker.Protocol;
import io.rc10k.stubs.PartnerStubs;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Assumptions;

/** A mashup server on an ephemeral loopback port, over partner stubs, for one test. */
final class TestServer implements AutoCloseable {
    final Server server;
    final URI uri;
    /** A client of its own, so that no pooled connection outlives the server it was opened to. */
    final HttpClient client;

    private TestServer(Server server) throws Exception {
        this.server = server;
        this.uri = URI.create("http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort());
        this.client = new HttpClient();
        client.setMaxConnectionsPerDestination(2_000);
        client.start();
    }

    static void assumeModeRunsHere(Mode mode) {
        Assumptions.assumeTrue(mode != Mode.VIRTUAL || Runtime.version().feature() >= 21,
                "virtual mode needs a JDK 21 or newer; this is " + Runtime.version());
    }

    static TestServer start(MashupOptions options, Definitions definitions) throws Exception {
        assumeModeRunsHere(options.mode());
        Server server = MashupServer.createServer(options.toBuilder().port(0).build(), definitions);
        server.start();
        return new TestServer(server);
    }

    static TestServer start(Mode mode, Definitions definitions) throws Exception {
        return start(MashupOptions.builder().mode(mode).build(), definitions);
    }

    /** The definitions most tests use: every status rule has a mashup. */
    static Definitions definitions(PartnerStubs stubs) throws DefinitionException {
        String base = stubs.uri().toString();
        return Definitions.builder()
                .partner(Partner.builder("weather", base).build())
                .partner(Partner.builder("hotels", base).build())
                .partner(Partner.builder("flights", base).protocol(Protocol.H2C).build())
                .partner(Partner.builder("stub", base).retries(0).build())
                .mashup(MashupDefinition.builder("travel").deadline(Duration.ofSeconds(5))
                        .parameter(ParameterDefinition.required("city"))
                        .call("weather", "weather", "/weather?city={city}")
                        .call("hotels", "hotels", "/hotels?city={city}")
                        .call("flights", "flights", "/flights?city={city}")
                        .build())
                // 3 s: a fresh broker's first calls (fast, broken) must be answered within it on a busy
                // machine; the stub's stall cap must be well past it so that stalled still times out.
                .mashup(MashupDefinition.builder("partial").deadline(Duration.ofSeconds(3))
                        .call("fast", "stub", "/stub?id=fast")
                        .call("stalled", "stub", "/stub?fault=stall")
                        .call("broken", "stub", "/stub?status=503")
                        .build())
                .mashup(MashupDefinition.builder("slow").deadline(Duration.ofMillis(300))
                        .call("a", "stub", "/stub?delay=5000")
                        .call("b", "stub", "/stub?delay=5000")
                        .build())
                .mashup(MashupDefinition.builder("broken").deadline(Duration.ofSeconds(2))
                        .call("reset", "stub", "/stub?fault=reset")
                        .call("error", "stub", "/stub?status=500")
                        .call("garbage", "stub", "/stub?fault=malformed-json")
                        .build())
                .mashup(MashupDefinition.builder("echo").deadline(Duration.ofSeconds(2))
                        .parameter(ParameterDefinition.required("q"))
                        .call("echo", "stub", "/stub?id={q}")
                        .build())
                .mashup(MashupDefinition.builder("pathecho").path("/mashup/pathecho/{p}").deadline(Duration.ofSeconds(2))
                        .call("echo", "stub", "/stub?id={p}")
                        .build())
                // Room for tests that hold requests for several seconds (up to 8 s) on purpose.
                .mashup(MashupDefinition.builder("wait").deadline(Duration.ofSeconds(15))
                        .parameter(ParameterDefinition.optional("ms", "1000"))
                        .call("wait", "stub", "/stub?delay={ms}")
                        .build())
                .build();
    }

    ContentResponse get(String pathAndQuery) throws Exception {
        return client.newRequest(uri.resolve(pathAndQuery)).timeout(30, TimeUnit.SECONDS).send();
    }

    /** The admin port's base URI: /metrics, /health and /dashboard are always served there. */
    URI admin() {
        return URI.create("http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[1]).getLocalPort());
    }

    /**
     * The /metrics text once every admitted request has been counted. The server counts a request just
     * after writing its answer, so a client may read the answer first; the in-flight gauge falls to 0
     * after the counts.
     */
    String metricsOnceAnswered() throws InterruptedException {
        String[] text = {""};
        Await.until(() -> {
            try {
                text[0] = client.newRequest(admin().resolve("/metrics"))
                        .timeout(30, TimeUnit.SECONDS).send().getContentAsString();
            } catch (Exception e) {
                throw new IllegalStateException("could not read /metrics", e);
            }
            return text[0].contains("\nmashup_inbound_inflight 0.0\n");
        }, () -> "requests still in flight:\n" + text[0]);
        return text[0];
    }

    @Override
    public void close() {
        try {
            client.stop();
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("mashup server failed to stop", e);
        }
    }
}
