package io.rc10k.benchmarks.capacity;

import java.net.URI;
import java.util.List;
import java.util.Locale;

/**
 * The definitions an {@link Outbound100k} run serves: one h2c partner per stub process, each with room for
 * all its streams at once, and one mashup {@code /mashup/fan} of C calls to {@code /stub?delay={delay}}, dealt
 * to the partners in turn. The delay is the inbound request's parameter, so that a warm-up can ask for 0.
 */
final class OutboundDefinitions {
    /** The mashup's path; its one parameter is {@code delay}, in milliseconds. */
    static final String PATH = "/mashup/fan";

    private OutboundDefinitions() {
    }

    /**
     * Each partner: enough connections of {@code streams} streams for N mashups' calls, a queue as long for
     * the calls that wait while connections open, the circuit breaker off and connects allowed 10 s — opening
     * hundreds of connections at once on a busy 2-core box may time some out, and an open breaker would turn
     * the rest of the run into instant failures that hold nothing.
     */
    static String json(Outbound100k.Settings settings, List<URI> stubs) {
        StringBuilder json = new StringBuilder("{\"partners\":{");
        for (int p = 0; p < settings.partners(); p++) {
            json.append(p > 0 ? "," : "").append(String.format(Locale.ROOT, "\"p%d\":{\"baseUri\":\"%s\","
                            + "\"protocol\":\"h2c\",\"maxConnections\":%d,\"maxStreamsPerConnection\":%d,"
                            + "\"maxQueued\":%d,\"callTimeoutMillis\":%d,\"connectTimeoutMillis\":10000,"
                            + "\"circuitBreaker\":{\"enabled\":false}}",
                    p + 1, stubs.get(p), settings.connectionsTo(p), settings.streams(),
                    (long) settings.inbound() * settings.callsTo(p), settings.deadlineMillis()));
        }
        json.append("},\"mashups\":{\"fan\":{\"deadlineMillis\":").append(settings.deadlineMillis())
                .append(",\"parameters\":{\"delay\":{\"required\":true}},\"calls\":[");
        for (int k = 1; k <= settings.calls(); k++) {
            json.append(k > 1 ? "," : "").append(String.format(Locale.ROOT,
                    "{\"name\":\"c%d\",\"partner\":\"p%d\",\"template\":\"/stub?delay={delay}&id=%d\"}", k,
                    (k - 1) % settings.partners() + 1, k));
        }
        return json.append("]}}}").toString();
    }
}
