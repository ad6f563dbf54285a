package io.rc10k.benchmarks.peers;

import io.rc10k.benchmarks.peers.HttpsPartners.Kind;
import java.util.List;

/**
 * One row of {@link HttpsCost}: how the C calls reach the partner. The rows, in the order measured, are
 * {@link #VARIANTS}; each mashup server row has a partner and two mashups of its own in one definitions file
 * ({@link #definitionsJson}).
 *
 * @param name      the row's name
 * @param slug      its mashup's and partner's name in the definitions, and its name on the command line
 * @param jettyPeer the fan-out of {@link JettyFanOut} (Jetty's client without the mashup server) instead of
 *                  the mashup server
 * @param stub      the stub process called
 * @param protocol  the partner's {@code protocol} in the definitions
 * @param close     whether the stub ends each connection after its answer ({@code close=true})
 * @param twin      the row that differs only by TLS, divided into this one's CPU per mashup; null for none
 */
record HttpsVariant(String name, String slug, boolean jettyPeer, Kind stub, String protocol, boolean close,
        String twin) {
    /** The row every other is divided by. */
    static final String BASELINE = "http/1.1";
    /** Every row, in the order measured. */
    static final List<HttpsVariant> VARIANTS = List.of(
            new HttpsVariant(BASELINE, "http1", false, Kind.CLEAR, "http/1.1", false, null),
            new HttpsVariant("h2c", "h2c", false, Kind.CLEAR, "h2c", false, null),
            new HttpsVariant("https http/1.1", "https1", false, Kind.TLS, "http/1.1", false, BASELINE),
            new HttpsVariant("https h2", "https-h2", false, Kind.TLS, "h2", false, "h2c"),
            new HttpsVariant("http/1.1, a connection per call", "http1-close", false, Kind.CLEAR, "http/1.1", true,
                    null),
            new HttpsVariant("https http/1.1, a connection per call", "https1-close", false, Kind.TLS, "http/1.1",
                    true, "http/1.1, a connection per call"),
            new HttpsVariant("https http/1.1, a connection per call, no resumption", "https1-full", false,
                    Kind.TLS_FULL, "http/1.1", true, "http/1.1, a connection per call"),
            new HttpsVariant("jetty-peer http/1.1", "jetty-peer", true, Kind.CLEAR, "http/1.1", false, null),
            new HttpsVariant("jetty-peer https http/1.1", "jetty-peer-https", true, Kind.TLS, "http/1.1", false,
                    "jetty-peer http/1.1"));

    /**
     * The deadline, call and connect timeouts of every mashup and partner: far past what a call takes, so that
     * a loaded machine (a cold JVM's first full handshakes) slows the rows but never fails a mashup; the
     * figures are CPU, not latency.
     */
    static final int PATIENCE_MILLIS = 30_000;

    /** What the stub's {@code /echo} reports as the protocol of a call. */
    String echoedProtocol() {
        return protocol.equals("http/1.1") ? "HTTP/1.1" : "HTTP/2.0";
    }

    /** The baseline, then the variants {@code slugs} name, in the order of {@link #VARIANTS}. */
    static List<HttpsVariant> of(List<String> slugs) {
        for (String slug : slugs) {
            if (VARIANTS.stream().noneMatch(v -> v.slug().equals(slug))) {
                throw new IllegalArgumentException("--variants: " + slug + " (accepted: " + String.join(", ", slugs())
                        + ")");
            }
        }
        return VARIANTS.stream().filter(v -> v.name().equals(BASELINE) || slugs.contains(v.slug())).toList();
    }

    /** Every variant's name on the command line. */
    static List<String> slugs() {
        return VARIANTS.stream().map(HttpsVariant::slug).toList();
    }

    /** The row that differs from {@code name}'s only by TLS; null for none or an unknown name. */
    static String twinOf(String name) {
        return VARIANTS.stream().filter(v -> v.name().equals(name)).findFirst().map(HttpsVariant::twin).orElse(null);
    }

    /**
     * One partner per mashup server variant and two mashups: {@code /mashup/SLUG}, whose C calls GET {@code /stub}
     * (with {@code close=true} where the variant keeps no connection), and {@code /mashup/check-SLUG}, one GET of
     * {@code /echo} that tells how the calls arrive.
     */
    static String definitionsJson(HttpsPartners stubs, int calls) {
        StringBuilder partners = new StringBuilder();
        StringBuilder mashups = new StringBuilder();
        for (HttpsVariant v : VARIANTS.stream().filter(v -> !v.jettyPeer()).toList()) {
            String separator = partners.isEmpty() ? "" : ",";
            partners.append(separator).append('"').append(v.slug()).append("\":{\"baseUri\":\"")
                    .append(stubs.get(v.stub()).uri()).append("\",\"protocol\":\"").append(v.protocol())
                    .append("\",\"maxConnections\":256,\"connectTimeoutMillis\":").append(PATIENCE_MILLIS)
                    .append(",\"callTimeoutMillis\":").append(PATIENCE_MILLIS).append('}');
            mashups.append(separator).append('"').append(v.slug()).append("\":{\"deadlineMillis\":")
                    .append(PATIENCE_MILLIS).append(",\"calls\":[");
            for (int k = 1; k <= calls; k++) {
                mashups.append(k > 1 ? "," : "").append("{\"name\":\"p").append(k).append("\",\"partner\":\"")
                        .append(v.slug()).append("\",\"template\":\"/stub").append(v.close() ? "?close=true" : "")
                        .append("\"}");
            }
            mashups.append("]},\"check-").append(v.slug()).append("\":{\"calls\":[{\"name\":\"echo\",\"partner\":\"")
                    .append(v.slug()).append("\",\"template\":\"/echo\"}]}");
        }
        return "{\"partners\":{" + partners + "},\"mashups\":{" + mashups + "}}";
    }
}
