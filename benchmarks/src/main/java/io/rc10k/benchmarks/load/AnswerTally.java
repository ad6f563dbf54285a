package io.rc10k.benchmarks.load;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;

/**
 * What the ends of one phase of mashup load were: answers by status (a 200 split by the composite's
 * {@code Mashup-Complete} header), connection-level failures by cause, and for admitted answers (any
 * status but 503) the latency from the send and from the intended time, and how many came later than
 * the deadline plus a slack after their send.
 *
 * <p>Thread-safe: ends are added on the client's threads while a progress line reads the counts.
 * Unexpected ends (a status other than 200, 502, 503, 504; a failure) are kept by kind, at most
 * {@value #MAX_KINDS} kinds.</p>
 */
public final class AnswerTally implements OpenModelLoad.Answers {
    private static final int MAX_KINDS = 20;
    private static final int MAX_SAMPLES = 10;
    /** The composite names the mashup first, then whether it is complete, then its elapsed time. */
    private static final Pattern ELAPSED = Pattern.compile("^\\{\"mashup\":\"[^\"]*\",\"complete\":(?:true|false),"
            + "\"elapsedMillis\":(\\d+)");

    private final long lateMicros;
    private final LongAdder complete = new LongAdder();
    private final LongAdder partial = new LongAdder();
    private final LongAdder badGateway = new LongAdder();
    private final LongAdder gatewayTimeout = new LongAdder();
    private final LongAdder shed = new LongAdder();
    private final LongAdder otherStatus = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder overDeadline = new LongAdder();
    private final AtomicLong maxLateSendMicros = new AtomicLong();
    private final AtomicLong maxServerElapsedMillis = new AtomicLong(-1);
    private final Map<String, LongAdder> unexpected = new ConcurrentHashMap<>();
    private final Queue<String> samples = new ConcurrentLinkedQueue<>();
    private final long createdNanos = System.nanoTime();
    private final ConcurrentHistogram fromSent = new ConcurrentHistogram(3);
    private final ConcurrentHistogram fromIntended = new ConcurrentHistogram(3);

    /** An admitted answer later than {@code deadlineMillis + slackMillis} after its send counts as over the deadline. */
    public AnswerTally(long deadlineMillis, long slackMillis) {
        this.lateMicros = (deadlineMillis + slackMillis) * 1_000;
    }

    @Override
    public void onEnd(Result result, String body, OpenModelLoad.Timing timing) {
        maxLateSendMicros.accumulateAndGet(timing.lateMicros(), Math::max);
        if (result.isFailed()) {
            failed.increment();
            Throwable cause = result.getFailure();
            String message = String.valueOf(cause.getMessage());
            String kind = "failed: " + cause.getClass().getSimpleName() + ": "
                    + message.substring(0, Math.min(120, message.length()));
            kind(kind);
            sample(timing, kind);
            return;
        }
        Response response = result.getResponse();
        int status = response.getStatus();
        if (status == 503) {
            shed.increment();
            return;
        }
        fromSent.recordValue(timing.fromSentMicros());
        fromIntended.recordValue(timing.fromIntendedMicros());
        long elapsed = serverElapsedMillis(body);
        maxServerElapsedMillis.accumulateAndGet(elapsed, Math::max);
        switch (status) {
            case 200 -> ("true".equals(response.getHeaders().get("Mashup-Complete")) ? complete : partial).increment();
            case 502 -> badGateway.increment();
            case 504 -> gatewayTimeout.increment();
            default -> {
                otherStatus.increment();
                kind("status " + status);
                sample(timing, "status " + status);
            }
        }
        if (timing.fromSentMicros() > lateMicros) {
            overDeadline.increment();
            sample(timing, "status " + status + " over the deadline; the composite's own elapsedMillis " + elapsed);
        }
    }

    /** The composite's top-level {@code elapsedMillis} (the server's time for the request), or -1. */
    static long serverElapsedMillis(String body) {
        Matcher m = ELAPSED.matcher(body);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** Keeps the first few unexpected ends with when they happened, to find them in the server's log. */
    private void sample(OpenModelLoad.Timing timing, String what) {
        if (samples.size() < MAX_SAMPLES) {
            samples.add(String.format(Locale.ROOT, "sent at +%.3f s, ended %.1f ms after its send (%s): %s",
                    (timing.sentNanos() - createdNanos) / 1e9, timing.fromSentMicros() / 1000.0,
                    Instant.now().minusNanos(System.nanoTime() - timing.endNanos()), what));
        }
    }

    private void kind(String kind) {
        LongAdder count = unexpected.get(kind);
        if (count == null) {
            count = unexpected.size() < MAX_KINDS ? unexpected.computeIfAbsent(kind, k -> new LongAdder())
                    : unexpected.computeIfAbsent("(more kinds)", k -> new LongAdder());
        }
        count.increment();
    }

    /** The counts now; the histograms are copies. */
    public Counts counts() {
        Map<String, Long> kinds = new TreeMap<>();
        unexpected.forEach((k, v) -> kinds.put(k, v.sum()));
        return new Counts(complete.sum(), partial.sum(), badGateway.sum(), gatewayTimeout.sum(), shed.sum(),
                otherStatus.sum(), failed.sum(), overDeadline.sum(), maxLateSendMicros.get(),
                maxServerElapsedMillis.get(), kinds, List.copyOf(samples), fromSent.copy(), fromIntended.copy());
    }

    /**
     * A snapshot of a tally. Latencies in microseconds.
     *
     * @param overDeadline      admitted answers later than the deadline plus the slack after their send
     * @param maxLateSendMicros how late the generator sent its latest request (its own lag, not the server's)
     * @param maxServerElapsedMillis the largest {@code elapsedMillis} a composite reported (-1: none did)
     * @param unexpected        statuses other than 200/502/503/504, and failures, by kind
     * @param samples           the first few unexpected ends and late answers, each with when it was sent and ended
     */
    public record Counts(long complete, long partial, long badGateway, long gatewayTimeout, long shed, long otherStatus,
            long failed, long overDeadline, long maxLateSendMicros, long maxServerElapsedMillis,
            Map<String, Long> unexpected, List<String> samples, Histogram fromSent, Histogram fromIntended) {

        /** Responses received, whatever their status; failures are not responses. */
        public long answered() {
            return complete + partial + badGateway + gatewayTimeout + shed + otherStatus;
        }

        /** One line for the progress report. */
        public String line() {
            return String.format("200 complete %,d, 200 partial %,d, 502 %,d, 504 %,d, 503 %,d, other %,d, failed %,d"
                    + " | over deadline+slack %,d", complete, partial, badGateway, gatewayTimeout, shed, otherStatus,
                    failed, overDeadline);
        }
    }
}
