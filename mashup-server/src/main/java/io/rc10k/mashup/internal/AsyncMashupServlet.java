package io.rc10k.mashup.internal;

import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.FanOut;
import io.rc10k.broker.FanOutResult;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Async mode (the paper's Eq. 2): the inbound request is suspended with {@code startAsync()}, its
 * thread goes back to the pool, and the broker's FanOut runs on selectors. When the fan-out
 * completes — every answer in, or the deadline — the request is resumed through
 * {@link AsyncContext#start} (a container thread, never the client callback thread) to write the
 * composite and complete.
 *
 * <p>Exactly one response: the calls are built and checked before {@code startAsync()}; the single
 * response is claimed ({@code responded}) on a container thread, either by the resumed task or by
 * the container's async timeout (deadline + 5 s, a safety net that answers 504). If the container
 * will not dispatch (it is stopping), the request ends with a bodiless 503 — no blocking write on
 * the callback thread.</p>
 */
public final class AsyncMashupServlet extends MashupServlet {
    private static final Logger LOG = LoggerFactory.getLogger(AsyncMashupServlet.class);
    static final long SAFETY_MARGIN_MILLIS = 5_000;

    public AsyncMashupServlet(MashupRouter router, BrokerClient broker, MashupMetrics metrics) {
        super(router, broker, metrics);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        long start = System.nanoTime();
        MashupRouter.Route route = routeOrReject(request, response);
        if (route == null) {
            return;
        }
        FanOut fanOut = broker.fanOut(route.mashup().deadline());
        for (MashupRouter.Call call : route.calls()) {
            fanOut.call(call.partner(), "GET", call.pathAndQuery(), call.headers(), ExchangeListener.NONE);
        }
        metrics.requestBegun();
        AsyncContext async = request.startAsync();
        async.setTimeout(route.mashup().deadline().toMillis() + SAFETY_MARGIN_MILLIS);
        AtomicBoolean responded = new AtomicBoolean();
        ThreadHold hold = new ThreadHold(route.mashup().name());
        async.addListener(new AsyncListener() {
            @Override
            public void onTimeout(AsyncEvent event) {
                if (responded.compareAndSet(false, true)) {
                    LOG.warn("mashup {} outlived its deadline by {} ms; answered 504", route.mashup().name(),
                            SAFETY_MARGIN_MILLIS);
                    try {
                        write(response, 504, false, Composite.error("timeout", "the mashup did not complete"));
                    } catch (IOException | RuntimeException e) {
                        LOG.debug("could not write the 504 of mashup {}", route.mashup().name(), e);
                    } finally {
                        metrics.requestEnded(route.mashup().name(), "timeout", System.nanoTime() - start);
                        async.complete();
                        hold.add(0);
                    }
                }
            }

            @Override
            public void onError(AsyncEvent event) {
                if (responded.compareAndSet(false, true)) {
                    metrics.requestEnded(route.mashup().name(), "client_gone", System.nanoTime() - start);
                    hold.add(0);
                }
            }

            @Override
            public void onComplete(AsyncEvent event) {
            }

            @Override
            public void onStartAsync(AsyncEvent event) {
            }
        });
        try {
            fanOut.start().thenAccept(result -> resume(async, response, route, result, responded, hold, start));
        } finally {
            hold.add(System.nanoTime() - start);
        }
    }

    /** Runs on the thread that ended the fan-out: hands the writing to the container, never writes here. */
    private void resume(AsyncContext async, HttpServletResponse response, MashupRouter.Route route,
            FanOutResult result, AtomicBoolean responded, ThreadHold hold, long start) {
        try {
            async.start(() -> respond(async, response, route, result, responded, hold, start));
        } catch (RuntimeException e) {
            // The container will not dispatch (stopping, or the request already timed out and completed).
            if (responded.compareAndSet(false, true)) {
                metrics.requestEnded(route.mashup().name(), "server_stopping", System.nanoTime() - start);
                hold.add(0);
                try {
                    response.setStatus(503);
                    async.complete();
                } catch (RuntimeException ignored) {
                    // Already completed by the container: nothing left to answer.
                }
            }
        }
    }

    private void respond(AsyncContext async, HttpServletResponse response, MashupRouter.Route route,
            FanOutResult result, AtomicBoolean responded, ThreadHold hold, long start) {
        if (!responded.compareAndSet(false, true)) {
            return; // the safety-net timeout answered first
        }
        long resumed = System.nanoTime();
        try {
            answer(response, route, result.outcomes(), start);
        } catch (IOException | RuntimeException e) {
            LOG.debug("could not write mashup {} response", route.mashup().name(), e);
        } finally {
            async.complete();
            hold.add(System.nanoTime() - resumed);
        }
    }

    /**
     * D of one request, the paper's Eq. 2: the time its first dispatch held a container thread plus
     * the time its resumption did. The two may end in either order (a fan-out can finish before
     * {@code doGet} returns); the second to end records the sum.
     */
    private final class ThreadHold {
        private final String mashup;
        private final AtomicLong nanos = new AtomicLong();
        private final AtomicInteger pending = new AtomicInteger(2);

        ThreadHold(String mashup) {
            this.mashup = mashup;
        }

        void add(long heldNanos) {
            nanos.addAndGet(heldNanos);
            if (pending.decrementAndGet() == 0) {
                metrics.threadHeld(mashup, nanos.get());
            }
        }
    }
}
