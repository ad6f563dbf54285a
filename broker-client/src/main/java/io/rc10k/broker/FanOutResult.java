package io.rc10k.broker;

import java.util.List;

/**
 * What a {@link FanOut} ended with: one outcome per call, in the order the calls were added.
 *
 * @param outcomes      one per call, in call order
 * @param elapsedNanos  from start until the last exchange ended or the deadline fired
 * @param deadlineHit   true when the deadline fired before every exchange had ended
 * @param failedRequired the index of the required call whose failure ended the fan-out early (the
 *                       first to fail), or -1 when no required call failed
 */
public record FanOutResult(List<Outcome> outcomes, long elapsedNanos, boolean deadlineHit, int failedRequired) {

    public FanOutResult(List<Outcome> outcomes, long elapsedNanos, boolean deadlineHit) {
        this(outcomes, elapsedNanos, deadlineHit, -1);
    }

    public long elapsedMillis() {
        return elapsedNanos / 1_000_000;
    }

    public long count(Outcome.Kind kind) {
        return outcomes.stream().filter(o -> o.kind() == kind).count();
    }
}
