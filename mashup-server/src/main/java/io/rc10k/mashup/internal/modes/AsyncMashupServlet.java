package io.rc10k.mashup.internal.modes;

import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.FanOut;
import io.rc10k.broker.FanOutResult;
import io.rc10k.broker.Outcome;
import io.rc10k.mashup.Composite;
import io.rc10k.mashup.internal.observability.MashupMetrics;
import io.rc10k.mashup.internal.observability.SpanExport;
import io.rc10k.mashup.internal.observability.TraceContext;
import io.rc10k.mashup.internal.routing.MashupRouter;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Async mode (the paper's Eq. 2): the inbound request is suspended with {@code startAsync()}, its
 * thread goes back to the pool, and the broker's FanOut runs on selectors. When the fan-out
 * completes — every answer in, or the deadline — the thread that completed it composes the answer
 * and writes it with Servlet non-blocking I/O ({@link WriteListener}): no dispatch to another
 * thread, and no thread waits for a slow reader.
 *
 * <p>Exactly one response: the calls are built and checked before {@code startAsync()}; the
 * composite is written when both the fan-out has completed and the container has said the output
 * is writable (whichever comes second writes), and {@code complete()} runs once, after the last
 * byte was accepted or the client went away. The fan-out's deadline bounds the wait for partners,
 * so the container's async timeout is off; a client that stops reading is bounded by the
 * connection's idle timeout, which fails the write.</p>
 */
public final class AsyncMashupServlet extends MashupServlet {
    private static final Logger LOG = LoggerFactory.getLogger(AsyncMashupServlet.class);
    /**
     * Parts' bytes composed on the thread that completed the fan-out — often an event thread (a broker
     * loop, a selector), where time spent checking JSON holds up every connection it serves; a larger
     * composite is handed to the pool (docs/concurrency.md).
     */
    static final int COMPOSE_INLINE_MAX_BYTES = 64 * 1024;

    /** @param spans the span export, or null for none */
    public AsyncMashupServlet(MashupRouter router, BrokerClient broker, MashupMetrics metrics, SpanExport spans) {
        super(router, broker, metrics, spans);
    }

    @Override
    protected void serve(HttpServletRequest request, HttpServletResponse response, MashupRouter.Route route,
            long start) throws IOException {
        FanOut fanOut = fanOut(request, response, route, null);
        if (fanOut == null) {
            return;
        }
        metrics.requestBegun();
        AsyncContext async = request.startAsync();
        async.setTimeout(0);
        Reply reply = new Reply(async, response, route, start);
        async.addListener(reply);
        try {
            response.getOutputStream().setWriteListener(reply);
        } catch (IllegalStateException e) {
            // The container refused non-blocking output: nothing was started; end the request as an error.
            reply.held(System.nanoTime() - start);
            reply.finish("server_error");
            throw e;
        }
        try {
            fanOut.start().thenAccept(result -> {
                if (bodyBytes(result.outcomes()) <= COMPOSE_INLINE_MAX_BYTES) {
                    reply.partsArrived(result);
                } else {
                    broker.executor().execute(() -> reply.partsArrived(result));
                }
            });
        } finally {
            reply.held(System.nanoTime() - start);
        }
    }

    private static long bodyBytes(List<Outcome> outcomes) {
        long sum = 0;
        for (Outcome outcome : outcomes) {
            sum += outcome.bodyLength();
        }
        return sum;
    }

    /**
     * A refusal without blocking, like an answer: on whatever thread runs this (a selector, in the
     * standalone server: {@link InlineMashups}) a client that does not read must hold up nothing.
     */
    @Override
    protected void refuse(HttpServletRequest request, HttpServletResponse response, int status, byte[] body)
            throws IOException {
        AsyncContext async = request.startAsync();
        async.setTimeout(0);
        head(response, status, false, body.length);
        ServletOutputStream out = response.getOutputStream();
        out.setWriteListener(new WriteListener() {
            private boolean written;

            @Override
            public void onWritePossible() throws IOException {
                if (!written) {
                    written = true;
                    out.write(body);
                    if (!out.isReady()) {
                        return; // called again once the client has taken it
                    }
                }
                complete(async);
            }

            @Override
            public void onError(Throwable failure) {
                LOG.debug("a refusal could not be written", failure);
                complete(async);
            }
        });
    }

    private static void complete(AsyncContext async) {
        try {
            async.complete();
        } catch (IllegalStateException e) {
            LOG.debug("already completed by the container", e);
        }
    }

    /**
     * One request's answer: written once both the parts have arrived and the output is writable,
     * completed once. Each step runs on whichever thread brings its event; the atomic flags order them.
     */
    private final class Reply implements WriteListener, AsyncListener {
        private static final int WRITABLE = 1;
        private static final int ARRIVED = 2;

        private final AsyncContext async;
        private final HttpServletResponse response;
        private final MashupRouter.Route route;
        private final long start;
        private final AtomicInteger events = new AtomicInteger();
        private final AtomicBoolean completed = new AtomicBoolean();
        /** D of Eq. 2, summed over the request's dispatch and its answer; recorded by the second to add. */
        private final AtomicInteger holds = new AtomicInteger(2);
        private final AtomicLong heldNanos = new AtomicLong();
        private volatile boolean written;
        private Composite.Response composite;
        /** The parts' outcomes, kept for the span export only. */
        private List<Outcome> outcomes;
        private String outcome = "server_error";

        Reply(AsyncContext async, HttpServletResponse response, MashupRouter.Route route, long start) {
            this.async = async;
            this.response = response;
            this.route = route;
            this.start = start;
        }

        /** The fan-out completed: compose now (pure CPU), write if the output is already writable. */
        void partsArrived(FanOutResult result) {
            long begin = System.nanoTime();
            if (spans != null) {
                outcomes = result.outcomes();
            }
            try {
                composite = compose(route, result.outcomes(), result.failedRequired(), start);
                outcome = composite.outcome();
            } catch (RuntimeException e) {
                LOG.warn("mashup {}: the composite could not be composed", route.mashup().name(), e);
                composite = new Composite.Response(500, false,
                        Composite.error("server_error", "the composite could not be composed"), "server_error");
            }
            if ((events.getAndAdd(ARRIVED) & WRITABLE) != 0) {
                write();
            }
            held(System.nanoTime() - begin);
        }

        /** First call: the output is writable. Later calls: a pending write has finished. */
        @Override
        public void onWritePossible() {
            if (written) {
                finish(outcome);
            } else if ((events.getAndAdd(WRITABLE) & ARRIVED) != 0) {
                write();
            }
        }

        private void write() {
            try {
                Composite.Response answer = composite;
                if (answer.status() != 500) {
                    response.setHeader("Mashup-Complete", Boolean.toString(answer.complete()));
                }
                response.setHeader(TraceContext.TRACERESPONSE, route.trace().traceresponse());
                head(response, answer.status(), answer.status() != 500, answer.body().length);
                ServletOutputStream out = response.getOutputStream();
                written = true;
                out.write(answer.body());
                // Written at once (the usual case), or else onWritePossible comes when the client has read it.
                if (out.isReady()) {
                    finish(outcome);
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("could not write mashup {} response", route.mashup().name(), e);
                finish("client_gone");
            }
        }

        @Override
        public void onError(Throwable failure) {
            LOG.debug("mashup {}: the answer could not be written", route.mashup().name(), failure);
            finish("client_gone");
        }

        @Override
        public void onError(AsyncEvent event) {
            finish("client_gone");
        }

        private void finish(String how) {
            if (!completed.compareAndSet(false, true)) {
                return;
            }
            long end = System.nanoTime();
            metrics.requestEnded(route.mashup().name(), how, end - start);
            if (spans != null) {
                Composite.Response answer = composite;
                spans.ended(route, outcomes, answer == null ? 0 : answer.status(), answer != null && answer.complete(),
                        start, end);
            }
            try {
                async.complete();
            } catch (IllegalStateException e) {
                LOG.debug("mashup {}: already completed by the container", route.mashup().name(), e);
            }
        }

        void held(long nanos) {
            long total = heldNanos.addAndGet(nanos);
            if (holds.decrementAndGet() == 0) {
                metrics.threadHeld(route.mashup().name(), total);
            }
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            // The async timeout is off; the fan-out's deadline bounds the wait.
        }

        @Override
        public void onComplete(AsyncEvent event) {
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
        }
    }
}
