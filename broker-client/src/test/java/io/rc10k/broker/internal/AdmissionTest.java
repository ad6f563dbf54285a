package io.rc10k.broker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.broker.CircuitBreakerSettings;
import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Admission}, driven directly on a real {@link PartnerState}: places taken, refused and given back once. */
class AdmissionTest {
    /** One exchange in flight at most; a breaker that opens after two failures in a row, for a minute. */
    private static final Partner PARTNER = Partner.builder("p", "http://p.invalid:1").maxConnections(1).maxQueued(0)
            .circuitBreaker(new CircuitBreakerSettings(true, 2, 1.0, 100, 100, Duration.ofMinutes(1)))
            .build();

    private final PartnerState state = new PartnerState(PARTNER, new BufferBudget(1 << 20));
    private final List<String> stopList = new ArrayList<>();
    private final RealExchange.StopList kept = new RealExchange.StopList() {
        @Override
        public void begun(RealExchange exchange) {
            stopList.add("begun");
        }

        @Override
        public void ended(RealExchange exchange) {
            stopList.add("ended");
        }
    };

    /** An exchange of the partner, never started: what the stop list is told about. */
    private Admission admission() {
        URI uri = URI.create("http://p.invalid:1/");
        RealExchange inert = new RealExchange(null, null, Runnable::run, state, "GET", uri, null, null,
                ExchangeListener.NONE, RealExchange.StopList.NONE, null, null, null, null);
        return new Admission(state, inert, kept);
    }

    @Test
    void aPlaceIsTakenUpToTheCapacityAndGivenBackOnceWhateverEndsComeAfter() {
        Admission first = admission();
        assertNull(first.admit());
        Outcome refused = admission().admit();
        assertEquals(Outcome.Kind.REJECTED, refused.kind());
        assertTrue(refused.failure().getMessage().contains("1 exchanges in flight"), refused.failure().getMessage());
        assertEquals(1, state.inFlight());
        first.release();
        first.release();
        assertEquals(0, state.inFlight(), "given back once, not twice");
        assertEquals(List.of("begun", "ended"), stopList);
        assertNull(admission().admit(), "the place is free again");
    }

    @Test
    void anOpenBreakerRefusesBeforeAnyPlaceIsTakenAndItsFailuresOpenedIt() {
        for (int i = 0; i < 2; i++) {
            Admission failing = admission();
            assertNull(failing.admit());
            failing.release();
            failing.record(Outcome.Kind.TIMEOUT, 0);
        }
        assertEquals("open", state.breakerState());
        Outcome refused = admission().admit();
        assertEquals(Outcome.Kind.CIRCUIT_OPEN, refused.kind());
        assertEquals(0, state.inFlight());
        assertEquals(2L, state.outcomes().get(Outcome.Kind.TIMEOUT));
    }
}
