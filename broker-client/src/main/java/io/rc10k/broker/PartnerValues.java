package io.rc10k.broker;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.http.HttpFields;

/**
 * Every value of one {@link Partner}, as its builder checked them: the immutable snapshot the partner reads
 * from, and its text. Header values may be credentials: they leave it only for the wire ({@link #headers()}),
 * and its text names the headers only.
 *
 * @param baseUris the partner's hosts, the first being its base URI; an immutable list
 * @param headers  sent on every call; immutable
 */
record PartnerValues(String name, List<URI> baseUris, Balancing balancing, Ejection ejection, Protocol protocol,
        PartnerTls tls, HttpFields headers, int maxConnections, int maxQueued, int maxStreamsPerConnection,
        Duration connectTimeout, Duration callTimeout, Duration idleTimeout, long maxResponseBytes, int retries,
        CircuitBreakerSettings circuitBreaker, int cacheMaxEntries, long cacheMaxBytes) {

    URI baseUri() {
        return baseUris.get(0);
    }

    boolean secure() {
        return "https".equals(baseUri().getScheme());
    }

    List<String> headerNames() {
        List<String> names = new ArrayList<>();
        headers.forEach(field -> names.add(field.getName()));
        return names;
    }

    @Override
    public String toString() {
        return "Partner{" + name + " " + (baseUris.size() == 1 ? baseUri() : baseUris + " " + balancing) + " " + protocol + (secure() ? " " + tls : "")
                + (headers.size() == 0 ? "" : ", headers=" + headerNames() + " (values hidden)") + ", maxConnections=" + maxConnections
                + ", maxQueued=" + maxQueued + ", connectTimeout=" + connectTimeout.toMillis() + "ms, callTimeout="
                + callTimeout.toMillis() + "ms, idleTimeout=" + idleTimeout.toMillis() + "ms, maxResponseBytes="
                + maxResponseBytes + ", retries=" + retries + "}";
    }
}
