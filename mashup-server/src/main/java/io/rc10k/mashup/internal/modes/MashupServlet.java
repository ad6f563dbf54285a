package io.rc10k.mashup.internal.modes;

import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.Call;
import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.FanOut;
import io.rc10k.broker.Outcome;
import io.rc10k.mashup.Composite;
import io.rc10k.mashup.internal.observability.MashupMetrics;
import io.rc10k.mashup.internal.observability.SpanExport;
import io.rc10k.mashup.internal.observability.TraceContext;
import io.rc10k.mashup.internal.routing.MashupRouter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.IntFunction;

/**
 * What every mode shares: routing, rejections, composition, writing and metrics. Subclasses differ
 * only in how they wait for the partners ({@link AsyncMashupServlet}, {@link BlockingMashupServlet}).
 * Every request that {@link #doGet} routes is answered exactly once, and that answer ends its
 * in-flight count whatever happens while it is composed or written: {@link #answer} in the blocking
 * modes, {@link AsyncMashupServlet}'s non-blocking reply in async mode.
 */
abstract class MashupServlet extends HttpServlet {
    protected final transient MashupRouter router;
    protected final transient BrokerClient broker;
    protected final transient MashupMetrics metrics;
    /** The span export, or null: then a request's only cost of it is a null check. */
    protected final transient SpanExport spans;

    MashupServlet(MashupRouter router, BrokerClient broker, MashupMetrics metrics, SpanExport spans) {
        this.router = router;
        this.broker = broker;
        this.metrics = metrics;
        this.spans = spans;
    }

    /**
     * Every mode's start: routes the request, and on a rejection writes the 4xx; else {@link #serve}s the
     * route. Nothing has started before the route is served.
     */
    @Override
    protected final void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        long start = System.nanoTime();
        MashupRouter.Route route;
        try {
            route = router.route(request);
        } catch (MashupRouter.Rejection rejection) {
            metrics.count(rejection.mashup(), rejection.status() == 404 ? "not_found" : "bad_request");
            refuse(request, response, rejection.status(), rejection.body());
            return;
        }
        serve(request, response, route, start);
    }

    /** Runs the route's fan-out and answers: how this mode waits for the partners. */
    protected abstract void serve(HttpServletRequest request, HttpServletResponse response, MashupRouter.Route route,
            long startNanos) throws IOException;

    /**
     * The route's calls as one fan-out under its deadline, not started — what every mode runs, so the rules
     * (a required part's failure, chained calls, the deadline) are the fan-out's alone. On a call the broker
     * refuses, answers 400 and returns null.
     *
     * @param listeners each call's listener, by its index in the route, or null for none
     */
    protected FanOut fanOut(HttpServletRequest request, HttpServletResponse response, MashupRouter.Route route,
            IntFunction<ExchangeListener> listeners) throws IOException {
        FanOut fanOut = broker.fanOut(route.mashup().deadline());
        List<Call> calls = route.calls();
        for (int i = 0; i < calls.size(); i++) {
            Call call = calls.get(i);
            try {
                fanOut.add(listeners == null ? call : call.withListener(listeners.apply(i)));
            } catch (IllegalArgumentException e) {
                // Its values would leave the partner's base path (a chained call's path is checked when made).
                metrics.count(route.mashup().name(), "bad_request");
                refuse(request, response, 400, Composite.error("bad_request", "a parameter value would make the call "
                        + "to " + call.partner() + " leave its base path"));
                return null;
            }
        }
        return fanOut;
    }

    /** Writes a refusal (a JSON error, nothing started): with a blocking write here; async mode overrides. */
    protected void refuse(HttpServletRequest request, HttpServletResponse response, int status, byte[] body)
            throws IOException {
        write(response, status, false, body);
    }

    /**
     * Composes the answer and counts its partner calls. Missing outcomes (a call that never started)
     * count as cancelled. Pure CPU: safe on any thread.
     */
    protected Composite.Response compose(MashupRouter.Route route, List<Outcome> outcomes, int failedRequired,
            long startNanos) {
        List<Outcome> all = outcomes;
        if (outcomes.size() < route.calls().size()) {
            all = new ArrayList<>(outcomes);
            for (int i = all.size(); i < route.calls().size(); i++) {
                all.add(Outcome.failure(route.calls().get(i).partner(), Outcome.Kind.CANCELLED, 0,
                        new CancellationException("never started"), 0, 0));
            }
        }
        for (Outcome outcome : all) {
            metrics.partnerCall(outcome);
        }
        return Composite.compose(route.mashup().name(), route.partNames(), all, route.spanIds(), route.required(),
                failedRequired, (System.nanoTime() - startNanos) / 1_000_000);
    }

    /**
     * Composes, counts and writes the composite response with a blocking write; ends the request's
     * in-flight count whatever happens. Call on a thread that may block (the blocking modes).
     */
    protected void answer(HttpServletResponse response, MashupRouter.Route route, List<Outcome> outcomes,
            int failedRequired, long startNanos) throws IOException {
        String outcome = "server_error";
        int status = 500;
        boolean complete = false;
        try {
            Composite.Response composite = compose(route, outcomes, failedRequired, startNanos);
            outcome = composite.outcome();
            status = composite.status();
            complete = composite.complete();
            response.setHeader("Mashup-Complete", Boolean.toString(composite.complete()));
            response.setHeader(TraceContext.TRACERESPONSE, route.trace().traceresponse());
            write(response, composite.status(), true, composite.body());
        } catch (RuntimeException e) {
            if (!response.isCommitted()) {
                write(response, 500, false, Composite.error("server_error", "the composite could not be written"));
            }
            throw e;
        } finally {
            long end = System.nanoTime();
            metrics.requestEnded(route.mashup().name(), outcome, end - startNanos);
            if (spans != null) {
                spans.ended(route, outcomes, status, complete, startNanos, end);
            }
        }
    }

    /** Status and headers of a JSON answer; the body is written by the caller, blocking or not. */
    static void head(HttpServletResponse response, int status, boolean composite, int length) {
        response.setStatus(status);
        response.setContentType("application/json");
        response.setContentLength(length);
        if (!composite) {
            response.setHeader("Cache-Control", "no-store");
        }
    }

    /** Writes a JSON answer with a blocking write. */
    static void write(HttpServletResponse response, int status, boolean composite, byte[] body) throws IOException {
        head(response, status, composite, body.length);
        response.getOutputStream().write(body);
    }
}
