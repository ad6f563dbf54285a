package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.mashup.internal.observability.MashupMetrics;
import io.rc10k.harness.BuildVersion;
import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.component.LifeCycle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Liveness, readiness and the admin port over real sockets: readiness is 503 {@code starting} until
 * the server has started, 200 while it serves, 503 {@code draining} from the moment a stop begins
 * while admitted requests are still answered; liveness stays 200 throughout.
 */
class HealthTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static PartnerStubs stubs;
    private static Definitions definitions;
    private HttpClient client;

    @BeforeAll
    static void startStubs() throws Exception {
        stubs = PartnerStubs.start(StubOptions.builder().h2c(true).maxStallMillis(10_000).build());
        definitions = TestServer.definitions(stubs);
    }

    @AfterAll
    static void stopStubs() {
        stubs.close();
    }

    @BeforeEach
    void startClient() throws Exception {
        client = new HttpClient();
        client.start();
    }

    @AfterEach
    void stopClient() throws Exception {
        client.stop();
    }

    private static URI uri(Server server, int connector) {
        return URI.create("http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[connector]).getLocalPort());
    }

    private ContentResponse get(URI base, String path) throws Exception {
        return client.newRequest(base.resolve(path)).timeout(30, TimeUnit.SECONDS).send();
    }

    private static List<String> fields(JsonNode body) {
        List<String> names = new ArrayList<>();
        body.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static JsonNode json(ContentResponse response) throws Exception {
        assertEquals("application/json", response.getMediaType());
        return JSON.readTree(response.getContent());
    }

    @Test
    void aRunningServerIsLiveAndReadyAndHealthKeepsItsFieldsOnBothPorts() throws Exception {
        try (TestServer server = TestServer.start(Mode.ASYNC, definitions)) {
            for (URI base : List.of(uri(server.server, 0), uri(server.server, 1))) {
                for (String path : List.of("/health", "/health/ready", "/health/live")) {
                    ContentResponse response = get(base, path);
                    assertEquals(200, response.getStatus(), base + path);
                    JsonNode body = json(response);
                    assertEquals("up", body.get("status").asText());
                    assertEquals("ready", body.get("state").asText());
                    assertEquals("async", body.get("mode").asText());
                    assertEquals("mashup", body.get("executor").asText());
                    assertEquals(BuildVersion.version(), body.get("version").asText());
                    assertEquals(List.of("status", "state", "mode", "executor", "version"), fields(body));
                    assertEquals("no-store", response.getHeaders().get("Cache-Control"));
                }
            }
            assertEquals(404, get(uri(server.server, 1), "/health/other").getStatus(), "the admin port serves no more");
        }
    }

    @Test
    void readinessSaysStartingUntilTheServerHasStartedWhileLivenessAnswers() throws Exception {
        Server server = MashupServer.createServer(MashupOptions.builder().port(0).build(), definitions);
        CountDownLatch connectorsUp = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // The admin connector starts last; holding its start holds the server's just short of "started".
        server.getConnectors()[1].addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarted(LifeCycle event) {
                connectorsUp.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        CompletableFuture<Void> starting = CompletableFuture.runAsync(() -> {
            try {
                server.start();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            assertTrue(connectorsUp.await(30, TimeUnit.SECONDS), "the connectors started");
            URI admin = uri(server, 1);
            ContentResponse ready = get(admin, "/health/ready");
            assertEquals(503, ready.getStatus());
            JsonNode body = json(ready);
            assertEquals("down", body.get("status").asText());
            assertEquals("starting", body.get("state").asText());
            assertEquals("starting", body.get("error").asText());
            assertTrue(body.get("detail").asText().contains("not finished starting"), body.toString());
            assertEquals(503, get(admin, "/health").getStatus(), "/health is the readiness view");
            ContentResponse live = get(admin, "/health/live");
            assertEquals(200, live.getStatus());
            assertEquals("starting", json(live).get("state").asText());

            release.countDown();
            starting.get(30, TimeUnit.SECONDS);
            assertEquals(200, get(admin, "/health/ready").getStatus(), "ready once started");
        } finally {
            release.countDown();
            starting.get(30, TimeUnit.SECONDS);
            server.stop();
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aGracefulStopTurnsReadinessTo503OnTheAdminPortWhileAdmittedRequestsAreStillAnswered(Mode mode)
            throws Exception {
        TestServer.assumeModeRunsHere(mode);
        Server server = MashupServer.createServer(MashupOptions.builder().mode(mode).port(0).build(), definitions);
        server.start();
        URI main = uri(server, 0);
        URI admin = uri(server, 1);
        MashupMetrics metrics = server.getBean(MashupMetrics.class);
        GracefulHandler graceful = server.getDescendant(GracefulHandler.class);
        CompletableFuture<Void> stopping = null;
        try {
            assertEquals(200, get(admin, "/health/ready").getStatus());
            // Held 8 s at its partner: the drain lasts at least that long, however slow this machine.
            CompletableFuture<ContentResponse> held = new CompletableResponseListener(client.newRequest(
                    main.resolve("/mashup/wait?ms=8000")).timeout(60, TimeUnit.SECONDS)).send();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (metrics.inboundInFlight() < 1 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(1, metrics.inboundInFlight(), "the held request was admitted");

            // Listeners are told in the order they were added: the server's readiness first, then this one.
            CountDownLatch stopBegun = new CountDownLatch(1);
            server.addEventListener(new LifeCycle.Listener() {
                @Override
                public void lifeCycleStopping(LifeCycle event) {
                    stopBegun.countDown();
                }
            });
            stopping = CompletableFuture.runAsync(() -> {
                try {
                    server.stop();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertTrue(stopBegun.await(30, TimeUnit.SECONDS), "the stop began");

            ContentResponse ready = get(admin, "/health/ready");
            assertEquals(503, ready.getStatus(), "not ready while draining");
            JsonNode body = json(ready);
            assertEquals("draining", body.get("state").asText());
            assertEquals("draining", body.get("error").asText());
            assertTrue(body.get("detail").asText().contains("stopping"), body.toString());
            assertEquals(503, get(admin, "/health").getStatus());
            assertEquals(200, get(admin, "/health/live").getStatus(), "live while draining");
            assertTrue(get(admin, "/metrics").getContentAsString().contains("mashup_inbound_inflight 1.0"),
                    "scraped while draining, the held request in flight");
            assertFalse(held.isDone(), "the held request was still in flight when readiness said draining");
            assertEquals(1, graceful.getCurrentRequestCount(), "the drain waits for the held request only");

            ContentResponse answer = held.get(60, TimeUnit.SECONDS);
            assertEquals(200, answer.getStatus(), "an admitted request is answered during the drain");
            assertEquals("true", answer.getHeaders().get("Mashup-Complete"));
            stopping.get(60, TimeUnit.SECONDS);
        } finally {
            if (stopping == null) {
                server.stop();
            } else {
                stopping.get(60, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void observabilityOnAdminOnlyAnswers404ForItOnTheMainPort() throws Exception {
        try (TestServer server = TestServer.start(MashupOptions.builder().observabilityOnAdminOnly(true).build(),
                definitions)) {
            URI main = uri(server.server, 0);
            URI admin = uri(server.server, 1);
            for (String path : List.of("/metrics", "/health", "/health/live", "/health/ready")) {
                ContentResponse refused = get(main, path);
                assertEquals(404, refused.getStatus(), path);
                assertEquals("not_found", json(refused).get("error").asText());
                assertEquals(200, get(admin, path).getStatus(), path);
            }
            assertEquals(200, get(main, "/mashup/travel?city=Oslo").getStatus(), "mashups still on the main port");
            assertEquals(404, get(admin, "/mashup/travel?city=Oslo").getStatus(), "and only there");
        }
    }
}
