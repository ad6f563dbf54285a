package io.rc10k.benchmarks.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.harness.Prometheus;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAccumulator;

/**
 * One pass of {@link RequiredFailureLatency} against one running mashup server: N requests from K
 * client threads, each answer checked and timed; then, bounded, until every call has ended, and what
 * the server and the stubs counted of it.
 *
 * <pre>{@code
 * RequiredFailurePass passes = new RequiredFailurePass(settings, "async", server, metrics, h2cStub);
 * RequiredFailureReport.Pass pass = passes.run(16, 500, false);
 * }</pre>
 *
 * The failure instant is taken from the answer itself, not assumed from the stub's delay: the account
 * part's {@code elapsedMillis} is how long the server's call to it took until it failed, so
 * {@code sent + elapsedMillis} is no later than the failure; the lateness is the rest of the round trip.
 * Not thread-safe: one pass at a time (the stubs' counts are reset at the start of each).
 */
final class RequiredFailurePass {
    static final String MASHUP_PATH = "/mashup/required";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long SETTLE_MILLIS = 30_000;
    private static final long POLL_MILLIS = 20;

    private final RequiredFailureLatency.Settings settings;
    private final String mode;
    private final URI server;
    private final URI metrics;
    private final URI h2cStub;
    private final HttpClient probe = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** The stubs' {@code /stats} fields a pass reads. */
    private record StubStats(long served, long inFlight, long abandoned) {
    }

    /** One answer's figures once it passed the checks; {@code wrong} says why it did not. */
    private record Verdict(String wrong, long elapsedMillis, long accountMillis) {
    }

    /**
     * @param h2cStub the stubs that serve the account calls (HTTP/1.1) and the slow h2c calls, and nothing
     *                else: the slow HTTP/1.1 calls, which a stub cannot see cancelled, go to stubs of their own
     */
    RequiredFailurePass(RequiredFailureLatency.Settings settings, String mode, URI server, URI metrics, URI h2cStub) {
        this.settings = settings;
        this.mode = mode;
        this.server = server;
        this.metrics = metrics;
        this.h2cStub = h2cStub;
    }

    RequiredFailureReport.Pass run(int clients, int requests, boolean warmup) throws Exception {
        StubStats h2cBefore = stubStats(h2cStub.resolve("/stats/reset"), true);
        Prometheus before = scrape();
        Lateness late = new Lateness();
        Lateness inServer = new Lateness();
        LongAccumulator failedMin = new LongAccumulator(Math::min, Long.MAX_VALUE);
        LongAccumulator failedMax = new LongAccumulator(Math::max, 0);
        AtomicInteger tickets = new AtomicInteger(requests);
        AtomicInteger right = new AtomicInteger();
        AtomicReference<String> firstWrong = new AtomicReference<>();
        int timeoutMillis = (int) settings.deadlineMillis() + 30_000;
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            Thread thread = new Thread(() -> {
                try (TimedGet get = new TimedGet(server, timeoutMillis)) {
                    while (tickets.getAndDecrement() > 0) {
                        Verdict verdict;
                        TimedGet.Answer answer = null;
                        try {
                            answer = get.send(MASHUP_PATH);
                            verdict = check(answer);
                        } catch (IOException | RuntimeException e) {
                            // A thread that died here would leave its tickets unsent and the pass short, unsaid.
                            verdict = new Verdict("no usable answer: " + e, 0, 0);
                        }
                        if (verdict.wrong() != null) {
                            firstWrong.compareAndSet(null, verdict.wrong());
                            continue;
                        }
                        right.incrementAndGet();
                        late.record(answer.answeredNanos() - answer.sentNanos()
                                - TimeUnit.MILLISECONDS.toNanos(verdict.accountMillis()));
                        inServer.record(TimeUnit.MILLISECONDS.toNanos(verdict.elapsedMillis() - verdict.accountMillis()));
                        failedMin.accumulate(verdict.accountMillis());
                        failedMax.accumulate(verdict.accountMillis());
                    }
                }
            }, "required-failure-client-" + i);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
        // Each request waits at most timeoutMillis, so this bounds the pass; it never binds when the server works.
        long joinEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(
                (long) timeoutMillis * ((requests + clients - 1) / clients) + 10_000);
        for (Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(joinEnd - System.nanoTime())));
        }
        String unsettled = threads.stream().anyMatch(Thread::isAlive) ? "clients still waiting for answers" : settle();
        Prometheus after = scrape();
        StubStats h2cAfter = stubStats(h2cStub.resolve("/stats"), false);
        RequiredFailureReport.Pass pass = new RequiredFailureReport.Pass(mode, clients, warmup, requests, right.get(),
                firstWrong.get(), late.summary(), inServer.summary(), right.get() == 0 ? 0 : failedMin.get(),
                failedMax.get(), delta(before, after, "slow_h1", "cancelled"), delta(before, after, "slow_h2c", "cancelled"),
                delta(before, after, "account", "http_error"), h2cAfter.abandoned() - h2cBefore.abandoned(),
                h2cAfter.served() - h2cBefore.served() - requests - (h2cAfter.abandoned() - h2cBefore.abandoned()),
                h2cAfter.inFlight(), (long) series(after, "mashup_outbound_connections", "partner=\"slow_h1\""), unsettled);
        System.out.printf(Locale.ROOT, "%s, %d client(s)%s: %,d of %,d right; late %s%n", mode, clients,
                warmup ? ", warm-up" : "", pass.right(), requests, pass.late().line());
        return pass;
    }

    /** Why an answer is not the 502 the failure must give, or its two elapsed times. */
    private static Verdict check(TimedGet.Answer answer) {
        String body = new String(answer.body(), StandardCharsets.UTF_8);
        if (answer.status() != 502) {
            return new Verdict("status " + answer.status() + ": " + body, 0, 0);
        }
        if (!"false".equals(answer.header("Mashup-Complete"))) {
            return new Verdict("Mashup-Complete: " + answer.header("Mashup-Complete") + ": " + body, 0, 0);
        }
        JsonNode json;
        try {
            json = JSON.readTree(answer.body());
        } catch (IOException e) {
            return new Verdict("not JSON: " + body, 0, 0);
        }
        boolean right = json.path("failedRequired").asText().equals("account")
                && json.at("/parts/account/error").asText().equals("http_error")
                && json.at("/parts/account/status").asInt() == 503
                && json.at("/parts/slow_h1/error").asText().equals("cancelled")
                && json.at("/parts/slow_h2c/error").asText().equals("cancelled")
                && json.path("elapsedMillis").canConvertToLong()
                && json.at("/parts/account/elapsedMillis").canConvertToLong();
        return right ? new Verdict(null, json.path("elapsedMillis").asLong(), json.at("/parts/account/elapsedMillis")
                .asLong()) : new Verdict("not the account's failure with both slow calls cancelled: " + body, 0, 0);
    }

    /**
     * Waits, bounded, until no call is in flight in the server, no connection to the slow HTTP/1.1
     * partner is open and the h2c stub holds nothing; null once so, else what was left. The server's
     * answer goes out as the cancels go out: the stub sees a reset a moment after the client sees the 502.
     */
    private String settle() throws Exception {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETTLE_MILLIS);
        while (true) {
            Prometheus m = scrape();
            double calls = series(m, "mashup_outbound_inflight");
            double open = series(m, "mashup_outbound_connections", "partner=\"slow_h1\"");
            long held = stubStats(h2cStub.resolve("/stats"), false).inFlight();
            if (calls == 0 && open == 0 && held == 0) {
                return null;
            }
            if (System.nanoTime() > end) {
                return String.format(Locale.ROOT, "%d s after the last answer still %.0f calls in flight in the server, "
                        + "%.0f connections open to the slow HTTP/1.1 partner, %d calls held by the h2c stub",
                        SETTLE_MILLIS / 1_000, calls, open, held);
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    private Prometheus scrape() throws Exception {
        HttpResponse<String> response = probe.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (response.statusCode() != 200) {
            throw new IOException("GET " + metrics + ": status " + response.statusCode());
        }
        return Prometheus.parse(System.currentTimeMillis(), response.body());
    }

    /** The stubs' counts from {@code GET /stats}, or from {@code POST /stats/reset} (which answers them, reset). */
    private StubStats stubStats(URI uri, boolean post) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30));
        HttpResponse<String> response = probe.send(post ? request.POST(HttpRequest.BodyPublishers.noBody()).build()
                : request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (response.statusCode() != 200) {
            throw new IOException((post ? "POST " : "GET ") + uri + ": status " + response.statusCode());
        }
        JsonNode stats = JSON.readTree(response.body());
        return new StubStats(stats.path("served").asLong(), stats.path("inFlight").asLong(),
                stats.path("abandoned").asLong());
    }

    /** The growth of {@code mashup_partner_calls_total} for one partner and outcome over the pass. */
    private static long delta(Prometheus before, Prometheus after, String partner, String outcome) {
        String[] labels = {"partner=\"" + partner + "\"", "outcome=\"" + outcome + "\""};
        return Math.round(series(after, "mashup_partner_calls_total", labels)
                - series(before, "mashup_partner_calls_total", labels));
    }

    /** The sum of the series of metric {@code name} whose labels contain every one of {@code labels}. */
    static double series(Prometheus p, String name, String... labels) {
        double sum = 0;
        for (Map.Entry<String, Double> e : p.series().entrySet()) {
            String key = e.getKey();
            if ((key.equals(name) || key.startsWith(name + "{"))
                    && Arrays.stream(labels).allMatch(key::contains)) {
                sum += e.getValue();
            }
        }
        return sum;
    }
}
