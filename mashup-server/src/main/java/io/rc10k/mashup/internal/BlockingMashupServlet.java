package io.rc10k.mashup.internal;

import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.Exchange;
import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.Outcome;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Sync and virtual modes: the request's own thread blocks until the mashup is done, and each
 * outbound call blocks a thread of its own ({@code callThreads}) until its answer — the paper's
 * Eq. 1 design, n = N·(1 + c). Sync runs both on platform threads; virtual runs the servlet
 * dispatch and the calls on virtual threads. At the deadline unfinished exchanges are expired
 * (TIMEOUT), exactly as the async FanOut does.
 */
public final class BlockingMashupServlet extends MashupServlet {
    private final transient ExecutorService callThreads;

    public BlockingMashupServlet(MashupRouter router, BrokerClient broker, MashupMetrics metrics,
            ExecutorService callThreads) {
        super(router, broker, metrics);
        this.callThreads = callThreads;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        long start = System.nanoTime();
        MashupRouter.Route route = routeOrReject(request, response);
        if (route == null) {
            return;
        }
        metrics.requestBegun();
        List<MashupRouter.Call> calls = route.calls();
        AtomicReferenceArray<Exchange> exchanges = new AtomicReferenceArray<>(calls.size());
        List<Future<Outcome>> answers = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            int slot = i;
            MashupRouter.Call call = calls.get(i);
            answers.add(callThreads.submit(() -> {
                Exchange exchange = broker.exchange(call.partner(), "GET", call.pathAndQuery(), call.headers(),
                        ExchangeListener.NONE);
                exchanges.set(slot, exchange);
                return exchange.outcome().toCompletableFuture().get();
            }));
        }
        long deadline = start + route.mashup().deadline().toNanos();
        List<Outcome> outcomes = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            outcomes.add(await(answers.get(i), exchanges, i, calls.get(i), deadline));
        }
        answer(response, route, outcomes, start);
    }

    /** Waits for one call until the deadline; past it, expires the exchange and takes its TIMEOUT. */
    private Outcome await(Future<Outcome> answer, AtomicReferenceArray<Exchange> exchanges, int slot,
            MashupRouter.Call call, long deadline) {
        try {
            return answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            Exchange exchange = exchanges.get(slot);
            if (exchange != null) {
                exchange.expire();
                try {
                    // Expiry aborts the request; its completion is prompt, the bound is a safety net.
                    return answer.get(AsyncMashupServlet.SAFETY_MARGIN_MILLIS, TimeUnit.MILLISECONDS);
                } catch (InterruptedException | ExecutionException | TimeoutException late) {
                    // Fall through to a synthesized TIMEOUT.
                }
            }
            answer.cancel(true);
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
