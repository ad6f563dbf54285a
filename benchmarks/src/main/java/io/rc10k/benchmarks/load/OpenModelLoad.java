package io.rc10k.benchmarks.load;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Result;

/**
 * One phase of open-model load: {@code count} GETs at a fixed arrival rate, the i-th sent at
 * {@code start + i / rate} whatever the answers do, each end reported once with its intended time,
 * the moment its head was written and the moment it ended. Latency from the intended time has no
 * coordinated omission (a server that stalls is charged for every request it delayed); latency from
 * the send leaves out the generator's own lag (a generator that falls behind, a request waiting for a
 * connection), though not a client too starved of CPU to see an answer at once.
 *
 * <pre>{@code
 * OpenModelLoad phase = new OpenModelLoad(client, i -> server.resolve("/mashup/chaos"), 11_000);
 * long lastSent = phase.send(200, 12_000, (result, body, timing) -> tally.add(result, timing));
 * boolean allEnded = phase.awaitEnds(TimeUnit.SECONDS.toNanos(15));
 * }</pre>
 *
 * <p>Threads: {@link #send} runs on the caller; ends are reported on the client's threads, and the
 * {@link Answers} must not block. A second end of the same request (which a correct client never
 * reports) is not passed on but counted in {@link #duplicates()}. The counters are safe to read
 * from any thread while the phase runs.</p>
 */
public final class OpenModelLoad {
    /** Bodies are kept up to this size; a larger one fails its request. */
    public static final int MAX_BODY_BYTES = 64 * 1024;

    private final HttpClient client;
    private final LongFunction<URI> target;
    private final long timeoutMillis;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong ended = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();

    /**
     * When one request was meant to go, was handed to the client, had its head written (0 if it never was), and
     * ended: {@link System#nanoTime()} values.
     */
    public record Timing(long intendedNanos, long handedNanos, long committedNanos, long endNanos) {
        /** The actual send: when its head was written, or when it was handed to the client if it never was. */
        public long sentNanos() {
            return committedNanos != 0 ? committedNanos : handedNanos;
        }

        public long fromIntendedMicros() {
            return (endNanos - intendedNanos) / 1_000;
        }

        public long fromSentMicros() {
            return (endNanos - sentNanos()) / 1_000;
        }

        /** How late the generator handed it to the client; 0 when on time. */
        public long lateMicros() {
            return Math.max(0, (handedNanos - intendedNanos) / 1_000);
        }
    }

    /**
     * Told of each request's end, once, on a client thread: an answer (any status) with its body, up to
     * {@value #MAX_BODY_BYTES} bytes, or a failure (with what body had come).
     */
    @FunctionalInterface
    public interface Answers {
        void onEnd(Result result, String body, Timing timing);
    }

    /**
     * @param target        the URI of the i-th request
     * @param timeoutMillis the client's bound on one request: past it, the request ends failed
     */
    public OpenModelLoad(HttpClient client, LongFunction<URI> target, long timeoutMillis) {
        if (timeoutMillis < 1) {
            throw new IllegalArgumentException("timeoutMillis < 1: " + timeoutMillis);
        }
        this.client = client;
        this.target = target;
        this.timeoutMillis = timeoutMillis;
    }

    /**
     * Sends {@code count} requests at {@code rate} per second, each when its time has come however many
     * are unanswered; returns when the last one was handed to the client, with that moment's
     * {@link System#nanoTime()}.
     */
    public long send(double rate, long count, Answers answers) {
        if (!(rate > 0) || count < 1) {
            throw new IllegalArgumentException("rate " + rate + "/s, count " + count + " (accepted: > 0 and >= 1)");
        }
        double intervalNanos = 1e9 / rate;
        long start = System.nanoTime();
        long lastSent = start;
        for (long i = 0; i < count; i++) {
            long intended = start + Math.round(i * intervalNanos);
            for (long wait = intended - System.nanoTime(); wait > 0; wait = intended - System.nanoTime()) {
                LockSupport.parkNanos(wait);
            }
            lastSent = System.nanoTime();
            sendOne(target.apply(i), intended, lastSent, answers);
        }
        return lastSent;
    }

    private void sendOne(URI uri, long intended, long handed, Answers answers) {
        AtomicBoolean reported = new AtomicBoolean();
        AtomicLong committed = new AtomicLong();
        sent.incrementAndGet();
        client.newRequest(uri).timeout(timeoutMillis, TimeUnit.MILLISECONDS)
                .onRequestCommit(request -> committed.set(System.nanoTime()))
                .send(new BufferingResponseListener(MAX_BODY_BYTES) {
                    @Override
                    public void onComplete(Result result) {
                        long end = System.nanoTime();
                        if (!reported.compareAndSet(false, true)) {
                            duplicates.incrementAndGet();
                            return;
                        }
                        try {
                            answers.onEnd(result, getContentAsString(StandardCharsets.UTF_8),
                                    new Timing(intended, handed, committed.get(), end));
                        } finally {
                            ended.incrementAndGet();
                        }
                    }
                });
    }

    /** Waits, at most {@code timeoutNanos}, until every request sent has ended; true if they all have. */
    public boolean awaitEnds(long timeoutNanos) throws InterruptedException {
        long limit = System.nanoTime() + timeoutNanos;
        while (ended.get() < sent.get()) {
            if (System.nanoTime() - limit >= 0) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    public long sent() {
        return sent.get();
    }

    /** Requests that ended (answered or failed), each counted once. */
    public long ended() {
        return ended.get();
    }

    /** Requests sent and not ended yet. */
    public long outstanding() {
        return sent.get() - ended.get();
    }

    /** Ends reported a second time for the same request: 0 from a correct client and server. */
    public long duplicates() {
        return duplicates.get();
    }
}
