package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.PartnerStubs;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partner's credentials, from the environment and from a file, as an operator would give them to the
 * standalone jar: they reach the partner on every call, and appear in none of what the server shows —
 * its log (access log and shutdown included), {@code --check}'s output, {@code /metrics},
 * {@code /health}, the dashboard and its data.
 */
class SecretHeadersIT {
    private static final String VARIABLE = "RC10K_TEST_WEATHER_KEY";

    @Test
    void secretsReachThePartnerAndNoPageOrLogLine(@TempDir Path dir) throws Exception {
        String fromEnvironment = "env-" + UUID.randomUUID();
        String fromFile = "file-" + UUID.randomUUID();
        Path token = Files.writeString(dir.resolve("token"), fromFile + "\n");
        try (PartnerStubs stubs = PartnerStubs.start()) {
            Path config = Files.writeString(dir.resolve("secret.json"), """
                    {"partners": {"weather": {"baseUri": "%s", "headers": {
                        "X-Api-Key": {"env": "%s"}, "Authorization": {"file": "%s"}, "X-Client": "rc10k"}}},
                     "mashups": {"keyed": {"calls": [
                        {"name": "seen", "partner": "weather", "template": "/echo"},
                        {"name": "city", "partner": "weather", "template": "/weather?city=Oslo"}]}}}
                    """.formatted(stubs.uri(), VARIABLE, token.toString().replace("\\", "\\\\")));

            // Without the variable: --check names it, and shows neither secret.
            Process missing = JarProcess.run("--check", config.toString());
            String missingOutput = new String(missing.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(missing.waitFor(60, TimeUnit.SECONDS));
            assertEquals(2, missing.exitValue(), missingOutput);
            assertTrue(missingOutput.contains("partners.weather.headers.X-Api-Key: environment variable " + VARIABLE
                    + " is not set"), missingOutput);

            Map<String, String> environment = Map.of(VARIABLE, fromEnvironment);
            Process check = JarProcess.run(environment, "--check", config.toString());
            String checkOutput = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(check.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, check.exitValue(), checkOutput);

            List<String> shown = new ArrayList<>(List.of(missingOutput, checkOutput));
            HttpClient client = new HttpClient();
            client.start();
            try (JarProcess jar = JarProcess.start(environment, "--config", config.toString(), "--port", "0",
                    "--admin-port", "0")) {
                ContentResponse mashup = client.newRequest(jar.uri.resolve("/mashup/keyed"))
                        .timeout(30, TimeUnit.SECONDS).send();
                assertEquals(200, mashup.getStatus(), mashup.getContentAsString());
                // The partner echoes what it received: both secrets, as configured.
                String echoed = mashup.getContentAsString();
                assertTrue(echoed.contains("\"x-api-key\":\"" + fromEnvironment + "\""), echoed);
                assertTrue(echoed.contains("\"authorization\":\"" + fromFile + "\""), echoed);
                assertTrue(echoed.contains("\"x-client\":\"rc10k\""), echoed);

                URI admin = jar.liveView.get(60, TimeUnit.SECONDS).resolve("/");
                for (String page : List.of("/metrics", "/health", "/health/ready", "/dashboard", "/dashboard/data")) {
                    ContentResponse response = client.newRequest(admin.resolve(page)).timeout(30, TimeUnit.SECONDS)
                            .send();
                    assertEquals(200, response.getStatus(), page + ": " + response.getContentAsString());
                    shown.add(page + "\n" + response.getContentAsString());
                }
                assertEquals(143, jar.stop());
                shown.add(jar.output.toString());
            } finally {
                client.stop();
            }
            assertTrue(shown.get(shown.size() - 1).contains("/mashup/keyed"), "the access log is in the output:\n"
                    + shown.get(shown.size() - 1));
            for (String text : shown) {
                assertFalse(text.contains(fromEnvironment) || text.contains(fromFile), "a secret is shown:\n" + text);
            }
        }
    }
}
