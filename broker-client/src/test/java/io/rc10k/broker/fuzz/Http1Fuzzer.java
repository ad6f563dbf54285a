package io.rc10k.broker.fuzz;

import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.Call;
import io.rc10k.broker.CircuitBreakerSettings;
import io.rc10k.broker.Exchange;
import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import io.rc10k.broker.PartnerStats;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

/**
 * Runs one partner answer through a started {@link BrokerClient} against a {@link RawPartner}, and says
 * what went wrong, if anything: the call must end exactly once, within a bounded wait, never
 * exceptionally, with the outcome {@link ReferenceParse} expects for the bytes; afterwards nothing may be
 * left in flight, buffered or active, a connection that saw a fault or stray bytes must be closed, a
 * closed stream must be noticed, and nothing may escape into the log. While the partner pauses, the
 * bytes buffered for the call must follow the bytes sent, never a declared length.
 *
 * <pre>{@code
 * Http1Fuzzer fuzzer = new Http1Fuzzer(broker, "raw", partner, watch);
 * Http1Fuzzer.Result result = fuzzer.run(plan);
 * if (result.failure() != null) ...
 * }</pre>
 *
 * <p>Not thread-safe: one try at a time (the partner serves one plan per request path, and the checks
 * read client-wide counters).</p>
 */
public final class Http1Fuzzer {
    /** Longer than any try may take: past it, the call hangs. */
    static final long HANG_SECONDS = 10;
    /** The first buffer a body may get before any byte arrives (BoundedBody's): the memory bound's floor. */
    private static final long FIRST_BUFFER_BYTES = 8 * 1024;

    private final BrokerClient broker;
    private final String partnerName;
    private final RawPartner partner;
    private final LogWatch watch;
    private final long maxResponseBytes;
    private final AtomicInteger ids = new AtomicInteger();
    private final AtomicReference<String> memoryFault = new AtomicReference<>();

    /**
     * @param failure null when the try passed; else a short key (the same fault gives the same key,
     *                for shrinking) and a description
     */
    public record Result(ResponsePlan plan, Outcome outcome, ReferenceParse.Expected expected, boolean reused,
            Failure failure) {
    }

    public record Failure(String key, String description) {
        @Override
        public String toString() {
            return key + ": " + description;
        }
    }

    public Http1Fuzzer(BrokerClient broker, String partnerName, RawPartner partner, LogWatch watch) {
        this.broker = broker;
        this.partnerName = partnerName;
        this.partner = partner;
        this.watch = watch;
        this.maxResponseBytes = broker.partner(partnerName).maxResponseBytes();
        partner.onPause(memoryProbe(broker, memoryFault));
    }

    /** At a pause after {@code written} bytes: more buffered than they call for is recorded in {@code fault}. */
    static IntConsumer memoryProbe(BrokerClient broker, AtomicReference<String> fault) {
        return written -> {
            long buffered = broker.bufferedBytes();
            long bound = Math.max(FIRST_BUFFER_BYTES, 2L * written);
            if (buffered > bound) {
                fault.compareAndSet(null, buffered + " bytes buffered after the partner sent " + written + " (bound "
                        + bound + ")");
            }
        };
    }

    /** True for a fault after which the client's state is not clean: a call still out, or no more calls possible. */
    public static boolean breaksClient(String key) {
        return key.equals("hang") || key.equals("leak") || key.equals("connect-failed");
    }

    /** The partner the fuzzer calls, as the client should be built with it. */
    public static Partner partner(String name, int port, long maxResponseBytes, Duration callTimeout) {
        return Partner.builder(name, "http://127.0.0.1:" + port)
                .maxResponseBytes(maxResponseBytes)
                .callTimeout(callTimeout)
                .retries(0)
                // Its faults are the point: a breaker would soon answer CIRCUIT_OPEN instead of calling.
                .circuitBreaker(CircuitBreakerSettings.DISABLED)
                .build();
    }

    /**
     * One try; a try that ended TIMEOUT where the bytes say it should not have is run again, up to
     * twice, before it counts: on a loaded machine the partner's thread may be late by a call timeout.
     */
    public Result run(ResponsePlan plan) throws InterruptedException {
        Result result = runOnce(plan);
        for (int again = 0; again < 2 && result.failure() != null && timeoutOnly(result); again++) {
            result = runOnce(plan);
        }
        return result;
    }

    private static boolean timeoutOnly(Result result) {
        return result.outcome() != null && result.outcome().kind() == Outcome.Kind.TIMEOUT
                && result.failure().key().startsWith("outcome:");
    }

    private Result runOnce(ResponsePlan plan) throws InterruptedException {
        watch.takeUnexpected();
        memoryFault.set(null);
        int id = ids.incrementAndGet();
        RawPartner.Served served = partner.register(id, plan);
        ReferenceParse.Expected expected = ReferenceParse.judge(plan, maxResponseBytes);
        Recorder recorder = new Recorder();
        try {
            Exchange exchange = broker.send(Call.to(partnerName).path("fuzz/" + id).listener(recorder).build());
            Outcome outcome;
            try {
                outcome = exchange.outcome().toCompletableFuture().get(HANG_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                return fail(plan, null, expected, false, "hang", "no outcome within " + HANG_SECONDS + " s; events "
                        + recorder.events + "; partner got the request: " + served.requested().isDone() + ", wrote "
                        + "all: " + served.written().isDone() + "; " + broker.stats(partnerName));
            } catch (ExecutionException e) {
                return fail(plan, null, expected, false, "exceptional", "the outcome completed exceptionally: "
                        + e.getCause());
            }
            if (outcome.kind() == Outcome.Kind.CONNECT_FAILED) {
                // The partner accepts every connection: the client itself can no longer connect.
                return fail(plan, outcome, expected, false, "connect-failed", "the client could not connect to a "
                        + "partner that accepts: " + outcome + "; events " + recorder.events);
            }
            boolean reused = served.requested().isDone() && served.requested().join().onConnection() > 1;
            String fault = check(plan, outcome, expected, recorder, served);
            if (fault != null) {
                int colon = fault.indexOf(':');
                String key = fault.substring(0, colon);
                if (key.equals("outcome")) {
                    key = "outcome:" + expected.kind() + "->" + outcome.kind();
                }
                return fail(plan, outcome, expected, reused, key, fault.substring(colon + 1).strip() + "; events "
                        + recorder.events);
            }
            return new Result(plan, outcome, expected, reused, null);
        } finally {
            partner.forget(id);
        }
    }

    private static Result fail(ResponsePlan plan, Outcome outcome, ReferenceParse.Expected expected, boolean reused,
            String key, String description) {
        return new Result(plan, outcome, expected, reused, new Failure(key, description));
    }

    /** The first fault of the try as "key: description", or null. */
    private String check(ResponsePlan plan, Outcome outcome, ReferenceParse.Expected expected, Recorder recorder,
            RawPartner.Served served) throws InterruptedException {
        if (recorder.completes.get() != 1 || recorder.outcome.get() != outcome) {
            return "once: onComplete ran " + recorder.completes.get() + " times, the stage and the listener saw "
                    + outcome + " and " + recorder.outcome.get();
        }
        if (outcome.kind() == Outcome.Kind.MEMORY_BUDGET) {
            return "memory: one call alone spent the client's budget of " + broker.maxBufferedBytes() + " bytes";
        }
        if (!sameOutcome(outcome, expected)) {
            return "outcome: expected " + expected + ", got " + outcome + bodyDiff(outcome, expected);
        }
        if (!await(() -> served.requested().isDone() && served.written().isDone())) {
            return "partner: the request " + (served.requested().isDone() ? "came but its answer was never all written"
                    : "never reached the partner");
        }
        if (!await(() -> broker.exchangesInFlight() == 0 && broker.bufferedBytes() == 0
                && broker.stats(partnerName).connectionsActive() == 0)) {
            return "leak: after the outcome, " + broker.exchangesInFlight() + " exchanges in flight, "
                    + broker.bufferedBytes() + " bytes buffered, " + broker.stats(partnerName);
        }
        if (recorder.idle && !outcome.hasResponse()) {
            return "fault-kept: the connection went back to the pool after a " + outcome.kind();
        }
        boolean mustClose = !outcome.hasResponse() || expected.extraBytes(plan.bytes().length);
        if (mustClose && !await(() -> served.connectionEnded().isDone())) {
            return "fault-kept: the connection is still open after " + (outcome.hasResponse() ? "bytes past the "
                    + "response" : "a " + outcome.kind()) + "; " + broker.stats(partnerName);
        }
        if (plan.ending().endsStream() && !await(() -> openNow() <= partner.connectionsServing())) {
            return "eof-unnoticed: the partner closed, the client still counts " + openNow() + " open connections ("
                    + partner.connectionsServing() + " on the partner)";
        }
        String memory = memoryFault.get();
        if (memory != null) {
            return "memory: " + memory;
        }
        List<String> escaped = watch.takeUnexpected();
        if (!escaped.isEmpty()) {
            return "log: " + String.join("\n  ", escaped);
        }
        if (recorder.completes.get() != 1) {
            return "once: onComplete ran " + recorder.completes.get() + " times";
        }
        return null;
    }

    private int openNow() {
        PartnerStats stats = broker.stats(partnerName);
        return stats.connectionsOpen();
    }

    private static boolean sameOutcome(Outcome outcome, ReferenceParse.Expected expected) {
        if (outcome.kind() != expected.kind()) {
            return false;
        }
        if (!expected.hasResponse()) {
            return true;
        }
        return outcome.status() == expected.status() && Arrays.equals(outcome.body(), expected.body());
    }

    private static String bodyDiff(Outcome outcome, ReferenceParse.Expected expected) {
        if (!outcome.hasResponse() || !expected.hasResponse() || Arrays.equals(outcome.body(), expected.body())) {
            return "";
        }
        return " (bodies differ: " + outcome.bodyLength() + " against " + expected.body().length + " bytes)";
    }

    static boolean await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(1);
        }
        return true;
    }

    /** Counts completions and records the order of events as letters, for reports. */
    static final class Recorder implements ExchangeListener {
        final AtomicInteger completes = new AtomicInteger();
        final AtomicReference<Outcome> outcome = new AtomicReference<>();
        final StringBuffer events = new StringBuffer();
        volatile boolean idle;

        @Override
        public void onConnectionEstablished(Exchange exchange) {
            events.append('E');
        }

        @Override
        public void onConnectionFailed(Exchange exchange, Throwable failure) {
            events.append('F');
        }

        @Override
        public void onWaitingForResponse(Exchange exchange) {
            events.append('W');
        }

        @Override
        public void onHeadersCompleted(Exchange exchange, int status) {
            events.append('H');
        }

        @Override
        public void onBodyCompleted(Exchange exchange, int bodyBytes) {
            events.append('B');
        }

        @Override
        public void onConnectionIdle(Exchange exchange) {
            idle = true;
            events.append('I');
        }

        @Override
        public void onExpired(Exchange exchange) {
            events.append('X');
        }

        @Override
        public void onComplete(Exchange exchange, Outcome outcome) {
            events.append('C');
            completes.incrementAndGet();
            this.outcome.set(outcome);
        }
    }

    /** Calls a well-behaved partner: the client must still answer it after whatever came before. */
    public static String checkWellBehaved(BrokerClient broker, String partnerName) throws InterruptedException {
        CompletableFuture<Outcome> outcome = broker.send(Call.to(partnerName).path("stub").build()).outcome()
                .toCompletableFuture();
        try {
            Outcome answer = outcome.get(HANG_SECONDS, TimeUnit.SECONDS);
            return answer.kind() == Outcome.Kind.OK ? null : "the well-behaved partner's call ended " + answer;
        } catch (ExecutionException | TimeoutException e) {
            return "the well-behaved partner's call did not end: " + e;
        }
    }
}
