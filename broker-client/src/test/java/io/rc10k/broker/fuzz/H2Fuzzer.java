package io.rc10k.broker.fuzz;

import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.Call;
import io.rc10k.broker.CircuitBreakerSettings;
import io.rc10k.broker.Exchange;
import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import io.rc10k.broker.Protocol;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one h2c answer through a started {@link BrokerClient} against a {@link RawH2Partner}, on a fresh
 * connection, and says what went wrong, if anything: the call must end exactly once, within a bounded wait,
 * never exceptionally, with an outcome {@link H2Reference} allows for the bytes; nothing may be left in
 * flight or buffered, nothing may escape into the log, and memory follows the bytes sent. Then the partner
 * closes the connection, the client must notice, and a well-formed answer on a fresh connection of the same
 * client must come back OK: the client survived.
 *
 * <pre>{@code
 * H2Fuzzer fuzzer = new H2Fuzzer(broker, "raw", partner, watch);
 * H2Fuzzer.Result result = fuzzer.run(plan);
 * }</pre>
 *
 * <p>Not thread-safe: one try at a time (the checks read client-wide counters).</p>
 */
final class H2Fuzzer {
    /** Many times the call timeout: past it, the call hangs. */
    static final long HANG_SECONDS = 3;
    /** How long a connection the client made may wait for the partner's thread to take it. */
    private static final long ACCEPT_LAG_MILLIS = 2_000;
    static final byte[] GOOD_BODY = "still here".getBytes(StandardCharsets.US_ASCII);
    /** How a well-formed call's fault begins when it timed out: on a loaded machine, tried again. */
    private static final String GOOD_CALL_LATE = "survive: a well-formed answer on a fresh connection timed out";

    private final BrokerClient broker;
    private final String partnerName;
    private final RawH2Partner partner;
    private final LogWatch watch;
    private final long maxResponseBytes;
    private final Map<String, String> knownDifferences;
    private final AtomicInteger ids = new AtomicInteger();
    private final AtomicReference<String> memoryFault = new AtomicReference<>();
    /** The log line of Jetty's receiver failing on an interim 101 (docs/results/fuzzing.md, h2c finding 3). */
    static final String JETTY_RECEIVER_ERROR = "Serialized invocation error";
    /** Whether the last try's log lines were a known difference's. */
    private boolean knownLog;
    /** Exchanges and bytes a known hang left behind; 0 until one did. */
    private long baseInFlight;
    private long baseBuffered;

    /**
     * @param failure null when the try passed
     * @param known   the known difference the outcome showed, or null
     */
    record Result(H2Plan plan, Outcome outcome, H2Reference.Expected expected, Http1Fuzzer.Failure failure,
            String known) {
    }

    /**
     * @param knownDifferences what the client is known to do otherwise than {@link H2Reference} says, by a part
     *                         of {@link H2Reference.Expected#why()}: such a try passes, and its
     *                         {@link Result#known()} names the difference
     */
    H2Fuzzer(BrokerClient broker, String partnerName, RawH2Partner partner, LogWatch watch,
            Map<String, String> knownDifferences) {
        this.knownDifferences = knownDifferences;
        this.broker = broker;
        this.partnerName = partnerName;
        this.partner = partner;
        this.watch = watch;
        this.maxResponseBytes = broker.partner(partnerName).maxResponseBytes();
        partner.onPause(Http1Fuzzer.memoryProbe(broker, memoryFault));
    }

    static Partner partner(String name, int port, long maxResponseBytes, Duration callTimeout) {
        return Partner.builder(name, "http://127.0.0.1:" + port)
                .protocol(Protocol.H2C)
                .maxResponseBytes(maxResponseBytes)
                .callTimeout(callTimeout)
                .retries(0)
                // Its faults are the point: a breaker would soon answer CIRCUIT_OPEN instead of calling.
                .circuitBreaker(CircuitBreakerSettings.DISABLED)
                .build();
    }

    /**
     * True for a fault after which the client's state is not clean: later tries would fail for its sake. Not a
     * hang: the tries after one count from the exchanges and bytes it left behind.
     */
    static boolean breaksClient(String key) {
        return key.equals("leak") || key.equals("connect-failed") || key.equals("survive")
                || key.equals("eof-unnoticed");
    }

    /** A well-formed answer: SETTINGS, a 200 with a body, END_STREAM. */
    static H2Plan good() {
        H2Plan.Frame settings = H2Plan.Frame.of(H2Frames.SETTINGS, 0, H2Plan.Target.CONNECTION, new byte[0], "");
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        H2Frames.indexed(block, 8);
        H2Frames.literal(block, "content-type", "text/plain");
        H2Plan.Frame headers = H2Plan.Frame.of(H2Frames.HEADERS, H2Frames.END_HEADERS, H2Plan.Target.CLIENT,
                block.toByteArray(), "");
        H2Plan.Frame data = H2Plan.Frame.of(H2Frames.DATA, H2Frames.END_STREAM, H2Plan.Target.CLIENT, GOOD_BODY, "");
        return new H2Plan("good", List.of(settings, headers, data), List.of(), H2Plan.Cut.WHOLE,
                H2Plan.Ending.KEEP_OPEN);
    }

    /**
     * One try; a try that ended TIMEOUT where the frames say it should not have is run again, up to twice,
     * before it counts: on a loaded machine the partner's thread may be late by a call timeout.
     */
    Result run(H2Plan plan) throws InterruptedException {
        Result result = settled(runOnce(plan));
        for (int again = 0; again < 2 && result.failure() != null && result.outcome() != null
                && result.outcome().kind() == Outcome.Kind.TIMEOUT && result.failure().key().startsWith("outcome:");
                again++) {
            result = settled(runOnce(plan));
        }
        return result;
    }

    /**
     * A try that failed skipped {@link #survive}: the partner has closed its connection, but the client may not
     * have read that yet, and would send the next call on it (which then fails for this try's sake).
     */
    private Result settled(Result result) throws InterruptedException {
        if (result.failure() != null) {
            Http1Fuzzer.await(() -> broker.stats(partnerName).connectionsOpen() == 0);
        }
        return result;
    }

    private Result runOnce(H2Plan plan) throws InterruptedException {
        watch.takeUnexpected();
        memoryFault.set(null);
        knownLog = false;
        Http1Fuzzer.Recorder recorder = new Http1Fuzzer.Recorder();
        int id = ids.incrementAndGet();
        int unplanned = partner.unplanned();
        int accepted = partner.connectionsAccepted();
        RawH2Partner.Served served = partner.next(plan);
        try {
            Outcome outcome;
            try {
                outcome = call(id, recorder);
            } catch (TimeoutException e) {
                H2Reference.Expected expected = served.requested().isDone() ? judge(plan, served.requested().join())
                        : null;
                String known = expected == null ? null : known(expected);
                // A known hang leaves its call in flight for good: later tries count from what is left now.
                baseInFlight = broker.exchangesInFlight();
                baseBuffered = broker.bufferedBytes();
                if (known != null) {
                    return new Result(plan, null, expected, null, known);
                }
                return fail(plan, null, expected, "hang", "no outcome within " + HANG_SECONDS + " s; events "
                        + recorder.events + "; partner got the request: " + served.requested().isDone() + ", wrote "
                        + "all: " + served.written().isDone() + "; " + broker.stats(partnerName));
            } catch (ExecutionException e) {
                return fail(plan, null, null, "exceptional", "the outcome completed exceptionally: " + e.getCause());
            }
            // The partner's thread may not have taken the client's connection yet, nor, on a loaded machine, even
            // accepted it (the client connected all the same: the kernel completed the handshake).
            boolean connected = recorder.events.indexOf("E") >= 0;
            if (connected || partner.connectionsAccepted() > accepted) {
                try {
                    served.taken().get(ACCEPT_LAG_MILLIS, TimeUnit.MILLISECONDS);
                } catch (TimeoutException | ExecutionException notTaken) {
                    // judged below: no connection came for the plan
                }
            }
            if (!served.seen()) {
                served.end(); // the call is over without its request: the client read the server's preface alone
            }
            if (served.connections() == 0) {
                return fail(plan, outcome, null, "connect-failed", "the call ended " + outcome + " and no connection "
                        + "of it reached the partner (" + (partner.connectionsAccepted() - accepted) + " accepted); "
                        + "events " + recorder.events);
            }
            if (!Http1Fuzzer.await(() -> served.requested().isDone())) {
                return fail(plan, outcome, null, "partner", "the call ended " + outcome + ", the partner never "
                        + "finished its answer; events " + recorder.events);
            }
            RawH2Partner.Request request = served.requested().join();
            boolean allSent = request.seen() || request.early() == request.meant().length;
            H2Reference.Expected expected = judge(plan, request);
            if (!allSent && expected.kinds().contains(Outcome.Kind.TIMEOUT)) {
                expected = new H2Reference.Expected(EnumSet.noneOf(Outcome.Kind.class), 0, new byte[0],
                        "the request never sent after a valid server preface", expected.tolerated());
            }
            if (!request.seen() && expected.kinds().contains(Outcome.Kind.RESET)) {
                // A client may take a connection whose server preface failed as never made: nothing was sent.
                Set<Outcome.Kind> kinds = EnumSet.copyOf(expected.kinds());
                kinds.add(Outcome.Kind.CONNECT_FAILED);
                expected = new H2Reference.Expected(kinds, expected.status(), expected.body(), expected.why(),
                        expected.tolerated());
            }
            if (outcome.kind() == Outcome.Kind.CONNECT_FAILED && !expected.allows(outcome)) {
                return fail(plan, outcome, expected, "connect-failed", "the client could not connect to a partner "
                        + "that accepts: " + outcome + "; events " + recorder.events);
            }
            String fault = check(plan, outcome, expected, recorder, served);
            if (fault == null && (partner.unplanned() != unplanned || served.connections() != 1)) {
                fault = "connections: the call opened " + (partner.unplanned() - unplanned + served.connections())
                        + " connections";
            }
            if (fault == null) {
                fault = survive(served);
            }
            if (fault != null) {
                int colon = fault.indexOf(':');
                String key = fault.substring(0, colon);
                if (key.equals("outcome")) {
                    key = "outcome:" + expected.why().replaceAll("[0-9]+", "N").replaceAll(", then.*", "") + "->"
                            + outcome.kind();
                }
                return fail(plan, outcome, expected, key, fault.substring(colon + 1).strip() + "; events "
                        + recorder.events);
            }
            return new Result(plan, outcome, expected, null, expected.allows(outcome) && !knownLog ? null
                    : known(expected));
        } finally {
            served.end();
        }
    }

    private H2Reference.Expected judge(H2Plan plan, RawH2Partner.Request request) {
        boolean allSent = request.seen() || request.early() == request.meant().length;
        return H2Reference.judge(request.meant(), request.clientStream(),
                H2Reference.ClientSettings.of(request.clientSettings()),
                allSent ? plan.ending() : H2Plan.Ending.KEEP_OPEN, maxResponseBytes);
    }

    private Outcome call(int id, Http1Fuzzer.Recorder recorder)
            throws InterruptedException, ExecutionException, TimeoutException {
        Exchange exchange = broker.send(Call.to(partnerName).path("fuzz/" + id).listener(recorder).build());
        return exchange.outcome().toCompletableFuture().get(HANG_SECONDS, TimeUnit.SECONDS);
    }

    private static Result fail(H2Plan plan, Outcome outcome, H2Reference.Expected expected, String key,
            String description) {
        return new Result(plan, outcome, expected, new Http1Fuzzer.Failure(key, description), null);
    }

    /** Jetty's warnings the log let by (see {@link LogWatch}). */
    long jettyWarnings() {
        return watch.jettyWarnings();
    }

    private String known(H2Reference.Expected expected) {
        return knownDifferences.keySet().stream().filter(expected.why()::contains).findFirst().orElse(null);
    }

    /** The first fault of the try as "key: description", or null. */
    private String check(H2Plan plan, Outcome outcome, H2Reference.Expected expected, Http1Fuzzer.Recorder recorder,
            RawH2Partner.Served served) throws InterruptedException {
        if (recorder.completes.get() != 1 || recorder.outcome.get() != outcome) {
            return "once: onComplete ran " + recorder.completes.get() + " times, the stage and the listener saw "
                    + outcome + " and " + recorder.outcome.get();
        }
        if (outcome.kind() == Outcome.Kind.MEMORY_BUDGET) {
            return "memory: one call alone spent the client's budget of " + broker.maxBufferedBytes() + " bytes";
        }
        if (!expected.allows(outcome) && known(expected) == null) {
            return "outcome: expected " + expected + ", got " + outcome
                    + (outcome.hasResponse() ? " with " + outcome.bodyLength() + " bytes" : "");
        }
        if (!Http1Fuzzer.await(() -> served.written().isDone())) {
            return "partner: its answer was never all written";
        }
        if (!Http1Fuzzer.await(() -> broker.exchangesInFlight() == baseInFlight && broker.bufferedBytes() == baseBuffered
                && broker.stats(partnerName).connectionsActive() == 0)) {
            return "leak: after the outcome, " + broker.exchangesInFlight() + " exchanges in flight, "
                    + broker.bufferedBytes() + " bytes buffered, " + broker.stats(partnerName);
        }
        String memory = memoryFault.get();
        if (memory != null) {
            return "memory: " + memory;
        }
        List<String> escaped = watch.takeUnexpected();
        knownLog = !escaped.isEmpty() && known(expected) != null && knownDifferences.get(known(expected))
                .contains(JETTY_RECEIVER_ERROR) && escaped.stream().anyMatch(line -> line.contains(JETTY_RECEIVER_ERROR));
        if (!escaped.isEmpty() && !knownLog) {
            return "log: " + String.join("\n  ", escaped);
        }
        return null;
    }

    /**
     * The partner closes the try's connection; the client must drop it, then answer a well-formed call on a
     * fresh connection, and drop that one too when it closes. Null when it did.
     */
    private String survive(RawH2Partner.Served served) throws InterruptedException {
        served.end();
        if (!Http1Fuzzer.await(() -> broker.stats(partnerName).connectionsOpen() == 0)) {
            return "eof-unnoticed: the partner closed, the client still counts " + broker.stats(partnerName);
        }
        return goodCall();
    }

    /**
     * A well-formed answer on a fresh connection, which the partner then closes: null when it came back OK. One
     * that ended TIMEOUT is tried again, up to twice, as a try is.
     */
    String goodCall() throws InterruptedException {
        String fault = goodCallOnce();
        for (int again = 0; again < 2 && fault != null && fault.startsWith(GOOD_CALL_LATE); again++) {
            // The timed-out call's connection, which the partner closed, must be gone before the next call.
            Http1Fuzzer.await(() -> broker.stats(partnerName).connectionsOpen() == 0);
            fault = goodCallOnce();
        }
        return fault;
    }

    private String goodCallOnce() throws InterruptedException {
        int id = ids.incrementAndGet();
        RawH2Partner.Served good = partner.next(good());
        try {
            Http1Fuzzer.Recorder recorder = new Http1Fuzzer.Recorder();
            Outcome outcome = call(id, recorder);
            if (outcome.kind() == Outcome.Kind.TIMEOUT) {
                // Late, on a loaded machine, perhaps in accepting the connection: once the partner has it, closing
                // it (below) lets the client drop it, and the next attempt opens a fresh one.
                Http1Fuzzer.await(() -> good.connections() > 0);
                return GOOD_CALL_LATE + ": " + outcome + "; events " + recorder.events;
            }
            if (outcome.kind() != Outcome.Kind.OK || outcome.status() != 200
                    || !Arrays.equals(outcome.body(), GOOD_BODY)) {
                return "survive: a well-formed answer on a fresh connection ended " + outcome + "; events "
                        + recorder.events;
            }
            good.end();
            if (!Http1Fuzzer.await(() -> broker.stats(partnerName).connectionsOpen() == 0)) {
                return "eof-unnoticed: the partner closed after a good answer, the client still counts "
                        + broker.stats(partnerName);
            }
            return null;
        } catch (ExecutionException | TimeoutException e) {
            return "survive: a well-formed answer on a fresh connection did not end: " + e;
        } finally {
            good.end();
        }
    }

}
