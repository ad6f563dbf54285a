package io.rc10k.broker;

import java.util.Locale;

/**
 * How calls are spread over a partner's hosts ({@link Partner.Builder#hosts}).
 *
 * <pre>{@code
 * Partner.builder("quotes", "http://10.0.0.1:9002").hosts(List.of("http://10.0.0.1:9002", "http://10.0.0.2:9002"))
 *         .balancing(Balancing.ROUND_ROBIN).build();
 * }</pre>
 */
public enum Balancing {
    /** To the host with the fewest calls out now (ties taken in turn): a slow host gets fewer. */
    LEAST_IN_FLIGHT,
    /** To each host in turn. */
    ROUND_ROBIN;

    /** Parses {@code least_in_flight} or {@code round_robin} (any case, {@code -} for {@code _}). */
    public static Balancing parse(String text) {
        return switch (text.toLowerCase(Locale.ROOT).replace('-', '_')) {
            case "least_in_flight" -> LEAST_IN_FLIGHT;
            case "round_robin" -> ROUND_ROBIN;
            default -> throw new IllegalArgumentException("balancing: \"" + text
                    + "\" (accepted: least_in_flight, round_robin)");
        };
    }
}
