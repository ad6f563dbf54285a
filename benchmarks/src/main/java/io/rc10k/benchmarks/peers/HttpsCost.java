package io.rc10k.benchmarks.peers;

import io.rc10k.benchmarks.capacity.StubProcess;
import io.rc10k.benchmarks.efficiency.Efficiency;
import io.rc10k.benchmarks.efficiency.Efficiency.Window;
import io.rc10k.benchmarks.launch.Finish;
import io.rc10k.benchmarks.launch.Launch;
import io.rc10k.harness.CommandLine;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The mashup server's CPU per mashup when its partners are called over HTTPS, beside cleartext, in one run:
 * the same C zero-delay calls to partner stubs over HTTP/1.1 (the {@link Peers} row, the yardstick), h2c,
 * HTTPS HTTP/1.1, HTTPS h2 (agreed by ALPN), and HTTP/1.1 without connection reuse — cleartext, over HTTPS, and
 * over HTTPS to a partner that never resumes a TLS session — each variant a mashup server process of its
 * own, async mode ({@link HttpsVariant}); beside them the plain fan-out on Jetty's client ({@link JettyFanOut}) over HTTP/1.1 and
 * HTTPS HTTP/1.1, because the mashup server calls https partners over Jetty's client and cleartext HTTP/1.1 ones
 * over its own loops. Measured in interleaved rounds ({@link InterleavedRounds}).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.peers.HttpsCost
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.peers.HttpsCost --rounds 5 --variants https1,h2c,https-h2
 * </pre>
 *
 * <p>The partners are three stub processes ({@link HttpsPartners}): cleartext, HTTPS, and HTTPS that declines TLS
 * 1.3 session resumption. No reuse
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
    private static final Pattern PROTOCOL = Pattern.compile("\"protocol\":\"([^\"]+)\"");
    private static final Pattern SECURE = Pattern.compile("\"secure\":(true|false)");

    /**
     * Settings of one run.
     *
     * @param rounds   C, the rounds, each window's load, and the servers' launch
     * @param variants the rows, in the order measured: {@link HttpsVariant#VARIANTS} or some of them, the first
     *                 being {@value HttpsVariant#BASELINE} (the yardstick of the others)
     */
    public record Settings(Rounds rounds, List<HttpsVariant> variants) {
        public Settings(Rounds rounds) {
            this(rounds, HttpsVariant.VARIANTS);
        }

        public Settings {
            variants = List.copyOf(variants);
            if (variants.isEmpty() || !variants.get(0).name().equals(HttpsVariant.BASELINE)) {
                throw new IllegalArgumentException("--variants: " + variants.stream().map(HttpsVariant::slug).toList()
                        + " (accepted: " + HttpsVariant.slugs().get(0) + " first, then any of "
                        + HttpsVariant.slugs().subList(1, HttpsVariant.slugs().size()) + ")");
            }
        }
    }

    /** Every variant's windows, one per round, in the order measured. */
    public record Report(Settings settings, String machine, Map<String, List<Window>> windows)
            implements Finish.Result {
        /** The machine and the table of medians over the rounds. */
        @Override
        public String table() {
            return "machine: " + machine + "\n" + new HttpsCostTable(settings.rounds().calls(), windows, -1).render();
        }

        @Override
        public boolean passed() {
            return InterleavedRounds.clean(windows);
        }
    }

    private HttpsCost() {
    }

    public static Report run(Settings settings) throws Exception {
        Rounds rounds = settings.rounds();
        rounds.launch().requireJars(true);
        String machine = Peers.machine(rounds, rounds.launch().javaVersion());
        System.out.println("machine: " + machine);
        int c = rounds.calls();
        Path directory = Files.createTempDirectory("https-cost-");
        Map<String, ServerProcess> servers = new LinkedHashMap<>();
        Map<String, List<Window>> windows = new LinkedHashMap<>();
        try (HttpsPartners stubs = HttpsPartners.start(rounds.launch().stubJar(), directory)) {
            Path definitions = Files.writeString(directory.resolve("definitions.json"),
                    HttpsVariant.definitionsJson(stubs, c));
            Launch trusting = rounds.launch().withMoreJvmArgs(stubs.trustingJvmArgs());
            try {
                Map<String, InterleavedRounds.Target> targets = new LinkedHashMap<>();
                HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
                for (HttpsVariant v : settings.variants()) {
                    StubProcess stub = stubs.get(v.stub());
                    ServerProcess server = v.jettyPeer()
                            ? Peers.JETTY.start(trusting, stub.uri().resolve("/stub").toString(), c)
                            : Efficiency.startMashup(trusting, definitions, "async");
                    servers.put(v.name(), server);
                    if (!v.jettyPeer()) {
                        check(client, server, v);
                    }
                    targets.put(v.name(), new InterleavedRounds.Target(server, stub,
                            server.uri().resolve("/mashup/" + (v.jettyPeer() ? "c" + c : v.slug())), c));
                }
                new InterleavedRounds(rounds).measure(targets, windows,
                        round -> new HttpsCostTable(c, windows, round).render());
            } finally {
                servers.values().forEach(ServerProcess::close);
            }
        } finally {
            try (var files = Files.list(directory)) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(directory);
        }
        return new Report(settings, machine, windows);
    }

    /** Fails unless the variant's calls reach the stub over the protocol and TLS the row claims. */
    private static void check(HttpClient client, ServerProcess server, HttpsVariant v)
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

    private static final String USAGE = Rounds.usage("the servers' JVM; default: this one, which also runs the stubs")
            + " --variants SLUG,… (default: every one; " + HttpsVariant.BASELINE + " is always measured first; slugs: "
            + String.join(", ", HttpsVariant.slugs()) + ") --help --version";

    public static void main(String[] args) throws Exception {
        Rounds.Reader rounds = Rounds.reader(Rounds.defaults());
        List<String> variants = null;
        CommandLine line = new CommandLine("https-cost", USAGE, args);
        while (line.next()) {
            if (line.option().equals("--variants")) {
                variants = line.list();
            } else {
                rounds.readOrUnknown(line);
            }
        }
        Settings settings;
        try {
            settings = new Settings(rounds.get(), variants == null ? HttpsVariant.VARIANTS : HttpsVariant.of(variants));
        } catch (IllegalArgumentException e) {
            throw line.fail(e.getMessage());
        }
        Finish.exit("https-cost", () -> run(settings));
    }
}
