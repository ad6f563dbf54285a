package io.rc10k.stubs.internal;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.MimeTypes;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * Routes the stub endpoints: {@code /stub}, the named partners, {@code /stats}. Non-blocking: it
 * parses, schedules and returns, so Jetty may run it on the selector thread.
 */
public final class StubHandler extends Handler.Abstract.NonBlocking {
    static final String STUB = "/stub";
    static final String STATS = "/stats";
    static final String STATS_RESET = "/stats/reset";
    static final String ECHO = "/echo";
    /** The largest request body {@code /echo} reads; longer ones are answered 413. */
    static final int ECHO_MAX_BODY = 16 * 1024 * 1024;
    /** Bodies up to this many bytes are echoed as text too, not only counted. */
    static final int ECHO_BODY_TEXT_MAX = 4096;
    /** The origin of {@code receivedAtMicros}: one per stub process, so stamps compare across its requests. */
    private static final long CLOCK_ORIGIN = System.nanoTime();
    private static final String PATHS = "[\"/stub\",\"/weather\",\"/hotels\",\"/flights\",\"/echo\",\"/stats\",\"/stats/reset\"]";

    private static final int MAX_SEEN_IDS = 100_000;
    private final StubCounters counters;
    private final Random random;
    private final long maxStallMillis;
    /** Ids whose first request has come, for {@code firstDelay}; bounded: forgotten all at once when full. */
    private final Set<String> seenIds = ConcurrentHashMap.newKeySet();

    public StubHandler(StubCounters counters, long seed, long maxStallMillis) {
        this.counters = counters;
        this.random = new Random(seed);
        this.maxStallMillis = maxStallMillis;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        String path = Request.getPathInContext(request);
        if (STUB.equals(path) || NamedPartners.isNamed(path)) {
            counters.requestBegun();
            Request.addCompletionListener(request, failure -> {
                // Failed, or its wait ended from outside, and not by a fault the stub acted out: the client
                // gave up (a reset stream, a connection found closed). Jetty may complete such a request
                // without a failure, so the answer's own mark counts too.
                // Counted before the request leaves the in-flight gauge.
                boolean gaveUp = failure != null || request.getAttribute(Answer.ABANDONED) != null;
                if (gaveUp && request.getAttribute(Answer.FAULT) == null) {
                    counters.requestAbandoned();
                }
                counters.requestEnded();
            });
            answer(request, response, callback, path);
        } else if (ECHO.equals(path)) {
            counters.requestBegun();
            Request.addCompletionListener(request, failure -> counters.requestEnded());
            // The body as it came (up to 16 MiB): its length, and its text when it is short.
            Content.Source.asByteArrayAsync(request, ECHO_MAX_BODY).whenComplete((body, failure) -> {
                if (failure != null) {
                    writeJson(response, callback, 413, "{\"error\":\"body too large or broken\",\"detail\":"
                            + Json.quote(String.valueOf(failure.getMessage())) + "}");
                } else {
                    writeJson(response, callback, 200, echo(request, body));
                }
            });
        } else if (STATS.equals(path)) {
            writeJson(response, callback, 200, counters.snapshot().toJson());
        } else if (STATS_RESET.equals(path)) {
            if (HttpMethod.POST.is(request.getMethod())) {
                counters.reset();
                writeJson(response, callback, 200, counters.snapshot().toJson());
            } else {
                response.getHeaders().put(HttpHeader.ALLOW, "POST");
                writeJson(response, callback, 405, "{\"error\":\"method not allowed\",\"method\":"
                        + Json.quote(request.getMethod()) + ",\"accepted\":\"POST\"}");
            }
        } else if ("/".equals(path)) {
            writeJson(response, callback, 200, "{\"service\":\"rc10k partner-stubs\",\"paths\":" + PATHS
                    + ",\"try\":\"/stub?delay=500&bytes=1024\"}");
        } else {
            writeJson(response, callback, 404, "{\"error\":\"not found\",\"path\":" + Json.quote(path)
                    + ",\"paths\":" + PATHS + "}");
        }
        return true;
    }

    private void answer(Request request, Response response, Callback callback, String path) {
        boolean named = NamedPartners.isNamed(path);
        Behaviour behaviour;
        try {
            behaviour = Behaviour.parse(query(request), named);
            if (behaviour.close() && request.getConnectionMetaData().getHttpVersion().getVersion() >= 20) {
                // HTTP/2 carries many streams on one connection and has no Connection header to end it by.
                throw new BadParameterException("close", "true", "only over HTTP/1.1 (this request came over "
                        + request.getConnectionMetaData().getProtocol() + ")");
            }
        } catch (BadParameterException e) {
            writeJson(response, callback, 400, e.toJson());
            return;
        }
        // SplittableRandom mixes its seed; java.util.Random's first draws for seeds 1, 2, 3... nearly coincide.
        long delay = behaviour.seed() == null
                ? behaviour.delay().sample(random)
                : behaviour.delay().sample(new SplittableRandom(behaviour.seed()));
        if (behaviour.firstDelay() > 0 && firstOf(behaviour.id())) {
            delay = behaviour.firstDelay();
        }
        Body body = named
                ? Body.of(NamedPartners.body(path, behaviour.city()))
                : stubBody(request, behaviour, delay);
        try {
            behaviour.checkDrip(body.size());
        } catch (BadParameterException e) {
            writeJson(response, callback, 400, e.toJson());
            return;
        }
        new Answer(request, response, callback, behaviour, body, maxStallMillis).start(delay);
    }

    /** True for the first request carrying {@code id} (since start, or since the set was last full). */
    private boolean firstOf(String id) {
        if (seenIds.size() >= MAX_SEEN_IDS) {
            seenIds.clear();
        }
        return seenIds.add(id);
    }

    private static Fields query(Request request) throws BadParameterException {
        try {
            return Request.extractQueryParameters(request, StandardCharsets.UTF_8);
        } catch (RuntimeException e) {
            throw new BadParameterException("query", Behaviour.abbreviate(String.valueOf(request.getHttpURI()
                    .getQuery())), "percent-encoded UTF-8 name=value pairs");
        }
    }

    private static Body stubBody(Request request, Behaviour behaviour, long delay) {
        String head = "\"stub\":\"ok\",\"port\":" + Request.getLocalPort(request) + ",\"delayMillis\":" + delay
                + (behaviour.id() == null ? "" : ",\"id\":" + Json.quote(behaviour.id()))
                + (behaviour.stamp() ? ",\"receivedAtMicros\":" + (System.nanoTime() - CLOCK_ORIGIN) / 1_000 : "");
        return behaviour.bytes() < 0 ? Body.of("{" + head + "}") : Body.jsonOfSize(head, behaviour.bytes());
    }

    /** The request as the stub received it: what a partner would see of a caller's request. */
    private static String echo(Request request, byte[] body) {
        StringBuilder json = new StringBuilder("{\"method\":").append(Json.quote(request.getMethod()))
                .append(",\"path\":").append(Json.quote(request.getHttpURI().getPath()))
                .append(",\"query\":").append(request.getHttpURI().getQuery() == null ? "null"
                        : Json.quote(request.getHttpURI().getQuery()))
                .append(",\"protocol\":").append(Json.quote(request.getConnectionMetaData().getProtocol()))
                .append(",\"secure\":").append(request.isSecure())
                .append(",\"port\":").append(Request.getLocalPort(request))
                .append(",\"headers\":{");
        boolean first = true;
        for (String name : request.getHeaders().getFieldNamesCollection()) {
            json.append(first ? "" : ",").append(Json.quote(name.toLowerCase(Locale.ROOT))).append(':')
                    .append(Json.quote(String.join(", ", request.getHeaders().getValuesList(name))));
            first = false;
        }
        json.append("},\"bodyBytes\":").append(body.length);
        if (body.length > 0 && body.length <= ECHO_BODY_TEXT_MAX) {
            json.append(",\"body\":").append(Json.quote(new String(body, StandardCharsets.UTF_8)));
        }
        return json.append('}').toString();
    }

    static void writeJson(Response response, Callback callback, int status, String json) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, MimeTypes.Type.APPLICATION_JSON.asString());
        response.write(true, BufferUtil.toBuffer(json, StandardCharsets.UTF_8), callback);
    }
}
