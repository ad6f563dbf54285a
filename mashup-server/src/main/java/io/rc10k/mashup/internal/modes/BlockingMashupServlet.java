package io.rc10k.mashup.internal.modes;

import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.Exchange;
import io.rc10k.broker.ExchangeBuilder;
import io.rc10k.broker.Outcome;
import io.rc10k.mashup.internal.observability.MashupMetrics;
import io.rc10k.mashup.internal.observability.SpanExport;
import io.rc10k.mashup.internal.routing.MashupRouter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.eclipse.jetty.http.HttpField;

/**
 * Sync and virtual modes: the request's own thread blocks until the mashup is done, and each
 * outbound call blocks a thread of its own ({@link CallThreads}) until its answer — the paper's
 * Eq. 1 design, n = N·(1 + c). At the deadline unfinished exchanges are expired (TIMEOUT), exactly
 * as the async FanOut does; expiry ends each call thread's wait, so no thread outlives its call.
 * One grace bound (deadline + 5 s) covers the whole request, however many calls it has. When a
 * required call fails, the request's thread wakes at once, cancels the other calls (a call thread
 * that has not started its exchange yet does not start it) and answers.
 */
public final class BlockingMashupServlet extends MashupServlet {
    /** How long past the deadline a request waits for its expired calls to end before it answers anyway. */
    static final long SAFETY_MARGIN_MILLIS = 5_000;
    private final transient Executor callThreads;

    /** @param spans the span export, or null for none */
    public BlockingMashupServlet(MashupRouter router, BrokerClient broker, MashupMetrics metrics,
            Executor callThreads, SpanExport spans) {
        super(router, broker, metrics, spans);
        this.callThreads = callThreads;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        long start = System.nanoTime();
        MashupRouter.Route route = routeOrReject(request, response);
        if (route == null) {
            return;
        }
        for (MashupRouter.Call call : route.calls()) {
            if (call.chained()) {
                continue; // made from earlier parts' answers: checked when it is made
            }
            try {
                broker.resolve(call.partner(), call.pathAndQuery());
            } catch (IllegalArgumentException e) {
                rejectCall(request, response, route, call);
                return;
            }
        }
        metrics.requestBegun();
        List<Outcome> outcomes = new ArrayList<>();
        AtomicInteger failedRequired = new AtomicInteger(-1);
        try {
            List<MashupRouter.Call> calls = route.calls();
            AtomicReferenceArray<Exchange> exchanges = new AtomicReferenceArray<>(calls.size());
            AtomicBoolean stopped = new AtomicBoolean();
            CompletableFuture<Void> requiredFailed = new CompletableFuture<>();
            List<CompletableFuture<Outcome>> answers = new ArrayList<>(calls.size());
            for (int i = 0; i < calls.size(); i++) {
                CompletableFuture<Outcome> answer = startCall(calls.get(i), exchanges, i, stopped, answers,
                        start + route.mashup().deadline().toNanos());
                if (calls.get(i).required()) {
                    int slot = i;
                    answer.thenAccept(o -> {
                        if (o.kind() != Outcome.Kind.OK && failedRequired.compareAndSet(-1, slot)) {
                            requiredFailed.complete(null);
                        }
                    });
                }
                answers.add(answer);
            }
            long deadline = start + route.mashup().deadline().toNanos();
            long grace = deadline + TimeUnit.MILLISECONDS.toNanos(SAFETY_MARGIN_MILLIS);
            if (awaitAnswers(answers, route.required() != null ? requiredFailed : null, deadline)) {
                stopped.set(true);
                for (int i = 0; i < calls.size(); i++) {
                    Exchange exchange = exchanges.get(i);
                    if (exchange != null) {
                        exchange.cancel();
                    }
                }
            }
            for (int i = 0; i < calls.size(); i++) {
                outcomes.add(await(answers.get(i), exchanges, i, calls.get(i), deadline, grace));
            }
        } finally {
            try {
                answer(response, route, outcomes, failedRequired.get(), start);
            } finally {
                // D = S here: the request's thread is held for the whole request.
                metrics.threadHeld(route.mashup().name(), System.nanoTime() - start);
            }
        }
    }

    /**
     * Waits until every call has ended, a required call has failed, or the deadline; true only for a
     * required call's failure. One wait for all of them: the calls' answers wake this thread once, not
     * once per call as waiting on each answer in turn would (a timed park and a wake-up each).
     *
     * @param requiredFailed completed when a required call fails; null when the mashup has none
     */
    private static boolean awaitAnswers(List<CompletableFuture<Outcome>> answers,
            CompletableFuture<Void> requiredFailed, long deadline) {
        CompletableFuture<Void> all = CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new));
        try {
            (requiredFailed == null ? all : CompletableFuture.anyOf(all, requiredFailed))
                    .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // The deadline, or a call thread's failure: each call's own wait below deals with it.
        }
        return requiredFailed != null && requiredFailed.isDone();
    }

    /** Starts one call on a call thread; once {@code stopped} is set, a call not yet started never starts. */
    private CompletableFuture<Outcome> startCall(MashupRouter.Call call, AtomicReferenceArray<Exchange> exchanges,
            int slot, AtomicBoolean stopped, List<CompletableFuture<Outcome>> earlier, long deadline) {
        try {
            return CompletableFuture.supplyAsync(() -> {
                ExchangeBuilder request = null;
                if (call.chained()) {
                    // This call's own thread waits for the parts it takes values from: the mode's way.
                    List<Outcome> inputs = new ArrayList<>();
                    for (int d : call.dependsOn()) {
                        Outcome input = awaitInput(earlier.get(d), call, deadline);
                        if (input == null) {
                            return Outcome.failure(call.partner(), Outcome.Kind.TIMEOUT, 0, new TimeoutException(
                                    "the deadline passed before the calls it depends on ended"), 0, 0);
                        }
                        inputs.add(input);
                    }
                    if (stopped.get()) {
                        return Outcome.failure(call.partner(), Outcome.Kind.CANCELLED, 0,
                                new CancellationException("a required part failed first"), 0, 0);
                    }
                    try {
                        request = exchange(call, call.later().apply(inputs));
                    } catch (IllegalArgumentException e) {
                        return Outcome.failure(call.partner(), Outcome.Kind.SKIPPED, 0, e, 0, 0);
                    }
                }
                if (stopped.get()) {
                    return Outcome.failure(call.partner(), Outcome.Kind.CANCELLED, 0,
                            new CancellationException("a required part failed first"), 0, 0);
                }
                Exchange exchange = (request != null ? request : exchange(call, call.pathAndQuery())).start();
                exchanges.set(slot, exchange);
                if (stopped.get()) {
                    exchange.cancel();
                }
                // Blocks this call's own thread until the outcome: that is the point of the mode.
                return exchange.outcome().toCompletableFuture().join();
            }, callThreads);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(Outcome.failure(call.partner(), Outcome.Kind.REJECTED, 0, e, 0, 0));
        }
    }

    /** The call as an exchange not yet started; throws {@link IllegalArgumentException} for a path the broker refuses. */
    private ExchangeBuilder exchange(MashupRouter.Call call, String pathAndQuery) {
        ExchangeBuilder exchange = broker.newExchange(call.partner()).path(pathAndQuery).options(call.options());
        for (HttpField header : call.headers()) {
            exchange.header(header.getName(), header.getValue());
        }
        return exchange;
    }

    /** An earlier call's outcome, waited for until the deadline; null past it. */
    private static Outcome awaitInput(CompletableFuture<Outcome> input, MashupRouter.Call call, long deadline) {
        try {
            return input.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException e) {
            return Outcome.failure(call.partner(), Outcome.Kind.REJECTED, 0, e.getCause(), 0, 0);
        }
    }

    /** Waits for one call until the deadline; past it, expires the exchange and takes its TIMEOUT. */
    private static Outcome await(CompletableFuture<Outcome> answer, AtomicReferenceArray<Exchange> exchanges,
            int slot, MashupRouter.Call call, long deadline, long grace) {
        try {
            return answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            Exchange exchange = exchanges.get(slot);
            if (exchange != null) {
                exchange.expire();
            }
            try {
                // Expiry aborts the request and completes the outcome promptly; the grace bound is a safety net.
                return answer.get(Math.max(0, grace - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException late) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException late) {
                // Fall through to a synthesized TIMEOUT.
            }
            if (exchanges.get(slot) != null) {
                exchanges.get(slot).expire();
            }
            return Outcome.failure(call.partner(), Outcome.Kind.TIMEOUT, 0, e, 0, 0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            Exchange exchange = exchanges.get(slot);
            if (exchange != null) {
                exchange.cancel();
            }
            return Outcome.failure(call.partner(), Outcome.Kind.CANCELLED, 0, e, 0, 0);
        } catch (ExecutionException e) {
            return Outcome.failure(call.partner(), Outcome.Kind.REJECTED, 0, e.getCause(), 0, 0);
        }
    }
}
