package io.rc10k.stubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shaded jar, run as the README and docs/partner-stubs.md tell a user to run it. */
class StubJarIT {
    private static final String JAR = System.getProperty("rc10k.stubs.jar", "target/partner-stubs.jar");
    private static final Pattern READY = Pattern.compile("on: http://127\\.0\\.0\\.1:(\\d+) http://127\\.0\\.0\\.1:(\\d+)");
    private static final Pattern HOSTILE_READY = Pattern.compile("^partner-stubs hostile partner ready .* on: "
            + "http://127\\.0\\.0\\.1:(\\d+)$");
    private static final Pattern HOSTILE_TLS_READY = Pattern.compile("^partner-stubs hostile partner ready \\(HTTPS.* on: "
            + "https://127\\.0\\.0\\.1:(\\d+)$");

    private static Process java(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-jar", JAR));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    @Test
    void jarServesEveryListedPortAndStopsOnSignal() throws Exception {
        Process process = java("--port", "0,0", "--h2c");
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
            String line = out.readLine();
            assertNotNull(line, "the jar printed nothing");
            Matcher ready = READY.matcher(line);
            assertTrue(ready.find(), line);
            for (int port : new int[] {Integer.parseInt(ready.group(1)), Integer.parseInt(ready.group(2))}) {
                RawHttp.Result stats = RawHttp.get(URI.create("http://127.0.0.1:" + port), "/stats", 5_000);
                assertTrue(stats.head().startsWith("HTTP/1.1 200"), stats.head());
                assertTrue(stats.body().contains("\"liveThreads\""), stats.body());
            }
        } finally {
            process.destroy();
        }
        assertTrue(process.waitFor(10, TimeUnit.SECONDS), "the jar did not stop on SIGTERM");
    }

    @Test
    void jarServesTheHostilePartnerWithHostile() throws Exception {
        Process process = java("--hostile", "--port", "0", "--max-stall", "500");
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
            String line = out.readLine();
            assertNotNull(line, "the jar printed nothing");
            Matcher ready = HOSTILE_READY.matcher(line);
            assertTrue(ready.find(), line);
            URI uri = URI.create("http://127.0.0.1:" + ready.group(1));
            assertEquals(HostilePartnerTest.OK, RawHttp.get(uri, "/ok", 5_000).text());
            RawHttp.Result broken = RawHttp.get(uri, "/chunk-size-invalid", 5_000);
            assertTrue(broken.body().startsWith("zz\r\n"), broken.text());
            assertEquals(RawHttp.End.RESET, RawHttp.get(uri, "/reset-at-accept", 5_000).end());
        } finally {
            process.destroy();
        }
        assertTrue(process.waitFor(10, TimeUnit.SECONDS), "the jar did not stop on SIGTERM");
    }

    @Test
    void jarServesTheHostilePartnerOverTlsWithHttps(@TempDir Path files) throws Exception {
        Path pem = files.resolve("hostile.pem");
        Process process = java("--hostile", "--https", "--port", "0", "--cert-out", pem.toString());
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
            String line = out.readLine();
            assertNotNull(line, "the jar printed nothing");
            Matcher ready = HOSTILE_TLS_READY.matcher(line);
            assertTrue(ready.find(), line);
            URI uri = URI.create("https://127.0.0.1:" + ready.group(1));
            SSLSocketFactory tls = trusting(pem);
            assertEquals(HostilePartnerTest.OK, RawHttp.get(uri, "/ok", 5_000, tls).text());
            assertEquals(RawHttp.End.RESET, RawHttp.get(uri, "/reset-at-accept", 5_000, tls).end());
        } finally {
            process.destroy();
        }
        assertTrue(process.waitFor(10, TimeUnit.SECONDS), "the jar did not stop on SIGTERM");
    }

    /** What a user does with {@code --cert-out}: trust the PEM it wrote. */
    private static SSLSocketFactory trusting(Path pem) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(pem)) {
            trust.setCertificateEntry("hostile", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trustManagers.getTrustManagers(), null);
        return context.getSocketFactory();
    }

    @Test
    void badHostileCommandLineExitsWithStatus2AndSaysWhy() throws Exception {
        Process process = java("--hostile", "--chaos", "5%");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(10, TimeUnit.SECONDS));
        assertEquals(2, process.exitValue(), output);
        assertTrue(output.contains("--chaos: \"5%\" is not a number (accepted: 0 to 1, e.g. 0.05)"), output);
    }

    @Test
    void badCommandLineExitsWithStatus2AndSaysWhy() throws Exception {
        Process process = java("--port", "http");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(10, TimeUnit.SECONDS));
        assertEquals(2, process.exitValue(), output);
        assertTrue(output.contains("--port: \"http\" is not a port list"), output);
    }

    @Test
    void versionPrintsTheNameAndVersionTheJarsManifestCarries() throws Exception {
        Process process = java("--version", "--hostile", "--port", "http");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output);
        Attributes manifest;
        try (JarFile jar = new JarFile(JAR)) {
            manifest = jar.getManifest().getMainAttributes();
        }
        assertEquals("rc10k-partner-stubs", manifest.getValue("Implementation-Title"));
        assertTrue(manifest.getValue("Implementation-Version").matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"),
                manifest.getValue("Implementation-Version"));
        assertEquals(manifest.getValue("Implementation-Title") + " " + manifest.getValue("Implementation-Version")
                + System.lineSeparator(), output);
    }

    @Test
    void helpPrintsEveryOption() throws Exception {
        Process process = java("--help");
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue());
        for (String option : List.of("--port", "--host", "--h2c", "--max-threads", "--max-streams", "--seed",
                "--accept-queue", "--idle-timeout", "--max-stall", "--hostile", "--chaos", "--loops", "--version")) {
            assertTrue(output.contains(option), option + " missing from --help");
        }
    }
}
