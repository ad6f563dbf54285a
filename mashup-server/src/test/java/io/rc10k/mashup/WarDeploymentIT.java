package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.stubs.PartnerStubs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.ee11.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The built mashup-server.war, deployed into a real Jetty 12 ee11 server from the file, called over HTTP. */
class WarDeploymentIT {
    private static final Path WAR = Path.of(System.getProperty("rc10k.mashup.war", "target/mashup-server.war"));
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Server container(Path definitions, String mode) {
        QueuedThreadPool pool = new QueuedThreadPool(64, 8);
        pool.setName("container");
        Server server = new Server(pool);
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        WebAppContext webapp = new WebAppContext();
        webapp.setContextPath("/rc10k");
        webapp.setWar(WAR.toAbsolutePath().toString());
        webapp.setInitParameter(MashupWebApp.DEFINITIONS, definitions.toString());
        if (mode != null) {
            webapp.setInitParameter(MashupWebApp.MODE, mode);
        }
        webapp.setThrowUnavailableOnStartupException(true);
        server.setHandler(webapp);
        return server;
    }

    private static Path definitions(Path dir, String stubs) throws Exception {
        Path file = dir.resolve("definitions.json");
        Files.writeString(file, """
                {"partners": {"weather": {"baseUri": "%s"}, "hotels": {"baseUri": "%s"}},
                 "mashups": {"travel": {"deadlineMillis": 2000, "parameters": {"city": {"required": true}},
                   "calls": [{"partner": "weather", "template": "/weather?city={city}"},
                             {"partner": "hotels", "template": "/hotels?city={city}"}]}}}
                """.formatted(stubs, stubs));
        return file;
    }

    @Test
    void warDeployedInJettyServesMashupsOnTheContainersPool(@TempDir Path dir) throws Exception {
        assertTrue(Files.isRegularFile(WAR), "build the WAR first: " + WAR);
        try (PartnerStubs stubs = PartnerStubs.start()) {
            for (String mode : new String[] {null, "sync"}) {
                Server server = container(definitions(dir, stubs.uri().toString()), mode);
                HttpClient client = new HttpClient();
                server.start();
                client.start();
                try {
                    String base = "http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort()
                            + "/rc10k";
                    ContentResponse travel = client.newRequest(base + "/mashup/travel?city=Paris")
                            .timeout(10, TimeUnit.SECONDS).send();
                    assertEquals(200, travel.getStatus(), travel.getContentAsString());
                    JsonNode body = JSON.readTree(travel.getContent());
                    assertTrue(body.get("complete").asBoolean());
                    assertEquals("Paris", body.at("/parts/hotels/body/city").asText());
                    assertEquals(400, client.newRequest(base + "/mashup/travel").send().getStatus());
                    JsonNode health = JSON.readTree(client.newRequest(base + "/health").send().getContent());
                    assertEquals("container", health.get("executor").asText(), "the broker runs on the container's pool");
                    assertEquals(mode == null ? "async" : mode, health.get("mode").asText());
                    String metrics = client.newRequest(base + "/metrics").send().getContentAsString();
                    assertTrue(metrics.contains("jetty_threads_busy"), "the container's pool is measured");
                    assertTrue(metrics.contains("mashup_requests_total{mashup=\"travel\",outcome=\"complete\"}"));
                } finally {
                    client.stop();
                    server.stop();
                }
            }
        }
    }

    @Test
    void badDefinitionsFailTheDeployment(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"partners\": {}, \"mashups\": {\"m\": {\"calls\": [{\"partner\": \"x\", "
                + "\"template\": \"/x\"}]}}}");
        Server server = container(bad, null);
        try {
            Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class, server::start);
            String message = String.valueOf(e.getMessage()) + e.getCause();
            assertTrue(message.contains("unknown partner \"x\""), message);
        } finally {
            server.stop();
        }
        assertFalse(server.isStarted());
    }
}
