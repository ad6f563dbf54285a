package io.rc10k.mashup.internal.modes;

import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.Exchange;
import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.FanOut;
import io.rc10k.broker.FanOutResult;
import io.rc10k.broker.Outcome;
import io.rc10k.mashup.internal.observability.MashupMetrics;
import io.rc10k.mashup.internal.observability.SpanExport;
import io.rc10k.mashup.internal.routing.MashupRouter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sync and virtual modes: the same fan-out as async mode ({@link MashupServlet#fanOut}: its required
 * parts, chained calls and deadline), waited for the paper's Eq. 1 way, n = N·(1 + c): the request's own
 * thread blocks until the fan-out is done, and each call holds a thread of its own ({@link CallThreads})
 * until that call ends. One grace bound (deadline + 5 s) covers the whole request; the fan-out ends every
 * call by its deadline, so no thread outlives its call.
 */
public final class BlockingMashupServlet extends MashupServlet {
    /** How long past the deadline a request waits for its fan-out before it answers anyway. */
    static final long SAFETY_MARGIN_MILLIS = 5_000;
    private final transient Executor callThreads;

    /** @param spans the span export, or null for none */
    public BlockingMashupServlet(MashupRouter router, BrokerClient broker, MashupMetrics metrics,
            Executor callThreads, SpanExport spans) {
        super(router, broker, metrics, spans);
        this.callThreads = callThreads;
    }

    @Override
    protected void serve(HttpServletRequest request, HttpServletResponse response, MashupRouter.Route route,
            long start) throws IOException {
        int size = route.calls().size();
        @SuppressWarnings("unchecked")
        CompletableFuture<Object>[] ended = new CompletableFuture[size];
        for (int i = 0; i < size; i++) {
            ended[i] = new CompletableFuture<>();
        }
        FanOut fanOut = fanOut(request, response, route, i -> new ExchangeListener() {
            @Override
            public void onComplete(Exchange exchange, Outcome outcome) {
                ended[i].complete(outcome);
            }
        });
        if (fanOut == null) {
            return;
        }
        metrics.requestBegun();
        long grace = start + route.mashup().deadline().toNanos() + TimeUnit.MILLISECONDS.toNanos(SAFETY_MARGIN_MILLIS);
        List<Outcome> outcomes = List.of();
        int failedRequired = -1;
        try {
            CompletableFuture<FanOutResult> result = fanOut.start().toCompletableFuture();
            for (CompletableFuture<Object> call : ended) {
                // A call never made (skipped, cancelled) has no end of its own: the fan-out's frees its thread.
                hold(CompletableFuture.anyOf(call, result), grace);
            }
            FanOutResult done = await(result, grace);
            if (done != null) {
                outcomes = done.outcomes();
                failedRequired = done.failedRequired();
            }
        } finally {
            try {
                answer(response, route, outcomes, failedRequired, start);
            } finally {
                // D = S here: the request's thread is held for the whole request.
                metrics.threadHeld(route.mashup().name(), System.nanoTime() - start);
            }
        }
    }

    /** A call thread blocks until {@code end} (its call's end): the mode's cost, held while the call is out. */
    private void hold(CompletableFuture<?> end, long grace) {
        try {
            callThreads.execute(() -> await(end, grace));
        } catch (RejectedExecutionException stopping) {
            // The server is stopping: the call goes on without a thread of its own.
        }
    }

    /** {@code future}'s value, waited for until {@code grace}; null past it (or when interrupted). */
    private static <T> T await(CompletableFuture<T> future, long grace) {
        try {
            return future.get(Math.max(0, grace - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // Past the grace bound every call counts as cancelled: compose says so.
        }
        return null;
    }
}
