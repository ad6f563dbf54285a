package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.mashup.internal.observability.Readiness;
import io.rc10k.stubs.PartnerStubs;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The web application's health views and span export, in an embedded servlet context on loopback. */
class MashupWebAppTest {
    @Test
    void readyOnceContextInitializedFinishedAndDrainingFromTheMomentContextDestroyedBegins(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("good.json");
        Files.writeString(file, DefinitionsTest.GOOD);
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/app");
        context.setInitParameter(MashupWebApp.DEFINITIONS, file.toString());
        // Destroyed in reverse order: this one's contextDestroyed runs once the application's has begun,
        // and holds the context's stop there while the application's servlets are asked for their health.
        CountDownLatch destroying = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        context.addEventListener(new ServletContextListener() {
            @Override
            public void contextDestroyed(ServletContextEvent event) {
                destroying.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        MashupWebApp app = new MashupWebApp();
        context.addEventListener(app);
        server.setHandler(context);
        HttpClient client = new HttpClient();
        server.start();
        client.start();
        CompletableFuture<Void> stopping = null;
        try {
            URI base = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/app");
            ContentResponse ready = client.newRequest(base + "/health/ready").timeout(30, TimeUnit.SECONDS).send();
            assertEquals(200, ready.getStatus());
            assertTrue(ready.getContentAsString().contains("\"state\":\"ready\""), ready.getContentAsString());
            assertEquals(Readiness.State.READY, app.readiness());
            assertEquals(200, client.newRequest(base + "/health").timeout(30, TimeUnit.SECONDS).send().getStatus());
            assertEquals(200, client.newRequest(base + "/health/live").timeout(30, TimeUnit.SECONDS).send()
                    .getStatus());

            stopping = CompletableFuture.runAsync(() -> {
                try {
                    context.stop();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertTrue(destroying.await(30, TimeUnit.SECONDS), "contextDestroyed began");
            // A stopping context no longer dispatches to its servlets (Jetty answers for it), so ask the listener.
            assertEquals(Readiness.State.DRAINING, app.readiness());
        } finally {
            release.countDown();
            if (stopping != null) {
                stopping.get(30, TimeUnit.SECONDS);
            }
            client.stop();
            server.stop();
        }
    }

    @Test
    void theDashboardIsMappedOnlyWhenRc10kDashboardIsTrue(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("good.json");
        Files.writeString(file, DefinitionsTest.GOOD);
        for (String setting : new String[] {null, "false", "true"}) {
            Server server = new Server();
            ServerConnector connector = new ServerConnector(server);
            connector.setHost("127.0.0.1");
            connector.setPort(0);
            server.addConnector(connector);
            ServletContextHandler context = new ServletContextHandler("/app");
            context.setInitParameter(MashupWebApp.DEFINITIONS, file.toString());
            if (setting != null) {
                context.setInitParameter(MashupWebApp.DASHBOARD, setting);
            }
            context.addEventListener(new MashupWebApp());
            server.setHandler(context);
            HttpClient client = new HttpClient();
            server.start();
            client.start();
            try {
                String base = "http://127.0.0.1:" + connector.getLocalPort() + "/app";
                ContentResponse page = client.newRequest(base + "/dashboard").timeout(30, TimeUnit.SECONDS).send();
                ContentResponse data = client.newRequest(base + "/dashboard/data").timeout(30, TimeUnit.SECONDS)
                        .send();
                if ("true".equals(setting)) {
                    assertEquals(200, page.getStatus());
                    assertTrue(page.getHeaders().get("Content-Security-Policy").startsWith("default-src 'none'"));
                    assertEquals(200, data.getStatus());
                    assertTrue(data.getContentAsString().startsWith("{\"mode\":\"async\""), data.getContentAsString());
                } else {
                    // Not mapped: the mashup servlet answers, finding no mashup there.
                    assertEquals(404, page.getStatus(), "rc10k.dashboard=" + setting);
                    assertEquals(404, data.getStatus(), "rc10k.dashboard=" + setting);
                }
            } finally {
                client.stop();
                server.stop();
            }
        }
    }

    @Test
    void spansAreExportedWhenTheEnvironmentAsksForThem(@TempDir Path dir) throws Exception {
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        try (PartnerStubs stubs = PartnerStubs.start(); OtlpReceiver receiver = OtlpReceiver.start();
                SystemProperties otel = SystemProperties.set(Map.of("otel.traces.exporter", "otlp",
                        "otel.exporter.otlp.endpoint", receiver.endpoint().toString()))) {
            Path file = dir.resolve("echo.json");
            Files.writeString(file, """
                    {"partners": {"echo": {"baseUri": "%s"}},
                     "mashups": {"echo": {"calls": [{"name": "echo", "partner": "echo", "template": "/echo"}]}}}
                    """.formatted(stubs.uri()));
            Server server = new Server();
            ServerConnector connector = new ServerConnector(server);
            connector.setHost("127.0.0.1");
            connector.setPort(0);
            server.addConnector(connector);
            ServletContextHandler context = new ServletContextHandler("/app");
            context.setInitParameter(MashupWebApp.DEFINITIONS, file.toString());
            context.addEventListener(new MashupWebApp());
            server.setHandler(context);
            HttpClient client = new HttpClient();
            server.start();
            client.start();
            try {
                ContentResponse response = client.newRequest("http://127.0.0.1:" + connector.getLocalPort()
                        + "/app/mashup/echo").headers(h -> h.put("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01"))
                        .timeout(30, TimeUnit.SECONDS).send();
                assertEquals(200, response.getStatus(), response.getContentAsString());
                List<OtlpReceiver.Span> spans = receiver.awaitTrace(traceId, 2);
                assertEquals(2, spans.size(), spans.toString());
                String requestSpan = response.getHeaders().get("traceresponse").split("-")[2];
                assertTrue(spans.stream().anyMatch(span -> span.kind() == OtlpReceiver.Span.SERVER
                        && span.name().equals("GET /mashup/echo") && span.spanId().equals(requestSpan)), spans.toString());
                assertTrue(spans.stream().anyMatch(span -> span.kind() == OtlpReceiver.Span.CLIENT
                        && response.getContentAsString().contains("\"spanId\":\"" + span.spanId() + "\"")
                        && span.parentSpanId().equals(requestSpan)), spans.toString());
            } finally {
                client.stop();
                server.stop();
            }
        }
    }
}
