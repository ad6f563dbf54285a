package io.rc10k.broker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link Attempt} on real sockets: what one attempt reports as its wire tells it, and what it gives back as it
 * ends. Partner stubs on loopback, the broker's HTTP/1.1 wire.
 */
class AttemptTest {
    @RegisterExtension
    static final LoopbackExchanges LOOPBACK = new LoopbackExchanges();

    @Test
    void aWholeAnswerReportsTheAttemptsEventsInOrderAndGivesItsBufferBack() throws Exception {
        EventLog log = new EventLog(null);
        PartnerState state = LOOPBACK.state(LOOPBACK.partner().build());
        Outcome outcome = LOOPBACK.run(state, "stub?bytes=20000", null, log);
        assertEquals(Outcome.Kind.OK, outcome.kind(), outcome.toString());
        assertEquals(20_000, outcome.bodyLength());
        assertEquals(List.of("established", "waiting", "headers 200", "body 20000", "idle", "complete OK"),
                log.heard);
        assertEquals(0, LOOPBACK.buffers().used(), "the body's reservation went back as the attempt ended");
        assertEquals(0, state.inFlight());
    }

    @Test
    void aBodyPastTheBoundAbortsTheAttemptAsTooLargeAndItsBufferGoesBack() throws Exception {
        Partner partner = LOOPBACK.partner().maxResponseBytes(10_000).retries(0).build();
        PartnerState state = LOOPBACK.state(partner);
        Outcome declared = LOOPBACK.run(state, "stub?bytes=50000", null, ExchangeListener.NONE);
        assertEquals(Outcome.Kind.TOO_LARGE, declared.kind(), declared.toString());
        Outcome chunked = LOOPBACK.run(state, "stub?bytes=50000&chunked=true", null, ExchangeListener.NONE);
        assertEquals(Outcome.Kind.TOO_LARGE, chunked.kind(), "no length declared: refused as the bytes come");
        assertTrue(chunked.failure().getMessage().contains("maxResponseBytes 10000"), chunked.failure().getMessage());
        assertEquals(0, LOOPBACK.buffers().used());
        assertEquals(0, state.inFlight());
        assertEquals(2L, state.outcomes().get(Outcome.Kind.TOO_LARGE));
    }
}
