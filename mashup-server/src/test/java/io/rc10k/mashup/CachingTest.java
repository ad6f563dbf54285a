package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rc10k.broker.Caching;
import io.rc10k.broker.CallOptions;
import io.rc10k.broker.Partner;
import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Cached calls in every mode, against real partner stubs: 100 identical mashup requests at once reach
 * the partner once (the first asks, the others wait for its answer or find it cached), and a partner's
 * {@code Cache-Control: no-store} keeps its answers out of the cache. The stub's own count of requests
 * served is the witness.
 */
class CachingTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int REQUESTS = 100;
    private static PartnerStubs stubs;
    private static Definitions definitions;

    @BeforeAll
    static void start() throws Exception {
        stubs = PartnerStubs.start(StubOptions.builder().build());
        CallOptions cached = CallOptions.NONE.withCaching(new Caching(Duration.ofSeconds(30)));
        definitions = Definitions.builder()
                .partner(Partner.builder("stub", stubs.uri().toString()).build())
                .mashup(MashupDefinition.builder("cached").deadline(Duration.ofSeconds(30))
                        .parameter(ParameterDefinition.required("id"))
                        // 300 ms: long enough that the 100 requests overlap the first call.
                        .call(new CallDefinition("slow", "stub", "/stub?delay=300&id={id}", List.of(), cached))
                        .build())
                .mashup(MashupDefinition.builder("nostore").deadline(Duration.ofSeconds(30))
                        .parameter(ParameterDefinition.required("id"))
                        .call(new CallDefinition("fresh", "stub", "/stub?cacheControl=no-store&id={id}", List.of(),
                                cached))
                        .build())
                .build();
    }

    @AfterAll
    static void stop() {
        stubs.close();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aHundredIdenticalRequestsReachThePartnerOnce(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            Await.idle(stubs);
            long servedBefore = stubs.stats().served();
            List<CompletableFuture<ContentResponse>> answers = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                answers.add(new CompletableResponseListener(server.client.newRequest(
                        server.uri.resolve("/mashup/cached?id=" + mode)).timeout(30, TimeUnit.SECONDS)).send());
            }
            for (CompletableFuture<ContentResponse> answer : answers) {
                ContentResponse response = answer.get(60, TimeUnit.SECONDS);
                assertEquals(200, response.getStatus(), response.getContentAsString());
                JsonNode body = JSON.readTree(response.getContent());
                assertEquals(mode.toString(), body.at("/parts/slow/body/id").asText(), body.toString());
            }
            Await.idle(stubs);
            assertEquals(1, stubs.stats().served() - servedBefore, "partner calls for " + REQUESTS
                    + " identical requests: " + stubs.stats().toJson());
            String metrics = server.client.GET(server.uri.resolve("/metrics")).getContentAsString();
            assertEquals(1, counter(metrics, "miss"), metrics);
            assertEquals(REQUESTS - 1, counter(metrics, "hit") + counter(metrics, "coalesced"), metrics);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void noStoreKeepsAnswersOutOfTheCache(Mode mode) throws Exception {
        try (TestServer server = TestServer.start(mode, definitions)) {
            Await.idle(stubs);
            long servedBefore = stubs.stats().served();
            for (int i = 0; i < 3; i++) {
                ContentResponse response = server.client.newRequest(server.uri.resolve("/mashup/nostore?id=ns-" + mode))
                        .timeout(30, TimeUnit.SECONDS).send();
                assertEquals(200, response.getStatus(), response.getContentAsString());
            }
            Await.idle(stubs);
            assertEquals(3, stubs.stats().served() - servedBefore, stubs.stats().toJson());
        }
    }


    private static long counter(String metrics, String result) {
        Matcher m = Pattern.compile("(?m)^mashup_partner_cache_total\\{partner=\"stub\",result=\"" + result
                + "\"} (\\d+)\\.0$").matcher(metrics);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }
}
