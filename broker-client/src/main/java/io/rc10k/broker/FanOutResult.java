package io.rc10k.broker;

import java.util.List;

/**
 * What a {@link FanOut} ended with: one outcome per call, in the order the calls were added.
 *
 * @param outcomes      one per call, in call order
 * @param elapsedNanos  from start until the last exchange ended or the deadline fired
 * @param deadlineHit   true when the deadline fired before every exchange had ended
 */
public record FanOutResult(List<Outcome> outcomes, long elapsedNanos, boolean deadlineHit) {

    public long elapsedMillis() {
        return elapsedNanos / 1_000_000;
    }

    public long count(Outcome.Kind kind) {
        return outcomes.stream().filter(o -> o.kind() == kind).count();
    }
}
