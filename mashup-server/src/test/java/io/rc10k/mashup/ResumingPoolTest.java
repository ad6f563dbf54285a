package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.broker.Partner;
import io.rc10k.mashup.internal.modes.ResumingPool;
import io.rc10k.stubs.PartnerStubs;
import java.time.Duration;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.Test;

/**
 * Async mode resumes an inbound connection on the broker loop that completed its answer instead of
 * waking a pool thread to read what the client sends next.
 */
class ResumingPoolTest {
    private static final int SEQUENTIAL = 30;

    private static Definitions definitions(PartnerStubs stubs) throws DefinitionException {
        return Definitions.builder()
                .partner(Partner.builder("stub", stubs.uri().toString()).build())
                // The partners answer after the servlet has suspended the request, so the answer completes on a loop.
                .mashup(MashupDefinition.builder("later").deadline(Duration.ofSeconds(10))
                        .call("a", "stub", "/stub?id=a&delay=20")
                        .call("b", "stub", "/stub?id=b&delay=20")
                        .build())
                .build();
    }

    @Test
    void answersCompletedOnABrokerLoopResumeTheirConnectionThereInsteadOfWakingAThread() throws Exception {
        try (PartnerStubs stubs = PartnerStubs.start();
                TestServer server = TestServer.start(Mode.ASYNC, definitions(stubs))) {
            ResumingPool pool = server.server.getBean(ResumingPool.class);
            assertNotNull(pool, "async mode's pool: " + server.server.getThreadPool());
            long before = pool.resumedInline();
            // One after another, on the client's one kept-alive connection.
            for (int i = 0; i < SEQUENTIAL; i++) {
                ContentResponse response = server.get("/mashup/later");
                assertEquals(200, response.getStatus(), response.getContentAsString());
                assertEquals("true", response.getHeaders().get("Mashup-Complete"));
            }
            long resumed = pool.resumedInline() - before;
            // Each answer completes on the loop that read its last part, 20 ms after its request was suspended;
            // only a thread stalled for that long would complete one elsewhere.
            assertTrue(resumed >= SEQUENTIAL / 2, resumed + " of " + SEQUENTIAL + " connections resumed on a loop");
        }
    }
}
