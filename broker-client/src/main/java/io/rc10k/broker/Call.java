package io.rc10k.broker;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;

/**
 * One call to a partner, described and not started: where it goes, what it sends, how it runs. Immutable
 * and inert; {@link BrokerClient#send} makes it alone, or a {@link FanOut} makes it with others under one
 * deadline.
 *
 * <pre>{@code
 * broker.fanOut(Duration.ofSeconds(1))
 *         .add(Call.to("geo").path("geo?city=Paris").required().build())                 // call 0
 *         .add(Call.to("weather").path("weather?city=Paris").header("Accept-Language", "fr").build())
 *         .add(Call.to("hotels").after(0).path(in -> "hotels?near=" + in.get(0).bodyAsString()).build())
 *         .start();
 * Outcome one = broker.send(Call.to("weather").path("weather?city=Oslo").build()).await();
 * }</pre>
 *
 * <p>{@link Builder#build()} checks what a call holds alone (its method, headers, body and options); what
 * needs the client — a partner it knows, a path that stays under the partner's base URI — is checked when
 * the call is added to a fan-out or sent.</p>
 */
public final class Call {
    private static final int[] NOTHING = {};

    private final String partner;
    private final String method;
    private final String pathAndQuery;
    private final Function<List<Outcome>, String> pathFrom;
    private final int[] after;
    private final HttpFields headers;
    private final byte[] body;
    private final ExchangeListener listener;
    private final CallOptions options;

    private Call(Builder b) {
        this.partner = b.partner;
        this.method = b.method;
        this.pathAndQuery = b.pathAndQuery;
        this.pathFrom = b.pathFrom;
        this.after = b.after;
        this.headers = b.headers;
        this.body = b.body;
        this.listener = b.listener;
        this.options = b.options;
    }

    /** A GET of the partner's base URI, until the builder says otherwise. */
    public static Builder to(String partner) {
        return new Builder(partner);
    }

    public String partner() {
        return partner;
    }

    /** Upper case: {@code GET}, {@code POST}, … */
    public String method() {
        return method;
    }

    /** The path and query under the partner's base URI; null for a call whose path is made from outcomes. */
    public String pathAndQuery() {
        return pathAndQuery;
    }

    /** Whether the call's failure ends its fan-out at once ({@link CallOptions#required()}). */
    public boolean required() {
        return options.required();
    }

    /** True for a call made only once the calls it comes {@linkplain Builder#after after} have ended. */
    public boolean chained() {
        return after.length > 0;
    }

    /** This call with another listener: for a caller that describes its calls before it knows who listens. */
    public Call withListener(ExchangeListener listener) {
        return new Call(this, listener == null ? ExchangeListener.NONE : listener);
    }

    private Call(Call call, ExchangeListener listener) {
        this.partner = call.partner;
        this.method = call.method;
        this.pathAndQuery = call.pathAndQuery;
        this.pathFrom = call.pathFrom;
        this.after = call.after;
        this.headers = call.headers;
        this.body = call.body;
        this.listener = listener;
        this.options = call.options;
    }

    /** The indexes of the calls it comes after; the array itself: never change it. */
    int[] after() {
        return after;
    }

    /** The path and query once the calls it comes after have ended ({@code outcomes} in {@link #after} order). */
    String pathAndQuery(List<Outcome> outcomes) {
        return pathFrom == null ? pathAndQuery : pathFrom.apply(outcomes);
    }

    HttpFields headers() {
        return headers;
    }

    byte[] body() {
        return body;
    }

    ExchangeListener listener() {
        return listener;
    }

    CallOptions options() {
        return options;
    }

    @Override
    public String toString() {
        return method + " " + partner + " " + (pathFrom == null ? pathAndQuery : "(made from calls "
                + Arrays.toString(after) + ")") + (options.required() ? " required" : "");
    }

    /**
     * A call being described; each setting is checked as it is set, the whole by {@link #build()}. Not
     * thread-safe; each {@code build()} makes a call of its own from what is set at that moment.
     */
    public static final class Builder {
        private final String partner;
        private String method = "GET";
        private String pathAndQuery = "";
        private Function<List<Outcome>, String> pathFrom;
        private int[] after = NOTHING;
        private HttpFields headers;
        /** Whether {@link #headers} is this builder's own list, which {@link #header} may add to. */
        private boolean ownHeaders;
        private byte[] body;
        private ExchangeListener listener = ExchangeListener.NONE;
        private CallOptions options = CallOptions.NONE;

        private Builder(String partner) {
            if (partner == null || partner.isEmpty()) {
                throw new IllegalArgumentException("partner: \"" + partner + "\" (accepted: a partner's name)");
            }
            this.partner = partner;
        }

        /** GET unless set: a token such as {@code HEAD} or {@code POST} (any case). */
        public Builder method(String method) {
            this.method = RequestRules.checkMethod(method);
            return this;
        }

        /**
         * The path and query under the partner's base URI, percent-encoded ({@code weather?city=Paris}; a
         * leading {@code /} is relative to the base path too). One that names a scheme or host, or leaves the
         * base path, is refused when the call is added or sent (the message says which).
         */
        public Builder path(String pathAndQuery) {
            if (pathAndQuery == null) {
                throw new IllegalArgumentException("path: null (accepted: a path and query, \"\" for the base URI)");
            }
            this.pathAndQuery = pathAndQuery;
            this.pathFrom = null;
            return this;
        }

        /**
         * The path and query made from the outcomes of the calls this one comes {@linkplain #after after}
         * (in that order), once they have ended. When {@code path} throws {@link IllegalArgumentException} (a
         * value it needed is missing) or makes a path the broker refuses, the call ends
         * {@link Outcome.Kind#SKIPPED} with that message and sends nothing.
         */
        public Builder path(Function<List<Outcome>, String> path) {
            if (path == null) {
                throw new IllegalArgumentException("path: null (accepted: a function of the earlier calls' outcomes)");
            }
            this.pathFrom = path;
            this.pathAndQuery = null;
            return this;
        }

        /**
         * Makes the call only once these calls have ended — the later stage of a chain: indexes of calls added
         * to the same fan-out before this one (in the order they were added). The fan-out's deadline covers
         * the whole chain: a call whose calls end after it ends TIMEOUT unsent; after a required call failed,
         * CANCELLED unsent.
         */
        public Builder after(int... calls) {
            if (calls == null || calls.length == 0) {
                throw new IllegalArgumentException("after: no call to wait for (accepted: one or more indexes)");
            }
            for (int call : calls) {
                if (call < 0) {
                    throw new IllegalArgumentException("after: " + call + " (accepted: the index of an earlier call)");
                }
            }
            this.after = calls.clone();
            return this;
        }

        /**
         * Adds a request header.
         *
         * @throws IllegalArgumentException for a hop-by-hop header or one the client sets itself
         *                                  ({@link BrokerClient#isRefusedHeader})
         */
        public Builder header(String name, String value) {
            RequestRules.checkHeader(name);
            ownHeaders().add(name, value);
            return this;
        }

        /**
         * The call's request headers, instead of any set before: each checked, none copied (do not change
         * {@code headers} afterwards).
         */
        public Builder headers(HttpFields headers) {
            if (headers != null) {
                for (HttpField field : headers) {
                    RequestRules.checkHeader(field.getName());
                }
            }
            this.headers = headers;
            this.ownHeaders = false;
            return this;
        }

        private HttpFields.Mutable ownHeaders() {
            if (!ownHeaders) {
                headers = headers == null ? HttpFields.build() : HttpFields.build(headers);
                ownHeaders = true;
            }
            return (HttpFields.Mutable) headers;
        }

        /**
         * The request's body (not copied: do not change it afterwards), sent with its {@code Content-Length};
         * set its {@code Content-Type} with {@link #header}. Only for methods that carry one: a GET or HEAD
         * with a body is refused. Such a call is never hedged or cached, and after a reset it is not retried
         * (its effect may have happened); after a failed connect it is, as nothing was sent.
         */
        public Builder body(byte[] body) {
            this.body = body;
            return this;
        }

        /** Where the exchange's Table 1 events go (none unless set). */
        public Builder listener(ExchangeListener listener) {
            this.listener = listener == null ? ExchangeListener.NONE : listener;
            return this;
        }

        /** Required, hedged, cached, its own timeout: all at once ({@link CallOptions}; none unless set). */
        public Builder options(CallOptions options) {
            this.options = options == null ? CallOptions.NONE : options;
            return this;
        }

        /** When this call fails, its fan-out ends at once and cancels the others ({@link CallOptions#required()}). */
        public Builder required() {
            this.options = options.withRequired(true);
            return this;
        }

        /** A bound of its own, shorter than the partner's {@code callTimeout} ({@link CallOptions#timeout()}). */
        public Builder timeout(Duration timeout) {
            this.options = options.withTimeout(timeout);
            return this;
        }

        /** Another attempt when none has answered in time; GET and HEAD only ({@link Hedging}). */
        public Builder hedging(Hedging hedging) {
            this.options = options.withHedging(hedging);
            return this;
        }

        /** Answers served from the partner's cache for a while; GET and HEAD only ({@link Caching}). */
        public Builder caching(Caching caching) {
            this.options = options.withCaching(caching);
            return this;
        }

        /**
         * The call as set now.
         *
         * @throws IllegalArgumentException for a path made from outcomes without the calls it comes after, a
         *                                  body on a GET or HEAD, or hedging or caching of a method that changes
         *                                  something (the message says which)
         */
        public Call build() {
            if (pathFrom != null && after.length == 0) {
                throw new IllegalArgumentException("path: made from outcomes, but the call comes after no call "
                        + "(accepted: with after(…))");
            }
            boolean read = method.equals("GET") || method.equals("HEAD");
            if (options.hedging() != null && !read) {
                throw new IllegalArgumentException("method " + method + " cannot be hedged (accepted: GET, HEAD): a "
                        + "second attempt would repeat its effect");
            }
            if (options.caching() != null && !read) {
                throw new IllegalArgumentException("method " + method + " cannot be cached (accepted: GET, HEAD)");
            }
            if (body != null && read) {
                throw new IllegalArgumentException("method " + method + " carries no body (accepted with a body: "
                        + "POST, PUT, PATCH, …)");
            }
            // The call keeps this list: a header set after this goes to a copy.
            ownHeaders = false;
            return new Call(this);
        }
    }
}
