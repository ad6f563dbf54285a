package io.rc10k.benchmarks.capacity;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * How late things came after the events they answer — a fan-out after its deadline, a 502 after the
 * failure of its required part — as percentiles.
 *
 * <pre>{@code
 * Lateness late = new Lateness();
 * late.record(answeredNanos - failedNanos);      // from any thread
 * System.out.println("late: " + late.summary().line());
 * }</pre>
 *
 * Values are kept in microseconds, with three significant digits (HdrHistogram), up to an hour. A
 * negative value — the answer seen before the event, which a measurement that bounds the event from
 * above can produce — is kept as 0 and counted in {@link Summary#early()}, never dropped.
 * Thread-safe: {@link #record} is wait-free (an HdrHistogram {@link Recorder}); {@link #summary} may be
 * called while others record, and sees everything recorded before it.
 */
public final class Lateness {
    private static final long HIGHEST_MICROS = TimeUnit.HOURS.toMicros(1);

    private final Recorder recorder = new Recorder(HIGHEST_MICROS, 3);
    private final Histogram total = new Histogram(HIGHEST_MICROS, 3);
    private final LongAdder early = new LongAdder();

    /**
     * Percentiles in milliseconds (to the microsecond) of {@code count} values.
     *
     * @param early values that were negative, counted as 0
     */
    public record Summary(long count, long early, double minMillis, double p50Millis, double p90Millis,
            double p99Millis, double maxMillis) {

        /** {@code min 0.412 ms, p50 …, p90 …, p99 …, max … (n = 400)}, and the early ones when there were any. */
        public String line() {
            return String.format(Locale.ROOT, "min %.3f ms, p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms "
                    + "(n = %,d%s)", minMillis, p50Millis, p90Millis, p99Millis, maxMillis, count,
                    early == 0 ? "" : String.format(Locale.ROOT, ", %,d early, counted as 0", early));
        }
    }

    public void record(long lateNanos) {
        if (lateNanos < 0) {
            early.increment();
            lateNanos = 0;
        }
        recorder.recordValue(Math.min(HIGHEST_MICROS, TimeUnit.NANOSECONDS.toMicros(lateNanos)));
    }

    public synchronized Summary summary() {
        // The recorder hands over what came since the last call; the total keeps all of it.
        total.add(recorder.getIntervalHistogram());
        if (total.getTotalCount() == 0) {
            return new Summary(0, early.sum(), 0, 0, 0, 0, 0);
        }
        return new Summary(total.getTotalCount(), early.sum(), millis(total.getMinValue()),
                millis(total.getValueAtPercentile(50)), millis(total.getValueAtPercentile(90)),
                millis(total.getValueAtPercentile(99)), millis(total.getMaxValue()));
    }

    private static double millis(long micros) {
        return micros / 1_000.0;
    }
}
