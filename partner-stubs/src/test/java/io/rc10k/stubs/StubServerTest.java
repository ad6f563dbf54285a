package io.rc10k.stubs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.client.transport.HttpClientTransportOverHTTP2;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The stub endpoints as an HTTP/1.1 client sees them, over loopback. */
class StubServerTest {
    /**
     * The stall tests need a client that gives up while the stub still stalls, and a client that
     * waits until the cap: a 1 s timeout and a 15 s read bound keep a busy machine well clear of a 3 s cap.
     */
    private static final long STALL_CAP_MILLIS = 3_000;
    private static final long GIVE_UP_MILLIS = 1_000;
    private static final int PAST_THE_CAP_MILLIS = 15_000;

    @RegisterExtension
    static final PartnerStubsExtension stubs = new PartnerStubsExtension(
            StubOptions.builder().maxStallMillis(STALL_CAP_MILLIS).build());

    private static final ObjectMapper JSON = new ObjectMapper();
    private static HttpClient client;

    @BeforeAll
    static void startClient() throws Exception {
        client = new HttpClient();
        client.setMaxConnectionsPerDestination(2_000);
        client.start();
    }

    @AfterAll
    static void stopClient() throws Exception {
        client.stop();
    }

    private static ContentResponse get(String pathAndQuery) throws Exception {
        return client.newRequest(stubs.uri().resolve(pathAndQuery)).timeout(10, TimeUnit.SECONDS).send();
    }

    private static JsonNode json(ContentResponse response) throws JsonProcessingException {
        assertEquals("application/json", response.getHeaders().get(HttpHeader.CONTENT_TYPE));
        return JSON.readTree(response.getContentAsString());
    }

    @Test
    void plainStubAnswersAtOnceWithSmallJson() throws Exception {
        ContentResponse response = get("/stub?id=first");
        assertEquals(200, response.getStatus());
        JsonNode body = json(response);
        assertEquals("ok", body.get("stub").asText());
        assertEquals(stubs.port(), body.get("port").asInt());
        assertEquals(0, body.get("delayMillis").asLong());
        assertEquals("first", body.get("id").asText());
    }

    @Test
    void delayedStubAnswersNoSoonerThanItsDelay() throws Exception {
        long start = System.nanoTime();
        ContentResponse response = get("/stub?delay=300");
        long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
        assertEquals(200, response.getStatus());
        assertEquals(300, json(response).get("delayMillis").asLong());
        assertTrue(elapsedMillis >= 300, "answered after " + elapsedMillis + " ms, before its 300 ms delay");
    }

    @Test
    void firstDelayHoldsOnlyTheFirstRequestOfEachId() throws Exception {
        // The body says which delay each request got: the first of an id its firstDelay, later ones delay.
        assertEquals(150, json(get("/stub?id=hedge-1&firstDelay=150&delay=5")).get("delayMillis").asLong());
        assertEquals(5, json(get("/stub?id=hedge-1&firstDelay=150&delay=5")).get("delayMillis").asLong());
        assertEquals(150, json(get("/stub?id=hedge-2&firstDelay=150&delay=5")).get("delayMillis").asLong());
        assertEquals("max-age=30, no-store", get("/stub?cacheControl=max-age%3D30,%20no-store").getHeaders()
                .get(HttpHeader.CACHE_CONTROL));
        assertEquals(400, get("/stub?cacheControl=%0d%0aX:1").getStatus());
        ContentResponse refused = get("/stub?firstDelay=100");
        assertEquals(400, refused.getStatus());
        assertTrue(refused.getContentAsString().contains("only with an id"), refused.getContentAsString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"uniform", "exponential", "lognormal"})
    void seededDistributionGivesTheSameDelayForTheSameSeed(String dist) throws Exception {
        long first = json(get("/stub?delay=50&dist=" + dist + "&seed=7")).get("delayMillis").asLong();
        long again = json(get("/stub?delay=50&dist=" + dist + "&seed=7")).get("delayMillis").asLong();
        assertEquals(first, again);
        List<Long> draws = new ArrayList<>();
        for (int seed = 0; seed < 10; seed++) {
            draws.add(json(get("/stub?delay=50&dist=" + dist + "&seed=" + seed)).get("delayMillis").asLong());
        }
        assertTrue(draws.stream().distinct().count() > 1, dist + " gave one delay for ten seeds: " + draws);
    }

    @Test
    void lognormalAcceptsItsShape() throws Exception {
        ContentResponse response = get("/stub?delay=20&dist=lognormal&sigma=1.5&seed=3");
        assertEquals(200, response.getStatus());
    }

    @ParameterizedTest
    @ValueSource(longs = {2, 3, 7, 8, 20, 100, 1_000, 70_000, 1_048_576})
    void bytesGivesValidJsonOfExactlyThatSize(long bytes) throws Exception {
        ContentResponse response = get("/stub?bytes=" + bytes);
        assertEquals(200, response.getStatus());
        assertEquals(bytes, response.getContent().length);
        assertEquals(bytes, response.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH));
        assertTrue(json(response).isObject());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/stub?bytes=3000&chunked=true", "/stub?chunked=true", "/weather?city=Rome&chunked=true"})
    void chunkedSendsTheBodyWithoutContentLength(String pathAndQuery) throws Exception {
        ContentResponse response = get(pathAndQuery);
        assertEquals(200, response.getStatus());
        assertNull(response.getHeaders().get(HttpHeader.CONTENT_LENGTH), response.getHeaders().toString());
        assertEquals("chunked", response.getHeaders().get(HttpHeader.TRANSFER_ENCODING));
        assertTrue(json(response).isObject());
    }

    @Test
    void aDripIsBoundedByTheBodyItReallySends() throws Exception {
        // 256 control characters are escaped to 6 bytes each: a ~1.6 KB body, 1 byte a second, is ~26 minutes.
        String longId = "%01".repeat(256);
        ContentResponse response = get("/stub?fault=drip&dripBytes=1&dripMillis=1000&id=" + longId);
        assertEquals(400, response.getStatus());
        assertEquals("dripMillis", json(response).get("parameter").asText());
        ContentResponse tooMany = get("/stub?fault=drip&bytes=67108864&dripBytes=1&dripMillis=0");
        assertEquals(400, tooMany.getStatus());
        assertEquals("dripBytes", json(tooMany).get("parameter").asText());
    }

    @Test
    void aClientThatGivesUpOverHttp2EndsTheRequestAtOnce() throws Exception {
        HttpClient h2 = new HttpClient(
                new HttpClientTransportOverHTTP2(
                        new HTTP2Client()));
        h2.start();
        try (PartnerStubs own = PartnerStubs.start(StubOptions.builder().h2c(true).build())) {
            assertThrows(TimeoutException.class, () -> h2.newRequest(
                    own.uri().resolve("/stub?delay=30000")).timeout(300, TimeUnit.MILLISECONDS).send());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (own.stats().inFlight() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(0, own.stats().inFlight(), "the reset stream still counts as in flight");
        } finally {
            h2.stop();
        }
    }

    @Test
    void resetContentHasNoBody() throws Exception {
        ContentResponse response = get("/stub?status=205");
        assertEquals(205, response.getStatus());
        assertEquals(0, response.getContent().length);
    }

    @ParameterizedTest
    @ValueSource(ints = {200, 201, 404, 429, 500, 502, 503, 599})
    void statusIsAnsweredWithAJsonBody(int status) throws Exception {
        ContentResponse response = get("/stub?status=" + status);
        assertEquals(status, response.getStatus());
        assertEquals("ok", json(response).get("stub").asText());
    }

    @Test
    void noContentStatusHasNoBody() throws Exception {
        ContentResponse response = get("/stub?status=204");
        assertEquals(204, response.getStatus());
        assertEquals(0, response.getContent().length);
    }

    @Test
    void namedPartnersAnswerTheSameJsonForTheSameCity() throws Exception {
        for (String partner : List.of("/weather", "/hotels", "/flights")) {
            ContentResponse paris = get(partner + "?city=Paris");
            assertEquals(200, paris.getStatus(), partner);
            JsonNode body = json(paris);
            assertTrue(body.toString().contains("Paris"), partner + " " + body);
            assertEquals(paris.getContentAsString(), get(partner + "?city=Paris").getContentAsString());
            assertNotEquals(paris.getContentAsString(), get(partner + "?city=Saskatoon").getContentAsString());
        }
    }

    @Test
    void namedPartnersTakeTheLatencyControls() throws Exception {
        long start = System.nanoTime();
        ContentResponse response = get("/hotels?city=Oslo&delay=200&status=503");
        assertTrue((System.nanoTime() - start) / 1_000_000 >= 200);
        assertEquals(503, response.getStatus());
        assertEquals("Oslo", json(response).get("city").asText());
    }

    @ParameterizedTest(name = "{0} -> 400 naming {1}")
    @CsvSource(delimiter = '|', value = {
        "/stub?delay=-1|delay",
        "/stub?delay=soon|delay",
        "/stub?delay=600001|delay",
        "/stub?dist=gaussian|dist",
        "/stub?delay=10&sigma=1|sigma",
        "/stub?dist=lognormal&sigma=0|sigma",
        "/stub?seed=x|seed",
        "/stub?bytes=1|bytes",
        "/stub?bytes=67108865|bytes",
        "/stub?status=99|status",
        "/stub?status=600|status",
        "/stub?fault=explode|fault",
        "/stub?dripBytes=4|dripBytes",
        "/stub?fault=drip&dripMillis=20000|dripMillis",
        "/stub?fault=drip&bytes=1000000&dripBytes=1&dripMillis=10|dripMillis",
        "/stub?colour=red|colour",
        "/stub?chunked=yes|chunked",
        "/stub?close=yes|close",
        "/stub?delay=1&delay=2|delay",
        "/weather|city",
        "/weather?city=|city",
        "/weather?city=%3Cscript%3E|city",
        "/hotels?city=Paris&bytes=10|bytes",
    })
    void badParameterGets400NamingIt(String pathAndQuery, String parameter) throws Exception {
        ContentResponse response = get(pathAndQuery);
        assertEquals(400, response.getStatus(), response.getContentAsString());
        JsonNode body = json(response);
        assertEquals("bad parameter", body.get("error").asText());
        assertEquals(parameter, body.get("parameter").asText());
        assertFalse(body.get("accepted").asText().isBlank());
    }

    @Test
    void badPercentEncodingGets400NamingTheQuery() throws Exception {
        RawHttp.Result raw = RawHttp.get(stubs.uri(), "/stub?%zz=1", 5_000);
        assertTrue(raw.head().startsWith("HTTP/1.1 400"), raw.head());
        assertEquals("query", JSON.readTree(raw.body()).get("parameter").asText());
    }

    @Test
    void echoReturnsTheRequestAsReceived() throws Exception {
        ContentResponse response = client.newRequest(stubs.uri().resolve("/echo?a=1%202"))
                .headers(h -> h.put("X-Trace", "abc").put("Cookie", "k=v")).send();
        JsonNode body = json(response);
        assertEquals("GET", body.get("method").asText());
        assertEquals("/echo", body.get("path").asText());
        assertEquals("a=1%202", body.get("query").asText());
        assertEquals("abc", body.at("/headers/x-trace").asText());
        assertEquals("k=v", body.at("/headers/cookie").asText());
    }

    @Test
    void unknownPathGets404ListingThePaths() throws Exception {
        ContentResponse response = get("/nowhere");
        assertEquals(404, response.getStatus());
        assertTrue(json(response).get("paths").toString().contains("/stub"));
    }

    @Test
    void resetFaultAbortsTheConnectionWithRst() throws Exception {
        RawHttp.Result raw = RawHttp.get(stubs.uri(), "/stub?fault=reset", 5_000);
        assertEquals(RawHttp.End.RESET, raw.end());
        assertEquals("", raw.text());
        ExecutionException e = assertThrows(ExecutionException.class, () -> get("/stub?fault=reset"));
        assertTrue(e.getCause() instanceof IOException, e.getCause().toString());
    }

    @Test
    void closeMidBodySendsHeadersAndHalfTheBodyThenCloses() throws Exception {
        RawHttp.Result raw = RawHttp.get(stubs.uri(), "/stub?fault=close-mid-body&bytes=1000", 5_000);
        assertEquals(RawHttp.End.EOF, raw.end());
        assertTrue(raw.head().startsWith("HTTP/1.1 200"), raw.head());
        assertTrue(raw.head().contains("Content-Length: 1000"), raw.head());
        assertEquals(500, raw.body().length());
        assertThrows(ExecutionException.class, () -> get("/stub?fault=close-mid-body&bytes=1000"));
    }

    @Test
    void stallAfterHeadersSendsHeadersOnlyUntilTheStallCap() throws Exception {
        RawHttp.Result raw = RawHttp.get(stubs.uri(), "/stub?fault=stall-after-headers", PAST_THE_CAP_MILLIS);
        assertTrue(raw.head().startsWith("HTTP/1.1 200"), raw.head());
        assertEquals("", raw.body());
        assertEquals(RawHttp.End.EOF, raw.end(), "the stub closes the connection at its stall cap");

        CountDownLatch headers = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Result[] result = new Result[1];
        client.newRequest(stubs.uri().resolve("/stub?fault=stall-after-headers"))
                .timeout(GIVE_UP_MILLIS, TimeUnit.MILLISECONDS)
                .onResponseHeaders(r -> headers.countDown())
                .send(r -> {
                    result[0] = r;
                    done.countDown();
                });
        assertTrue(headers.await(5, TimeUnit.SECONDS));
        assertTrue(done.await(5, TimeUnit.SECONDS));
        assertTrue(result[0].getFailure() instanceof TimeoutException,
                String.valueOf(result[0].getFailure()));
    }

    @Test
    void stallSendsNothingUntilTheStallCap() throws Exception {
        RawHttp.Result early = RawHttp.get(stubs.uri(), "/stub?fault=stall", (int) GIVE_UP_MILLIS);
        assertEquals(RawHttp.End.TIMEOUT, early.end());
        assertEquals("", early.text());
        RawHttp.Result capped = RawHttp.get(stubs.uri(), "/stub?fault=stall", PAST_THE_CAP_MILLIS);
        assertEquals(RawHttp.End.EOF, capped.end());
        assertEquals("", capped.text());
    }

    @Test
    void malformedJsonKeepsTheSizeButDoesNotParse() throws Exception {
        ContentResponse response = get("/stub?fault=malformed-json&bytes=300");
        assertEquals(200, response.getStatus());
        assertEquals(300, response.getContent().length);
        assertEquals("application/json", response.getHeaders().get(HttpHeader.CONTENT_TYPE));
        assertThrows(JsonProcessingException.class, () -> JSON.readTree(response.getContentAsString()));
        ContentResponse small = get("/stub?fault=malformed-json");
        assertThrows(JsonProcessingException.class, () -> JSON.readTree(small.getContentAsString()));
    }

    @Test
    void dripSendsTheWholeBodyInManySmallWrites() throws Exception {
        List<Integer> chunks = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        Result[] result = new Result[1];
        client.newRequest(stubs.uri().resolve("/stub?fault=drip&bytes=64&dripBytes=8&dripMillis=100"))
                .timeout(10, TimeUnit.SECONDS)
                .onResponseContent((r, buffer) -> chunks.add(buffer.remaining()))
                .send(r -> {
                    result[0] = r;
                    done.countDown();
                });
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertTrue(result[0].isSucceeded(), String.valueOf(result[0].getFailure()));
        assertEquals(64, chunks.stream().mapToInt(Integer::intValue).sum());
        // A reader that falls behind may get two drips in one read; many reads, none of the whole body, is the point.
        assertTrue(chunks.size() >= 4, "64 bytes in writes of 8 with 100 ms pauses came in " + chunks);
        assertTrue(chunks.stream().allMatch(n -> n < 64), chunks.toString());
    }

    @Test
    void statsCountRequestsInFlightAndConnections() throws Exception {
        awaitStats(s -> s.inFlight() == 0); // earlier tests' stalls end within their cap
        stubs.resetStats();
        long servedBefore = stubs.stats().served();
        CountDownLatch done = new CountDownLatch(20);
        for (int i = 0; i < 20; i++) {
            client.newRequest(stubs.uri().resolve("/stub?delay=1000")).timeout(10, TimeUnit.SECONDS)
                    .send(r -> done.countDown());
        }
        StubStats during = awaitStats(s -> s.inFlight() >= 20);
        assertTrue(during.connections() >= 20, during.toString());
        assertTrue(done.await(10, TimeUnit.SECONDS));
        StubStats after = awaitStats(s -> s.inFlight() == 0);
        assertEquals(servedBefore + 20, after.served());
        assertTrue(after.inFlightPeak() >= 20, after.toString());

        JsonNode overHttp = json(get("/stats"));
        assertEquals(0, overHttp.get("inFlight").asLong());
        assertTrue(overHttp.get("liveThreads").asInt() > 0);
        assertTrue(overHttp.get("connectionsPeak").asLong() >= 20);
    }

    @Test
    void closeEndsTheConnectionAfterItsAnswerAndOnlyThen() throws Exception {
        // Keep-alive requests (no Connection: close of the client's own): only the stub can end the connection.
        String closed = keepAliveGet("/stub?close=true", 10_000);
        assertTrue(closed.startsWith("HTTP/1.1 200 "), closed);
        assertTrue(closed.toLowerCase(Locale.ROOT).contains("\r\nconnection: close\r\n"), closed);
        assertTrue(closed.contains("\"stub\":\"ok\""), "the whole answer before the end: " + closed);
        assertThrows(SocketTimeoutException.class, () -> keepAliveGet("/stub?close=false", 500),
                "a connection without close=true stays open after its answer");
    }

    /** GETs over a new socket without asking for a close, and reads until the stub ends the connection. */
    private static String keepAliveGet(String pathAndQuery, int timeoutMillis) throws IOException {
        try (Socket socket = new Socket(stubs.uri().getHost(), stubs.port())) {
            socket.setSoTimeout(timeoutMillis);
            socket.getOutputStream().write(("GET " + pathAndQuery + " HTTP/1.1\r\nHost: stub\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    void statsResetIsAPost() throws Exception {
        assertEquals(405, get("/stats/reset").getStatus());
        ContentResponse reset = client.POST(stubs.uri().resolve("/stats/reset")).send();
        assertEquals(200, reset.getStatus());
        assertEquals(0, json(reset).get("served").asLong());
    }

    /** Waits (bounded) for the stats to satisfy {@code condition}, since counters settle after responses. */
    static StubStats awaitStats(Predicate<StubStats> condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        StubStats stats = stubs.stats();
        while (!condition.test(stats) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            stats = stubs.stats();
        }
        assertTrue(condition.test(stats), "stats never settled: " + stats);
        return stats;
    }
}
