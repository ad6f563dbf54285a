package io.rc10k.benchmarks.fleet;

import io.rc10k.benchmarks.load.OpenModelLoad;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.client.HttpClient;

/**
 * Open-model load at a steady rate until stopped (at most {@code maxSeconds}), sent in one-second phases
 * on a thread of its own, each answer sorted: complete (200, {@code Mashup-Complete: true}), refused
 * (503), other statuses and failures (no answer: a reset, a timeout).
 */
final class SteadyLoad {
    private final OpenModelLoad load;
    private final double rate;
    private final long maxSeconds;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread sender;
    final LongAdder complete = new LongAdder();
    final LongAdder refused = new LongAdder();
    final LongAdder other = new LongAdder();
    final LongAdder failed = new LongAdder();
    final AtomicReference<String> firstProblem = new AtomicReference<>();

    SteadyLoad(HttpClient client, URI target, double rate, long maxSeconds, long timeoutMillis) {
        this.load = new OpenModelLoad(client, i -> target, timeoutMillis);
        this.rate = rate;
        this.maxSeconds = maxSeconds;
        this.sender = new Thread(this::send, "steady-load");
    }

    SteadyLoad start() {
        sender.start();
        return this;
    }

    private void send() {
        long perSecond = Math.max(1, Math.round(rate));
        for (long s = 0; s < maxSeconds && running.get(); s++) {
            load.send(rate, perSecond, (result, body, timing) -> {
                if (result.isFailed()) {
                    failed.increment();
                    firstProblem.compareAndSet(null, String.valueOf(result.getFailure()));
                } else if (result.getResponse().getStatus() == 200
                        && "true".equals(result.getResponse().getHeaders().get("Mashup-Complete"))) {
                    complete.increment();
                } else {
                    (result.getResponse().getStatus() == 503 ? refused : other).increment();
                    firstProblem.compareAndSet(null, result.getResponse().getStatus() + " "
                            + body.substring(0, Math.min(120, body.length())).replaceAll("[\\s|]+", " "));
                }
            });
        }
    }

    /** Stops sending, then waits (bounded) for every request sent to end; true if all did. */
    boolean stopAndAwait(long boundMillis) throws InterruptedException {
        running.set(false);
        sender.join(boundMillis);
        return load.awaitEnds(TimeUnit.MILLISECONDS.toNanos(boundMillis));
    }

    long sent() {
        return load.sent();
    }

    long outstanding() {
        return load.outstanding();
    }

    String counts() {
        return String.format("sent %,d: complete %,d, refused (503) %,d, other %,d, failed %,d, not ended %,d%s",
                sent(), complete.sum(), refused.sum(), other.sum(), failed.sum(), outstanding(),
                firstProblem.get() == null ? "" : "; first problem: " + firstProblem.get());
    }
}
