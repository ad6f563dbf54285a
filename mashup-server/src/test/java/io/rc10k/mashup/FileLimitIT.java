package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.PartnerStubs;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The open-file wall, scaled down: the jar runs with a limit of 600 open files, and 600 concurrent
 * mashups (each needing one inbound and two outbound sockets) arrive at once. The server must stop
 * accepting before it runs out of files, keep answering /health on its admin port, answer every
 * request it took, and serve normally once the load is gone.
 */
class FileLimitIT {
    private static final Pattern READY = Pattern.compile("ready on (http://\\S+) .*max (\\d+) connections of (\\d+) open");
    private static final Pattern ADMIN = Pattern.compile("admin .* on (http://\\S+)");

    @Test
    void underMoreLoadThanItsFilesAllowTheServerShedsAndStaysHealthy(@TempDir Path dir) throws Exception {
        try (PartnerStubs stubs = PartnerStubs.start()) {
            Path definitions = dir.resolve("definitions.json");
            Files.writeString(definitions, """
                    {"partners": {"p1": {"baseUri": "%1$s", "maxConnections": 100},
                                  "p2": {"baseUri": "%1$s", "maxConnections": 100}},
                     "mashups": {"paper": {"deadlineMillis": 5000, "calls": [
                        {"partner": "p1", "template": "/stub?delay=500"},
                        {"partner": "p2", "template": "/stub?delay=1000"}]}}}
                    """.formatted(stubs.uri()));
            String java = ProcessHandle.current().info().command().orElse("java");
            Process server = new ProcessBuilder("sh", "-c", "ulimit -n 600 && exec \"" + java + "\" -jar \""
                    + JarProcess.JAR + "\" --config \"" + definitions + "\" --port 0")
                    .redirectErrorStream(true).start();
            StringBuffer output = new StringBuffer();
            CompletableFuture<String[]> ready = new CompletableFuture<>();
            Thread reader = new Thread(() -> {
                try (BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String main = null;
                    String line;
                    while ((line = out.readLine()) != null) {
                        output.append(line).append('\n');
                        Matcher m = READY.matcher(line);
                        if (m.find()) {
                            main = m.group(1);
                        }
                        Matcher a = ADMIN.matcher(line);
                        if (a.find() && main != null) {
                            ready.complete(new String[] {main, a.group(1)});
                        }
                    }
                } catch (Exception e) {
                    ready.completeExceptionally(e);
                }
                ready.completeExceptionally(new IllegalStateException("exited:\n" + output));
            });
            reader.setDaemon(true);
            reader.start();
            HttpClient client = new HttpClient();
            client.setMaxConnectionsPerDestination(2_000);
            client.setMaxRequestsQueuedPerDestination(10_000);
            client.start();
            try {
                String[] urls = ready.get(60, TimeUnit.SECONDS);
                assertTrue(output.toString().contains("of 600 open files"), output.toString());
                URI base = URI.create(urls[0]);
                URI admin = URI.create(urls[1]);

                List<CompletableFuture<ContentResponse>> all = new ArrayList<>();
                for (int i = 0; i < 600; i++) {
                    all.add(new CompletableResponseListener(client.newRequest(base.resolve("/mashup/paper"))
                            .timeout(120, TimeUnit.SECONDS)).send());
                }
                // While the storm is on, health still answers on the admin port.
                int healthy = 0;
                for (int i = 0; i < 10; i++) {
                    healthy += client.newRequest(admin.resolve("/health")).timeout(5, TimeUnit.SECONDS).send()
                            .getStatus() == 200 ? 1 : 0;
                    Thread.sleep(200);
                }
                assertEquals(10, healthy, "health stopped answering under load");
                int ok = 0;
                int shed = 0;
                for (CompletableFuture<ContentResponse> f : all) {
                    int status = f.get(180, TimeUnit.SECONDS).getStatus();
                    ok += status == 200 ? 1 : 0;
                    shed += status == 503 ? 1 : 0;
                }
                System.out.printf("file limit 600: %d answered 200, %d shed 503, of 600%n", ok, shed);
                assertEquals(600, ok + shed, "every request gets an answer");
                long afterLoad = System.nanoTime();
                ContentResponse normal = client.newRequest(base.resolve("/mashup/paper")).timeout(10, TimeUnit.SECONDS)
                        .send();
                assertEquals(200, normal.getStatus());
                assertTrue(System.nanoTime() - afterLoad < TimeUnit.SECONDS.toNanos(5), "not normal within 5 s");
                assertFalse(output.toString().contains("Too many open files"), "the server hit the wall:\n" + output);
            } finally {
                client.stop();
                server.destroy();
                server.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }
}
