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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The built mashup-server.war in a stock Jetty distribution, deployed the two ways docs/mashup-server.md tells a
 * deployer: dropped into {@code webapps/} with {@code -Drc10k.definitions}, and by one context XML per context
 * ({@code /async}, {@code /sync}, and {@code /bad} with definitions that name an unknown partner). One start of
 * {@code start.jar} serves them all.
 */
class JettyHomeDistributionIT {
    private static final Path WAR = Path.of(System.getProperty("rc10k.mashup.war", "target/mashup-server.war"));
    private static final String POOL = "jetty-container";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    private static PartnerStubs stubs;
    private static JettyDistribution jetty;
    private static HttpClient client;

    @BeforeAll
    static void deployAndStart() throws Exception {
        assertTrue(Files.isRegularFile(WAR), "build the WAR first: " + WAR);
        stubs = PartnerStubs.start();
        Path base = JettyDistribution.newBase(dir.resolve("base"), "http,ee11-deploy");
        Path apps = Files.createDirectories(base.resolve("rc10k"));
        Files.copy(WAR, apps.resolve("mashup-server.war"));
        Files.writeString(apps.resolve("travel.json"), """
                {"partners": {"weather": {"baseUri": "%1$s"}, "hotels": {"baseUri": "%1$s"}},
                 "mashups": {"travel": {"deadlineMillis": 10000, "parameters": {"city": {"required": true}},
                   "calls": [{"partner": "weather", "template": "/weather?city={city}"},
                             {"partner": "hotels", "template": "/hotels?city={city}"}]}}}
                """.formatted(stubs.uri()));
        Files.writeString(apps.resolve("bad.json"), """
                {"partners": {}, "mashups": {"m": {"calls": [{"partner": "x", "template": "/x"}]}}}
                """);
        Path webapps = base.resolve("webapps");
        Files.writeString(webapps.resolve("mashup-async.xml"), contextXml("/async", "travel.json", "async"));
        Files.writeString(webapps.resolve("mashup-sync.xml"), contextXml("/sync", "travel.json", "sync"));
        Files.writeString(webapps.resolve("mashup-bad.xml"), contextXml("/bad", "bad.json", "async"));
        Files.copy(WAR, webapps.resolve("mashup-server.war"));

        // The pool gets a name so that /health shows the broker on it; -D is how Jetty's docs pass a system property.
        jetty = JettyDistribution.start(base, "jetty.threadPool.namePrefix=" + POOL,
                "-D" + MashupWebApp.DEFINITIONS + "=" + apps.resolve("travel.json"));
        client = new HttpClient();
        client.start();
    }

    /** The context XML of docs/mashup-server.md: the WAR and its settings, paths relative to the base. */
    private static String contextXml(String contextPath, String definitions, String mode) {
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE Configure PUBLIC "-//Jetty//Configure//EN" "https://jetty.org/configure_10_0.dtd">
                <Configure class="org.eclipse.jetty.ee11.webapp.WebAppContext">
                  <Set name="contextPath">%s</Set>
                  <Set name="war"><Property name="jetty.base"/>/rc10k/mashup-server.war</Set>
                  <Call name="setInitParameter">
                    <Arg>rc10k.definitions</Arg>
                    <Arg><Property name="jetty.base"/>/rc10k/%s</Arg>
                  </Call>
                  <Call name="setInitParameter">
                    <Arg>rc10k.mode</Arg>
                    <Arg>%s</Arg>
                  </Call>
                </Configure>
                """.formatted(contextPath, definitions, mode);
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (client != null) {
                client.stop();
            }
        } finally {
            try {
                if (jetty != null) {
                    jetty.close();
                }
            } finally {
                if (stubs != null) {
                    stubs.close();
                }
            }
        }
    }

    private static ContentResponse get(String path) throws Exception {
        return client.newRequest(jetty.uri.resolve(path)).timeout(10, TimeUnit.SECONDS).send();
    }

    private static void servesMashups(String context, String mode) throws Exception {
        ContentResponse travel = get(context + "/mashup/travel?city=Paris");
        assertEquals(200, travel.getStatus(), travel.getContentAsString());
        JsonNode body = JSON.readTree(travel.getContent());
        assertTrue(body.get("complete").asBoolean(), body.toString());
        assertEquals("Paris", body.at("/parts/hotels/body/city").asText(), body.toString());
        assertEquals(400, get(context + "/mashup/travel").getStatus(), "a missing required parameter");

        JsonNode health = JSON.readTree(get(context + "/health").getContent());
        assertEquals(mode, health.get("mode").asText());
        assertEquals(POOL, health.get("executor").asText(), "the broker runs on the container's pool");
        // The server counts a request just after writing its answer: wait for the count, not for the clock.
        String[] metrics = {""};
        Await.until(() -> {
            try {
                metrics[0] = get(context + "/metrics").getContentAsString();
            } catch (Exception e) {
                throw new IllegalStateException("could not read /metrics", e);
            }
            return metrics[0].contains("mashup_requests_total{mashup=\"travel\",outcome=\"complete\"} 1.0");
        }, () -> metrics[0]);
        assertTrue(metrics[0].contains("jetty_threads_busy"), "the container's pool is measured");
    }

    @ParameterizedTest
    @ValueSource(strings = {"async", "sync"})
    void contextXmlDeploysTheWarInEachMode(String mode) throws Exception {
        servesMashups("/" + mode, mode);
    }

    @Test
    void warDroppedIntoWebappsTakesItsDefinitionsFromTheSystemProperty() throws Exception {
        servesMashups("/mashup-server", "async");
    }

    @Test
    void applicationLogLinesReachTheContainersLog() {
        String log = jetty.output();
        // /async and /mashup-server run async, /sync sync; each logs one INFO line when it starts, in Jetty's format.
        assertEquals(2, startupLines(log, "async"), "the async contexts' startup lines:\n" + log);
        assertEquals(1, startupLines(log, "sync"), "the sync context's startup line:\n" + log);
        assertFalse(log.contains("SLF4J"), "SLF4J complained (no provider, or several):\n" + log);
    }

    private static long startupLines(String log, String mode) {
        String message = "mashup web application: 1 mashups, 2 partners, mode " + mode + ", executor " + POOL;
        return log.lines().filter(l -> l.contains(":INFO :") && l.contains("MashupWebApp") && l.endsWith(message))
                .count();
    }

    @Test
    void badDefinitionsFailOnlyTheirContextWithTheProblemInTheContainersLog() throws Exception {
        String log = jetty.output();
        assertTrue(log.lines().anyMatch(l -> l.contains("Failed startup of context") && l.contains(",/bad,")),
                "the deployer reports the failed context:\n" + log);
        assertTrue(log.lines().anyMatch(l -> l.contains(":ERROR:") && l.contains("MashupWebApp")
                && l.contains("bad.json") && l.contains("unknown partner \"x\"")),
                "the application names the problem in the container's log:\n" + log);
        assertEquals(503, get("/bad/mashup/m").getStatus(), "an unavailable context, not a mashup");
        assertEquals(503, get("/bad/health").getStatus());
        assertEquals(200, get("/async/health").getStatus(), "the other contexts of the same server still serve");
    }
}
