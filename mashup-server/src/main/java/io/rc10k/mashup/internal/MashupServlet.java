package io.rc10k.mashup.internal;

import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.Outcome;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;

/**
 * What every mode shares: routing, rejections, composition, writing and metrics. Subclasses differ
 * only in how they wait for the partners ({@link AsyncMashupServlet}, {@link BlockingMashupServlet}).
 */
abstract class MashupServlet extends HttpServlet {
    protected final transient MashupRouter router;
    protected final transient BrokerClient broker;
    protected final transient MashupMetrics metrics;

    MashupServlet(MashupRouter router, BrokerClient broker, MashupMetrics metrics) {
        this.router = router;
        this.broker = broker;
        this.metrics = metrics;
    }

    /** Routes the request; on a rejection writes the 4xx and returns null. */
    protected MashupRouter.Route routeOrReject(HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        try {
            return router.route(request);
        } catch (MashupRouter.Rejection rejection) {
            metrics.count(rejection.mashup(), rejection.status() == 404 ? "not_found" : "bad_request");
            write(response, rejection.status(), false, rejection.body());
            return null;
        }
    }

    /** Composes, counts and writes the composite response. Blocking write: call on a container thread. */
    protected void answer(HttpServletResponse response, MashupRouter.Route route, List<Outcome> outcomes,
            long startNanos) throws IOException {
        long elapsed = System.nanoTime() - startNanos;
        Composite.Response composite = Composite.compose(route.mashup().name(), route.partNames(), outcomes,
                elapsed / 1_000_000);
        outcomes.forEach(metrics::partnerCall);
        metrics.requestEnded(route.mashup().name(), composite.outcome(), elapsed);
        response.setHeader("Mashup-Complete", Boolean.toString(composite.complete()));
        write(response, composite.status(), true, composite.body());
    }

    static void write(HttpServletResponse response, int status, boolean composite, byte[] body) throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        response.setContentLength(body.length);
        if (!composite) {
            response.setHeader("Cache-Control", "no-store");
        }
        response.getOutputStream().write(body);
    }
}
