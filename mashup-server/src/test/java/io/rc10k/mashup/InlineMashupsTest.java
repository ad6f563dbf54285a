package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.PartnerStubs;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.util.thread.Invocable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Async mode tells Jetty that its mashup GETs do not block, so that Jetty serves them on the thread
 * that read them; what may block (a body to read, a servlet's error page, /metrics) is handed to the
 * pool and still answered.
 */
class InlineMashupsTest {
    @ParameterizedTest
    @EnumSource(Mode.class)
    void onlyAsyncModeServesRequestsWhereTheyWereRead(Mode mode) throws Exception {
        try (PartnerStubs stubs = PartnerStubs.start();
                TestServer server = TestServer.start(mode, TestServer.definitions(stubs))) {
            // Jetty's selectors run a non-blocking server's requests themselves instead of handing them over.
            assertEquals(mode == Mode.ASYNC ? Invocable.InvocationType.NON_BLOCKING
                    : Invocable.InvocationType.BLOCKING, server.server.getInvocationType());
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void requestsThatMayBlockAreStillAnswered(Mode mode) throws Exception {
        try (PartnerStubs stubs = PartnerStubs.start();
                TestServer server = TestServer.start(MashupOptions.defaults().withMode(mode).withAdminPort(-1),
                        TestServer.definitions(stubs))) {
            ContentResponse post = server.client.newRequest(server.uri.resolve("/mashup/echo?q=hi"))
                    .method(HttpMethod.POST).body(new StringRequestContent("x".repeat(100_000)))
                    .timeout(30, TimeUnit.SECONDS).send();
            assertEquals(405, post.getStatus(), post.getContentAsString());

            ContentResponse metrics = server.get("/metrics");
            assertEquals(200, metrics.getStatus(), metrics.getContentAsString());
            assertTrue(metrics.getContentAsString().contains("mashup_"), metrics.getContentAsString());

            ContentResponse mashup = server.get("/mashup/echo?q=hi");
            assertEquals(200, mashup.getStatus(), mashup.getContentAsString());
            assertEquals("true", mashup.getHeaders().get("Mashup-Complete"), mashup.getContentAsString());
        }
    }
}
