package io.rc10k.broker;

import java.util.Locale;

/**
 * How the broker speaks to a partner.
 *
 * <pre>{@code
 * Partner.builder("quotes", "http://127.0.0.1:9002").protocol(Protocol.H2C).build();
 * }</pre>
 */
public enum Protocol {
    /** HTTP/1.1: one exchange per connection at a time; over TLS for an {@code https} partner. */
    HTTP_1_1,
    /** Cleartext HTTP/2 with prior knowledge: many exchanges multiplexed on each connection. */
    H2C,
    /** HTTP/2 over TLS, agreed by ALPN ({@code https} partners): multiplexed as h2c is. */
    H2;

    /**
     * Parses {@code http/1.1}, {@code h2c} or {@code h2} (any case). {@code h2} and {@code http/2}
     * name HTTP/2 whatever the scheme: h2 over TLS for an {@code https} partner, h2c for an
     * {@code http} one ({@link Partner.Builder#build()} settles it).
     */
    public static Protocol parse(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "http/1.1", "http_1_1", "h1" -> HTTP_1_1;
            case "h2c" -> H2C;
            case "h2", "http/2" -> H2;
            default -> throw new IllegalArgumentException("protocol: \"" + text + "\" (accepted: http/1.1, h2c, h2)");
        };
    }

    /** Whether exchanges share a connection (HTTP/2), so a pool holds streams as well as connections. */
    public boolean multiplexed() {
        return this != HTTP_1_1;
    }
}
