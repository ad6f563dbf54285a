package io.rc10k.benchmarks.peers;

import io.rc10k.benchmarks.capacity.StubProcess;
import io.rc10k.benchmarks.efficiency.Efficiency;
import io.rc10k.benchmarks.efficiency.Efficiency.Window;
import io.rc10k.broker.PartnerTls;
import io.rc10k.harness.CommandLine;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The mashup server's CPU per mashup when its partners are called over HTTPS, beside cleartext, in one run:
 * the same C zero-delay calls to partner stubs over HTTP/1.1 (the {@link Peers} row, the yardstick), h2c,
 * HTTPS HTTP/1.1, HTTPS h2 (agreed by ALPN), and HTTP/1.1 without connection reuse — cleartext, over HTTPS, and
 * over HTTPS to a partner that never resumes a TLS session — each {@link Variant} a mashup server process of its
 * own, async mode; beside them the plain fan-out on Jetty's client ({@link JettyFanOut}) over HTTP/1.1 and
 * HTTPS HTTP/1.1, because the mashup server calls https partners over Jetty's client and cleartext HTTP/1.1 ones
 * over its own loops. Measured in interleaved rounds ({@link InterleavedRounds}).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.peers.HttpsCost
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.peers.HttpsCost --rounds 5 --variants https1,h2c,https-h2
 * </pre>
 *
 * <p>The partners are three stub processes: cleartext ({@code --h2c}), HTTPS ({@code --https}, HTTP/1.1 or h2
 * by ALPN), and HTTPS that declines TLS 1.3 session resumption (its JVM runs with
 * {@code -Djdk.tls.server.disableExtensions=pre_shared_key}, so every handshake with it is a full one). No reuse
 * is the stubs' {@code close=true}: each answer says {@code Connection: close} and the stub ends the connection,
 * so every call opens a new one. Every mashup server runs the released jar with the same definitions file and
 * JVM options; the stubs' certificates are trusted through the JDK's default trust store
 * ({@code -Djavax.net.ssl.trustStore}), the path {@code PartnerTls.DEFAULT} takes for a partner with a
 * publicly trusted certificate (the definitions file has no TLS settings yet). Before measuring, each mashup
 * server variant's calls are checked at the stubs' {@code /echo}: its calls arrive over the protocol and TLS
 * the row claims.</p>
 *
 * <p>It prints a table per round and one of medians: mashups/s, the server's CPU µs per mashup, both as the
 * median over rounds of each round's ratio to the cleartext HTTP/1.1 row of the same round, and the CPU as the
 * same ratio to the row that differs only by TLS. Exit status: 0 when every mashup was answered 200 and
 * complete, 1 otherwise, 2 for a bad command line.</p>
 */
public final class HttpsCost {
    /** The row every other is divided by. */
    static final String BASELINE = "http/1.1";
    /** Every row, in the order measured. */
    static final List<Variant> VARIANTS = List.of(
            new Variant(BASELINE, "http1", false, Stub.CLEAR, "http/1.1", false, null),
            new Variant("h2c", "h2c", false, Stub.CLEAR, "h2c", false, null),
            new Variant("https http/1.1", "https1", false, Stub.TLS, "http/1.1", false, BASELINE),
            new Variant("https h2", "https-h2", false, Stub.TLS, "h2", false, "h2c"),
            new Variant("http/1.1, a connection per call", "http1-close", false, Stub.CLEAR, "http/1.1", true, null),
            new Variant("https http/1.1, a connection per call", "https1-close", false, Stub.TLS, "http/1.1", true,
                    "http/1.1, a connection per call"),
            new Variant("https http/1.1, a connection per call, no resumption", "https1-full", false, Stub.TLS_FULL,
                    "http/1.1", true, "http/1.1, a connection per call"),
            new Variant("jetty-peer http/1.1", "jetty-peer", true, Stub.CLEAR, "http/1.1", false, null),
            new Variant("jetty-peer https http/1.1", "jetty-peer-https", true, Stub.TLS, "http/1.1", false,
                    "jetty-peer http/1.1"));

    private static final Pattern PROTOCOL = Pattern.compile("\"protocol\":\"([^\"]+)\"");
    private static final Pattern SECURE = Pattern.compile("\"secure\":(true|false)");
    private static final String TRUST_PASSWORD = "https-cost";

    /** A partner-stubs process: cleartext, HTTPS, or HTTPS without session resumption. */
    enum Stub {
        CLEAR(List.of(), List.of("--h2c")),
        TLS(List.of(), List.of("--https")),
        TLS_FULL(List.of("-Djdk.tls.server.disableExtensions=pre_shared_key"), List.of("--https"));

        final List<String> jvmArgs;
        final List<String> args;

        Stub(List<String> jvmArgs, List<String> args) {
            this.jvmArgs = jvmArgs;
            this.args = args;
        }

        boolean secure() {
            return this != CLEAR;
        }
    }

    /**
     * One row: how the C calls reach the partner.
     *
     * @param name      the row's name
     * @param slug      its mashup's and partner's name in the definitions, and its name on the command line
     * @param jettyPeer the fan-out of {@link JettyFanOut} (Jetty's client without the mashup server) instead of
     *                  the mashup server
     * @param stub      the stub process called
     * @param protocol  the partner's {@code protocol} in the definitions
     * @param close     whether the stub ends each connection after its answer ({@code close=true})
     * @param twin      the row that differs only by TLS, divided into this one's CPU per mashup; null for none
     */
    record Variant(String name, String slug, boolean jettyPeer, Stub stub, String protocol, boolean close,
            String twin) {
        /** What the stub's {@code /echo} reports as the protocol of a call. */
        String echoedProtocol() {
            return protocol.equals("http/1.1") ? "HTTP/1.1" : "HTTP/2.0";
        }
    }

    /**
     * Settings of one run.
     *
     * @param servers the servers' settings, as {@link Efficiency} takes them: C (one value), connections, first
     *                round's longest warm-up, measured window, jars, {@code java} and JVM options
     * @param rounds   how many times every variant is measured, in turn
     * @param variants the rows, in the order measured: {@link #VARIANTS} or some of them, the first being
     *                 {@value #BASELINE} (the yardstick of the others)
     */
    public record Settings(Efficiency.Settings servers, int rounds, List<Variant> variants) {
        public Settings(Efficiency.Settings servers, int rounds) {
            this(servers, rounds, VARIANTS);
        }

        public Settings {
            variants = List.copyOf(variants);
            if (variants.isEmpty() || !variants.get(0).name().equals(BASELINE)) {
                throw new IllegalArgumentException("--variants: " + variants.stream().map(Variant::slug).toList()
                        + " (accepted: " + VARIANTS.get(0).slug() + " first, then any of " + VARIANTS.stream()
                        .skip(1).map(Variant::slug).toList() + ")");
            }
            if (servers.calls().size() != 1) {
                throw new IllegalArgumentException("--calls: " + servers.calls() + " (accepted: one C, 1 to 64)");
            }
            if (rounds < 1) {
                throw new IllegalArgumentException("--rounds: " + rounds + " (accepted: at least 1)");
            }
        }

        public int calls() {
            return servers.calls().get(0);
        }

        /**
         * As {@link Peers.Settings#defaults()}: C = 6, 3 rounds, 64 connections, warm-up at most 15 s, 10 s measured.
         */
        public static Settings defaults() {
            Peers.Settings peers = Peers.Settings.defaults();
            return new Settings(peers.servers(), peers.rounds(), VARIANTS);
        }
    }

    /** Every variant's windows, one per round, in the order measured. */
    public record Report(Settings settings, String machine, Map<String, List<Window>> windows) {
        public boolean passed() {
            return windows.values().stream().flatMap(List::stream)
                    .allMatch(w -> w.failed() == 0 && w.requests() > 0 && w.cpuMillis() > 0);
        }

        /** The table of medians over the rounds. */
        public String table() {
            return new HttpsCostTable(settings.calls(), windows, -1).render();
        }
    }

    private HttpsCost() {
    }

    public static Report run(Settings settings) throws Exception {
        Efficiency.Settings s = settings.servers();
        for (Path jar : List.of(s.mashupJar(), s.stubJar(), s.benchmarksJar())) {
            if (!Files.isRegularFile(jar)) {
                throw new IOException("no jar at " + jar.toAbsolutePath() + "; build first with "
                        + "./mvnw -q package -DskipTests (or pass --mashup-jar, --stub-jar, --benchmarks-jar)");
            }
        }
        String machine = Peers.machine(s, settings.rounds(), Peers.javaVersion(s.java()));
        System.out.println("machine: " + machine);
        int c = settings.calls();
        Path directory = Files.createTempDirectory("https-cost-");
        Map<Stub, StubProcess> stubs = new LinkedHashMap<>();
        Map<String, ServerProcess> servers = new LinkedHashMap<>();
        Map<String, List<Window>> windows = new LinkedHashMap<>();
        try {
            Path trustStore = trustStore(startStubs(s.stubJar(), directory, stubs), directory.resolve("trust.p12"));
            Path definitions = Files.writeString(directory.resolve("definitions.json"), definitionsJson(stubs, c));
            Efficiency.Settings trusting = s.withMoreJvmArgs(List.of("-Djavax.net.ssl.trustStore=" + trustStore,
                    "-Djavax.net.ssl.trustStoreType=PKCS12", "-Djavax.net.ssl.trustStorePassword=" + TRUST_PASSWORD));
            Map<String, InterleavedRounds.Target> targets = new LinkedHashMap<>();
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            for (Variant v : settings.variants()) {
                ServerProcess server = start(v, trusting, definitions, stubs.get(v.stub()));
                servers.put(v.name(), server);
                if (!v.jettyPeer()) {
                    check(client, server, v);
                }
                targets.put(v.name(), new InterleavedRounds.Target(server, stubs.get(v.stub()),
                        server.uri().resolve("/mashup/" + (v.jettyPeer() ? "c" + c : v.slug())), c));
            }
            new InterleavedRounds(s.connections(), s.warmupMillis(), s.measureMillis(), settings.rounds())
                    .measure(targets, windows, round -> {
                        System.out.println();
                        System.out.print(new HttpsCostTable(c, windows, round).render());
                        System.out.println();
                    });
        } finally {
            servers.values().forEach(ServerProcess::close);
            stubs.values().forEach(StubProcess::close);
            try (var files = Files.list(directory)) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(directory);
        }
        return new Report(settings, machine, windows);
    }

    /** Starts every stub process into {@code stubs}; returns the PEM files of the HTTPS ones' certificates. */
    private static List<Path> startStubs(Path jar, Path directory, Map<Stub, StubProcess> stubs) throws IOException {
        List<Path> certificates = new ArrayList<>();
        for (Stub stub : Stub.values()) {
            List<String> args = new ArrayList<>(stub.args);
            if (stub.secure()) {
                Path pem = directory.resolve(stub.name().toLowerCase(Locale.ROOT) + ".pem");
                args.addAll(List.of("--cert-out", pem.toString()));
                certificates.add(pem);
            }
            stubs.put(stub, StubProcess.start(jar, stub.jvmArgs, args));
        }
        return certificates;
    }

    /** The variant's server: the mashup server in async mode, or the Jetty peer calling {@code stub}'s /stub. */
    private static ServerProcess start(Variant v, Efficiency.Settings settings, Path definitions, StubProcess stub)
            throws IOException {
        if (v.jettyPeer()) {
            return ServerProcess.start(v.slug(), Peers.peerCommand(settings, JettyFanOut.class,
                    stub.uri().resolve("/stub").toString(), settings.calls().get(0)), Peers.JETTY_READY);
        }
        return Efficiency.startMashup(settings, definitions, "async");
    }

    /**
     * One partner per variant and two mashups: {@code /mashup/SLUG}, whose C calls GET {@code /stub} (with
     * {@code close=true} where the variant keeps no connection), and {@code /mashup/check-SLUG}, one GET of
     * {@code /echo} that tells how the calls arrive.
     */
    /**
     * The deadline, call and connect timeouts of every mashup and partner: far past what a call takes, so that
     * a loaded machine (a cold JVM's first full handshakes) slows the rows but never fails a mashup; the
     * figures are CPU, not latency.
     */
    static final int PATIENCE_MILLIS = 30_000;

    static String definitionsJson(Map<Stub, StubProcess> stubs, int calls) {
        StringBuilder partners = new StringBuilder();
        StringBuilder mashups = new StringBuilder();
        for (Variant v : VARIANTS.stream().filter(v -> !v.jettyPeer()).toList()) {
            String separator = partners.isEmpty() ? "" : ",";
            partners.append(separator).append('"').append(v.slug()).append("\":{\"baseUri\":\"")
                    .append(stubs.get(v.stub()).uri()).append("\",\"protocol\":\"").append(v.protocol())
                    .append("\",\"maxConnections\":256,\"connectTimeoutMillis\":").append(PATIENCE_MILLIS)
                    .append(",\"callTimeoutMillis\":").append(PATIENCE_MILLIS).append('}');
            mashups.append(separator).append('"').append(v.slug()).append("\":{\"deadlineMillis\":")
                    .append(PATIENCE_MILLIS).append(",\"calls\":[");
            for (int k = 1; k <= calls; k++) {
                mashups.append(k > 1 ? "," : "").append("{\"name\":\"p").append(k).append("\",\"partner\":\"")
                        .append(v.slug()).append("\",\"template\":\"/stub").append(v.close() ? "?close=true" : "")
                        .append("\"}");
            }
            mashups.append("]},\"check-").append(v.slug()).append("\":{\"calls\":[{\"name\":\"echo\",\"partner\":\"")
                    .append(v.slug()).append("\",\"template\":\"/echo\"}]}");
        }
        return "{\"partners\":{" + partners + "},\"mashups\":{" + mashups + "}}";
    }

    /** Fails unless the variant's calls reach the stub over the protocol and TLS the row claims. */
    private static void check(HttpClient client, ServerProcess server, Variant v)
            throws IOException, InterruptedException {
        HttpResponse<String> answer = client.send(HttpRequest.newBuilder(server.uri().resolve("/mashup/check-"
                + v.slug())).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        Matcher protocol = PROTOCOL.matcher(answer.body());
        Matcher secure = SECURE.matcher(answer.body());
        if (answer.statusCode() != 200 || !protocol.find() || !secure.find()
                || !protocol.group(1).equals(v.echoedProtocol())
                || Boolean.parseBoolean(secure.group(1)) != v.stub().secure()) {
            throw new IOException("variant \"" + v.name() + "\": its calls should arrive as " + v.echoedProtocol()
                    + (v.stub().secure() ? " over TLS" : " in cleartext") + "; the stub's /echo answered "
                    + answer.statusCode() + " " + answer.body());
        }
        System.out.println("checked: " + v.name() + " — calls arrive as " + protocol.group(1)
                + (v.stub().secure() ? " over TLS" : " in cleartext"));
    }

    /** A PKCS#12 trust store holding every certificate of {@code pems}. */
    private static Path trustStore(List<Path> pems, Path file) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        CertificateFactory x509 = CertificateFactory.getInstance("X.509");
        int i = 0;
        for (Path pem : pems) {
            try (InputStream in = Files.newInputStream(pem)) {
                for (Certificate certificate : x509.generateCertificates(in)) {
                    store.setCertificateEntry("stub-" + i++, certificate);
                }
            }
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, TRUST_PASSWORD.toCharArray());
        }
        return file;
    }

    /** The baseline, then the variants {@code slugs} name, in the order of {@link #VARIANTS}. */
    private static List<Variant> variants(List<String> slugs, CommandLine line) {
        for (String slug : slugs) {
            if (VARIANTS.stream().noneMatch(v -> v.slug().equals(slug))) {
                throw line.fail("--variants", slug + " (accepted: " + String.join(", ",
                        VARIANTS.stream().map(Variant::slug).toList()) + ")");
            }
        }
        return VARIANTS.stream().filter(v -> v.name().equals(BASELINE) || slugs.contains(v.slug())).toList();
    }

    public static void main(String[] args) throws Exception {
        Settings d = Settings.defaults();
        Efficiency.Settings e = d.servers();
        int calls = d.calls();
        int rounds = d.rounds();
        int connections = e.connections();
        long warmup = e.warmupMillis();
        long measure = e.measureMillis();
        Path mashupJar = e.mashupJar();
        Path stubJar = e.stubJar();
        Path benchmarksJar = e.benchmarksJar();
        String java = e.java();
        List<String> jvmArgs = new ArrayList<>();
        List<Variant> variants = VARIANTS;
        String usage = "--calls C (6) --rounds R (3) --connections N (64) --warmup MS (15000; round 1 at least "
                + "half of it, later rounds at most " + InterleavedRounds.LATER_WARMUP_MILLIS + ") --measure MS "
                + "(10000) --mashup-jar PATH --stub-jar PATH --benchmarks-jar PATH --java PATH (the servers' JVM; "
                + "default: this one, which also runs the stubs) "
                + "--jvm-arg ARG (repeatable) --variants SLUG,… (default: every one; " + BASELINE + " is always "
                + "measured first; slugs: " + String.join(", ", VARIANTS.stream().map(Variant::slug).toList())
                + ") --help --version";
        CommandLine line = new CommandLine("https-cost", usage, args);
        while (line.next()) {
            switch (line.option()) {
                case "--calls" -> calls = line.intValue();
                case "--rounds" -> rounds = line.intValue();
                case "--connections" -> connections = line.intValue();
                case "--warmup" -> warmup = line.longValue();
                case "--measure" -> measure = line.longValue();
                case "--mashup-jar" -> mashupJar = line.path();
                case "--stub-jar" -> stubJar = line.path();
                case "--benchmarks-jar" -> benchmarksJar = line.path();
                case "--java" -> java = line.value();
                case "--jvm-arg" -> jvmArgs.add(line.value());
                case "--variants" -> variants = variants(line.list(), line);
                default -> line.unknown();
            }
        }
        Settings settings;
        try {
            settings = new Settings(new Efficiency.Settings(List.of(calls), List.of("async"), connections, warmup,
                    measure, mashupJar, stubJar, benchmarksJar, java, jvmArgs, false, false), rounds, variants);
        } catch (IllegalArgumentException ex) {
            throw line.fail(ex.getMessage());
        }
        Report report = run(settings);
        System.out.println("machine: " + report.machine());
        System.out.print(report.table());
        System.exit(report.passed() ? 0 : 1);
    }
}
