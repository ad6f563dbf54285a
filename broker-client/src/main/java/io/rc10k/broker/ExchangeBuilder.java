package io.rc10k.broker;

import java.util.Locale;
import org.eclipse.jetty.http.HttpFields;

/**
 * An exchange not yet started, from {@link BrokerClient#newExchange(String)}: its method, path and
 * query, headers, listener and options, each checked when it is set. Nothing is sent before
 * {@link #start()}, or before the {@link FanOut} it was {@linkplain FanOut#add(ExchangeBuilder) added}
 * to starts.
 *
 * <pre>{@code
 * Outcome weather = broker.newExchange("weather")
 *         .path("weather?city=Paris")
 *         .header("Accept-Language", "fr")
 *         .start()
 *         .await();
 * }</pre>
 *
 * <p>Not thread-safe: build it on one thread. Each {@code start()} (or {@code add}) takes what is set at
 * that moment and makes an exchange of its own.</p>
 */
public final class ExchangeBuilder {
    private final BrokerClient broker;
    private final String partner;
    private String method = "GET";
    private String pathAndQuery = "";
    private HttpFields.Mutable headers;
    private ExchangeListener listener = ExchangeListener.NONE;
    private CallOptions options = CallOptions.NONE;
    private byte[] body;

    ExchangeBuilder(BrokerClient broker, String partner) {
        this.broker = broker;
        this.partner = partner;
    }

    /** GET unless set: a token such as {@code HEAD} or {@code POST} (any case). */
    public ExchangeBuilder method(String method) {
        BrokerClient.checkMethod(method);
        this.method = method.toUpperCase(Locale.ROOT);
        return this;
    }

    /**
     * The path and query under the partner's base URI, percent-encoded ({@code weather?city=Paris}; a
     * leading {@code /} is relative to the base path too).
     *
     * @throws IllegalArgumentException for a call the broker would refuse: one that names a scheme or
     *                                  host, or leaves the base path (the message says which)
     */
    public ExchangeBuilder path(String pathAndQuery) {
        broker.resolve(partner, pathAndQuery);
        this.pathAndQuery = pathAndQuery;
        return this;
    }

    /**
     * Adds a request header.
     *
     * @throws IllegalArgumentException for a hop-by-hop header or one the client sets itself
     *                                  ({@link BrokerClient#isRefusedHeader})
     */
    public ExchangeBuilder header(String name, String value) {
        BrokerClient.checkHeader(name);
        if (headers == null) {
            headers = HttpFields.build();
        }
        headers.add(name, value);
        return this;
    }

    /** Where the exchange's Table 1 events go (none unless set). */
    public ExchangeBuilder listener(ExchangeListener listener) {
        this.listener = listener == null ? ExchangeListener.NONE : listener;
        return this;
    }

    /** Required, hedged, cached ({@link CallOptions}; none unless set). */
    public ExchangeBuilder options(CallOptions options) {
        this.options = options == null ? CallOptions.NONE : options;
        return this;
    }

    /**
     * The request's body (not copied: do not change it afterwards), sent with its {@code Content-Length};
     * set its {@code Content-Type} with {@link #header}. Only for methods that carry one: a GET or HEAD
     * with a body is refused when the exchange is made. Such a call is never hedged or cached, and after
     * a reset it is not retried (its effect may have happened); after a failed connect it is, as nothing
     * was sent.
     */
    public ExchangeBuilder body(byte[] body) {
        this.body = body;
        return this;
    }

    /** Starts the exchange now. */
    public Exchange start() {
        return broker.exchange(partner, method, pathAndQuery, headers, body, listener, options);
    }

    String partner() {
        return partner;
    }

    String method() {
        return method;
    }

    String pathAndQuery() {
        return pathAndQuery;
    }

    HttpFields headers() {
        return headers;
    }

    ExchangeListener listener() {
        return listener;
    }

    byte[] body() {
        return body;
    }

    CallOptions options() {
        return options;
    }
}
