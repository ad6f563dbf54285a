package io.rc10k.broker.internal;

import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One exchange's admission by its partner: the circuit breaker's permit, then a place among the partner's
 * exchanges in flight ({@link PartnerState#tryAdmit()}), kept in the stop list while held and given back
 * exactly once, whichever of the exchange's ends comes first; and the outcome recorded with the permit.
 *
 * <pre>{@code
 * Outcome refused = admission.admit();     // null: admitted
 * ...
 * admission.release();                     // as the exchange ends; again, nothing
 * admission.record(kind, status);
 * }</pre>
 *
 * <p>Threading: {@link #admit} on the thread that starts the exchange, before any attempt; {@link #release}
 * from any thread; {@link #record} once per end.</p>
 */
final class Admission {
    private static final AtomicIntegerFieldUpdater<Admission> RELEASED =
            AtomicIntegerFieldUpdater.newUpdater(Admission.class, "released");

    private final PartnerState state;
    private final RealExchange exchange;
    private final RealExchange.StopList stopList;
    /** What the partner's circuit breaker gave the call: the probe's permit tells its outcome is the verdict. */
    private long breakerPermit = CircuitBreaker.ALLOWED;
    /** 1 once the place went back. */
    private volatile int released;

    Admission(PartnerState state, RealExchange exchange, RealExchange.StopList stopList) {
        this.state = state;
        this.exchange = exchange;
        this.stopList = stopList;
    }

    /** Null when admitted (the exchange is then on the stop list); else its end: CIRCUIT_OPEN or REJECTED. */
    Outcome admit() {
        Partner partner = state.partner();
        breakerPermit = state.breakerPermit();
        if (breakerPermit == CircuitBreaker.REFUSED) {
            return Outcome.failure(partner.name(), Outcome.Kind.CIRCUIT_OPEN, 0, new RejectedExecutionException(
                    "partner " + partner.name() + ": circuit breaker open after repeated failures"), 0, 0);
        }
        if (!state.tryAdmit()) {
            return Outcome.failure(partner.name(), Outcome.Kind.REJECTED, 0, new RejectedExecutionException(
                    "partner " + partner.name() + " is full: " + partner.capacity() + " exchanges in flight "
                            + "(maxConnections and maxQueued)"), 0, 0);
        }
        stopList.begun(exchange);
        return null;
    }

    /** Gives the place back once, whichever end comes first. */
    void release() {
        if (RELEASED.compareAndSet(this, 0, 1)) {
            state.release();
            stopList.ended(exchange);
        }
    }

    /** Counts the exchange's outcome for the partner, and tells its breaker (a probe's decides). */
    void record(Outcome.Kind kind, int status) {
        state.record(kind, status, breakerPermit);
    }
}
