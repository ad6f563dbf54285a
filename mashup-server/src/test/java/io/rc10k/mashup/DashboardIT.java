package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.PartnerStubs;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The live view in a real browser: Debian's Chromium, headless, driven through its own chromedriver
 * (never a downloaded one), loads {@code /dashboard} from the standalone jar's admin port while the jar
 * holds a known load over partner stubs on loopback; what the page shows must be what {@code /metrics}
 * says at the same moment. Skipped, saying why, only where {@code /usr/bin/chromium} or
 * {@code /usr/bin/chromedriver} is missing ({@code .ci/run} installs both where it can).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DashboardIT {
    private static final Path CHROMIUM = Path.of(System.getProperty("rc10k.chromium", "/usr/bin/chromium"));
    private static final Path CHROMEDRIVER = Path.of(System.getProperty("rc10k.chromedriver",
            "/usr/bin/chromedriver"));
    private static final List<String> PARTNERS = List.of("alpha", "beta", "gamma");
    /** Mashups held in flight at once; each holds one call to each partner. */
    private static final int HELD = 32;
    private static final int CALLS = PARTNERS.size();
    /**
     * Threads may come and go between two reads a moment apart: the pool grows and shrinks, and each read
     * busies a thread of its own while it runs. A thread count on the page must lie within this many of
     * the scrapes taken just before and just after it.
     */
    private static final int THREAD_SLACK = 3;
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** Held here, as java.util.logging keeps loggers weakly: the level set below must last the run. */
    private static final Logger SELENIUM = Logger.getLogger("org.openqa.selenium");

    private PartnerStubs stubs;
    private JarProcess jar;
    private URI page;
    private HttpClient client;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        List<Path> missing = Stream.of(CHROMIUM, CHROMEDRIVER).filter(p -> !Files.isExecutable(p)).toList();
        Assumptions.assumeTrue(missing.isEmpty(), "no headless browser here: " + missing + " missing (Debian's "
                + "chromium and chromium-driver; .ci/run installs them where it may use apt-get)");
        // Selenium warns at every start that it has no DevTools (CDP) bindings for this Chromium; the test
        // drives the browser through WebDriver alone, which needs none.
        SELENIUM.setLevel(Level.SEVERE);
        stubs = PartnerStubs.start();
        Path config = dir.resolve("dashboard.json");
        String partner = """
                {"baseUri": "%s", "maxConnections": 256, "callTimeoutMillis": 400000,
                 "circuitBreaker": {"enabled": false}}""".formatted(stubs.uri());
        // quick: three calls of a few milliseconds; held: three calls that outlast the test, so that the
        // in-flight counts stay put while the page and /metrics are compared.
        Files.writeString(config, """
                {"partners": {"alpha": %1$s, "beta": %1$s, "gamma": %1$s},
                 "mashups": {
                   "quick": {"deadlineMillis": 10000, "parameters": {"id": {"required": true}}, "calls": [
                     {"partner": "alpha", "template": "/stub?delay=5&id={id}"},
                     {"partner": "beta", "template": "/stub?delay=10&id={id}"},
                     {"partner": "gamma", "template": "/stub?delay=20&id={id}"}]},
                   "held": {"deadlineMillis": 400000, "calls": [
                     {"partner": "alpha", "template": "/stub?delay=300000"},
                     {"partner": "beta", "template": "/stub?delay=300000"},
                     {"partner": "gamma", "template": "/stub?delay=300000"}]}}}
                """.formatted(partner));
        jar = JarProcess.start("--config", config.toString(), "--port", "0", "--max-threads", "64");
        page = jar.liveView.get(30, TimeUnit.SECONDS);
        QueuedThreadPool pool = new QueuedThreadPool(16, 4);
        pool.setName("test-client");
        client = new HttpClient();
        client.setExecutor(pool);
        client.setMaxConnectionsPerDestination(1_000);
        client.start();
    }

    @AfterAll
    void stop() throws Exception {
        // Aborts the held mashups; the jar goes without waiting for them.
        if (client != null) {
            client.stop();
        }
        if (jar != null) {
            jar.close();
        }
        if (stubs != null) {
            stubs.close();
        }
    }

    @Test
    void underAHeldLoadThePageShowsExactlyTheInFlightCountsOutcomesAndPartnerTimesThatMetricsShows(
            @TempDir Path profile) throws Exception {
        WebDriver browser = browser(profile);
        try {
            browser.get(page.toString());
            awaitUpdates(browser, 1);

            // Outcomes other than complete, then a stream of quick mashups until the page shows them going by.
            for (int i = 0; i < 2; i++) {
                assertEquals(400, get("/mashup/quick").getStatus());
            }
            assertEquals(404, get("/mashup/none").getStatus());
            AtomicBoolean enough = new AtomicBoolean();
            ExecutorService lanes = Executors.newFixedThreadPool(4);
            List<Future<String>> stream = new ArrayList<>();
            for (int lane = 0; lane < 4; lane++) {
                int id = lane;
                stream.add(lanes.submit(() -> quickMashups(id, enough)));
            }
            try {
                new WebDriverWait(browser, WAIT, Duration.ofMillis(50))
                        .withMessage(() -> "the page never showed completed mashups per second and each partner's "
                                + "latency while quick mashups went by: " + read(browser))
                        .until(b -> {
                            Map<String, String> shown = read(b);
                            return !shown.getOrDefault("rate-complete", "").isEmpty()
                                    && number(shown, "rate-complete") > 0 && PARTNERS.stream()
                                    .allMatch(p -> !shown.getOrDefault("partner-" + p + "-mean-ms", "").isEmpty());
                        });
            } finally {
                enough.set(true);
                lanes.shutdown();
            }
            for (Future<String> lane : stream) {
                assertEquals("", lane.get(60, TimeUnit.SECONDS), "every quick mashup answered 200");
            }

            // The held load: HELD mashups of CALLS calls each, in flight until the end of the test.
            List<CompletableFuture<ContentResponse>> held = new ArrayList<>();
            for (int i = 0; i < HELD; i++) {
                held.add(new CompletableResponseListener(client.newRequest(jar.uri.resolve("/mashup/held"))
                        .timeout(600, TimeUnit.SECONDS)).send());
            }
            await(() -> {
                PrometheusText now = scrape();
                return now.value("mashup_inbound_inflight") == HELD
                        && now.value("mashup_outbound_inflight") == HELD * CALLS;
            }, () -> "the server never held " + HELD + " mashups and " + HELD * CALLS + " calls: " + scrape().text);
            // Two answers after the load settled: the page's rates then span a second in which nothing ended.
            awaitUpdates(browser, updates(browser) + 2);

            PrometheusText before = scrape();
            // Two answers on: the second was asked for after this scrape (the page asks again only once it has shown one).
            awaitUpdates(browser, updates(browser) + 2);
            Map<String, String> shown = read(browser);
            PrometheusText after = scrape();
            String context = "page " + new TreeMap<>(shown) + "\n/metrics before:\n" + before.text
                    + "\n/metrics after:\n" + after.text;
            for (PrometheusText scrape : List.of(before, after)) {
                assertEquals(HELD, scrape.value("mashup_inbound_inflight"), context);
                assertEquals(HELD * CALLS, scrape.value("mashup_outbound_inflight"), context);
            }

            // Fig. 4 and Fig. 5's quantities: exactly N in and C·N out, while nothing completes.
            assertEquals(HELD, number(shown, "inbound-inflight"), context);
            assertEquals(HELD * CALLS, number(shown, "outbound-inflight"), context);
            assertEquals(CALLS, number(shown, "outbound-per-inbound"), context);

            Map<String, Double> outcomes = before.sumBy("mashup_requests_total", "outcome");
            assertEquals(outcomes, after.sumBy("mashup_requests_total", "outcome"), "nothing ended meanwhile");
            assertTrue(outcomes.keySet().containsAll(List.of("bad_request", "complete", "not_found")), context);
            assertEquals(new TreeSet<>(outcomes.keySet()), shown.keySet().stream().filter(id -> id.startsWith("total-"))
                    .map(id -> id.substring("total-".length())).collect(Collectors.toCollection(TreeSet::new)),
                    "a row per outcome counted: " + context);
            for (Map.Entry<String, Double> outcome : outcomes.entrySet()) {
                assertEquals(outcome.getValue(), number(shown, "total-" + outcome.getKey()), outcome.getKey() + ": "
                        + context);
                assertEquals(0.0, number(shown, "rate-" + outcome.getKey()), outcome.getKey() + ": " + context);
            }
            assertEquals(0.0, number(shown, "rate-all"), context);
            assertEquals("", shown.get("request-mean-ms"), "no mashup ended in the last second: " + context);
            within(shown, "request-max-ms", 1_000 * before.max("mashup_request_seconds_max", labels -> true),
                    1_000 * after.max("mashup_request_seconds_max", labels -> true), 0, context);

            for (String p : PARTNERS) {
                String id = "partner-" + p + "-";
                double calls = before.sum("mashup_partner_calls_total", PrometheusText.label("partner", p));
                assertTrue(calls > 0, p + " was called: " + context);
                assertEquals(calls, after.sum("mashup_partner_calls_total", PrometheusText.label("partner", p)));
                assertEquals(calls, number(shown, id + "calls"), p + ": " + context);
                assertEquals(0.0, number(shown, id + "rate"), p + ": " + context);
                assertEquals("", shown.get(id + "mean-ms"), p + ": no call ended in the last second: " + context);
                within(shown, id + "max-ms",
                        1_000 * before.max("mashup_partner_call_seconds_max", PrometheusText.label("partner", p)),
                        1_000 * after.max("mashup_partner_call_seconds_max", PrometheusText.label("partner", p)), 0,
                        p + ": " + context);
                within(shown, id + "connections",
                        before.sum("mashup_outbound_connections", PrometheusText.label("partner", p)),
                        after.sum("mashup_outbound_connections", PrometheusText.label("partner", p)), 0,
                        p + ": " + context);
                assertEquals(0.0, number(shown, id + "circuit"), p + ": " + context);
            }

            within(shown, "threads-live", before.value("jvm_threads_live_threads"),
                    after.value("jvm_threads_live_threads"), THREAD_SLACK, context);
            within(shown, "threads-busy", before.value("jetty_threads_busy"), after.value("jetty_threads_busy"),
                    THREAD_SLACK, context);
            within(shown, "threads-current", before.value("jetty_threads_current"),
                    after.value("jetty_threads_current"), THREAD_SLACK, context);
            within(shown, "threads-peak", before.value("jvm_threads_peak_threads"),
                    after.value("jvm_threads_peak_threads"), 0, context);

            // The chart of inbound requests has a point per answer (2 minutes at most) and ends at its top: HELD.
            String[] points = ((String) ((JavascriptExecutor) browser).executeScript(
                    "return document.querySelector('#chart-inbound polyline').getAttribute('points');")).split(" ");
            assertEquals(Math.min(updates(browser), 120), points.length, "one point per answer shown");
            assertEquals("2.00", points[points.length - 1].split(",")[1], "the last point is the highest");
            for (CompletableFuture<ContentResponse> request : held) {
                assertFalse(request.isDone(), "held mashups are still in flight");
            }
        } finally {
            browser.quit();
        }
    }

    @Test
    void thePageAsksNothingOfAnyOtherServerAndRunsUnderAPolicyThatForbidsIt(@TempDir Path profile)
            throws Exception {
        ContentResponse response = client.newRequest(page).timeout(30, TimeUnit.SECONDS).send();
        assertEquals(200, response.getStatus());
        String policy = response.getHeaders().get("Content-Security-Policy");
        assertTrue(policy != null && policy.startsWith("default-src 'none'; ") && policy.contains("connect-src 'self'")
                && !policy.contains("unsafe"), "Content-Security-Policy: " + policy);
        WebDriver browser = browser(profile);
        try {
            browser.get(page.toString());
            awaitUpdates(browser, 3);
            JavascriptExecutor js = (JavascriptExecutor) browser;
            @SuppressWarnings("unchecked")
            List<String> fetched = (List<String>) js.executeScript("return performance.getEntriesByType('navigation')"
                    + ".concat(performance.getEntriesByType('resource')).map(function (e) { return e.name; });");
            String origin = page.resolve("/").toString();
            assertTrue(fetched.size() >= 4, "the page and at least three answers: " + fetched);
            for (String url : fetched) {
                assertTrue(url.startsWith(origin + "dashboard"), "the page fetched " + url + ", outside "
                        + origin + "dashboard*: " + fetched);
            }
            // The inline style and script ran: their hashes are in the policy, nothing else would be.
            assertEquals("32px", js.executeScript("return getComputedStyle(document.getElementById('inbound-inflight')"
                    + ".parentElement).fontSize;"), "the page's own style applies");
            List<LogEntry> severe = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                    .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue()).toList();
            assertEquals(List.of(), severe, "no errors in the browser's console (a policy violation would be one)");
        } finally {
            browser.quit();
        }
    }

    /** Quick mashups one after another until {@code enough}, at most 2,500; what went wrong, or "". */
    private String quickMashups(int lane, AtomicBoolean enough) throws Exception {
        for (int i = 0; i < 2_500 && !enough.get(); i++) {
            ContentResponse response = get("/mashup/quick?id=" + lane + "-" + i);
            if (response.getStatus() != 200) {
                return "lane " + lane + ", request " + i + ": " + response.getStatus() + " "
                        + response.getContentAsString();
            }
        }
        return "";
    }

    private ContentResponse get(String pathAndQuery) throws Exception {
        return client.newRequest(jar.uri.resolve(pathAndQuery)).timeout(30, TimeUnit.SECONDS).send();
    }

    private PrometheusText scrape() throws Exception {
        ContentResponse metrics = client.newRequest(page.resolve("/metrics")).timeout(30, TimeUnit.SECONDS).send();
        assertEquals(200, metrics.getStatus());
        return new PrometheusText(metrics.getContentAsString());
    }

    private static WebDriver browser(Path profile) {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        // Without the background-networking flags Chromium calls home, which this closed network refuses.
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + profile, "--window-size=1280,1024");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability(ChromeOptions.LOGGING_PREFS, logs);
        // The driver named outright: Selenium Manager, which would look for one on the network, never runs.
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().withSilent(true).build();
        return new ChromeDriver(service, options);
    }

    /**
     * Every number the page shows, by element id: its exact value ({@code data-value}, "" for a dash),
     * read in one script, so between two of the page's updates; {@code updates} is the page's own count.
     */
    @SuppressWarnings("unchecked")
    private static Map<String, String> read(WebDriver browser) {
        return (Map<String, String>) ((JavascriptExecutor) browser).executeScript("""
                var shown = {updates: document.getElementById('dashboard').dataset.updates,
                             error: document.getElementById('dashboard').dataset.error || ''};
                document.querySelectorAll('[data-value]').forEach(function (e) { shown[e.id] = e.dataset.value; });
                return shown;""");
    }

    private static int updates(WebDriver browser) {
        return Integer.parseInt(read(browser).get("updates"));
    }

    private static void awaitUpdates(WebDriver browser, int atLeast) {
        new WebDriverWait(browser, WAIT, Duration.ofMillis(50))
                .withMessage(() -> "the page did not reach update " + atLeast + ": " + read(browser))
                .until(b -> updates(b) >= atLeast);
    }

    private static double number(Map<String, String> shown, String id) {
        String value = shown.get(id);
        if (value == null || value.isEmpty()) {
            throw new AssertionError("the page shows no number at #" + id + ": " + new TreeMap<>(shown));
        }
        return Double.parseDouble(value);
    }

    /** The page's number lies between two scrapes, give or take {@code slack}. */
    private static void within(Map<String, String> shown, String id, double before, double after, double slack,
            String context) {
        double value = number(shown, id);
        double low = Math.min(before, after) - slack;
        double high = Math.max(before, after) + slack;
        double rounding = 1e-9 * Math.max(1, Math.abs(high)); // the page multiplies seconds by 1,000
        assertTrue(value >= low - rounding && value <= high + rounding, "#" + id + " shows " + value + ", /metrics "
                + before + " before and " + after + " after (slack " + slack + "): " + context);
    }

    /** Polls a condition every 50 ms for at most {@link #WAIT}; fails with {@code message} after that. */
    private static void await(ThrowingCondition condition, ThrowingMessage message) throws Exception {
        long end = System.nanoTime() + WAIT.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > end) {
                throw new AssertionError(message.get());
            }
            Thread.sleep(50);
        }
    }

    private interface ThrowingCondition {
        boolean holds() throws Exception;
    }

    private interface ThrowingMessage {
        String get() throws Exception;
    }
}
