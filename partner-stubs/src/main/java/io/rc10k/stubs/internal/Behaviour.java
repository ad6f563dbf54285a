package io.rc10k.stubs.internal;

import io.rc10k.stubs.StubOptions;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.eclipse.jetty.util.Fields;

/**
 * What one request asked the stub to do, parsed and validated from its query string.
 *
 * @param delay      how long to wait before answering
 * @param seed       when not null, the delay is drawn from a generator seeded with it (reproducible per request)
 * @param bytes      the exact body size asked for, or -1 for the default body
 * @param status     the response status
 * @param fault      the misbehaviour, or null
 * @param dripBytes  bytes per write when {@code fault=drip}
 * @param dripMillis pause between writes when {@code fault=drip}
 * @param id         an opaque tag echoed in the body, or null
 * @param city       the city of a named partner, or null on {@code /stub}
 * @param chunked    send no {@code Content-Length} (HTTP/1.1: chunked transfer coding)
 * @param cookie     {@code NAME=VALUE} to send back in a {@code Set-Cookie}, or null
 * @param stamp      put {@code receivedAtMicros} in the body: when the stub received the request, in
 *                   microseconds of its own monotonic clock (comparable between requests to one stub)
 * @param close      answer with {@code Connection: close} and end the connection after the answer (HTTP/1.1
 *                   only), so a client pays a new connection — and over TLS a handshake — for every call
 */
public record Behaviour(Delay delay, Long seed, long bytes, int status, Fault fault, int dripBytes,
        long dripMillis, String id, String city, boolean chunked, String cookie, long firstDelay, String cacheControl,
        boolean stamp, boolean close) {
    private static final Pattern CACHE_CONTROL = Pattern.compile("[a-z-]+(=[0-9]{1,9})?(, ?[a-z-]+(=[0-9]{1,9})?){0,7}");
    private static final Pattern COOKIE = Pattern.compile("[A-Za-z0-9_-]{1,64}=[A-Za-z0-9_.-]{0,128}");

    public static final int DEFAULT_DRIP_BYTES = 8;
    public static final long DEFAULT_DRIP_MILLIS = 10;
    static final int MAX_DRIP_BYTES = 65_536;
    static final long MAX_DRIP_MILLIS = 10_000;
    static final int MAX_ID_LENGTH = 256;
    static final long MAX_DRIP_WRITES = 1_000_000;
    static final int MAX_CITY_LENGTH = 100;
    private static final Pattern CITY = Pattern.compile("[\\p{L}][\\p{L} .'\\-]*");

    private static final List<String> COMMON = List.of("delay", "dist", "sigma", "seed", "status", "fault",
            "dripBytes", "dripMillis", "id", "chunked", "cookie", "firstDelay",
            "cacheControl", "stamp", "close");

    /** Parses the query of a {@code /stub} request ({@code city == false}) or of a named partner. */
    public static Behaviour parse(Fields query, boolean namedPartner) throws BadParameterException {
        Set<String> accepted = new LinkedHashSet<>(COMMON);
        accepted.add(namedPartner ? "city" : "bytes");
        for (String name : query.getNames()) {
            if (!accepted.contains(name)) {
                throw new BadParameterException(abbreviate(name), abbreviate(single(query, name, true)),
                        "only the parameters "
                        + String.join(", ", accepted));
            }
        }

        long mean = longParam(query, "delay", 0, 0, StubOptions.MAX_DELAY_MILLIS, "milliseconds");
        String distValue = single(query, "dist", false);
        Delay.Distribution dist = distValue == null ? Delay.Distribution.FIXED : Delay.Distribution.parse(distValue);
        String sigmaValue = single(query, "sigma", false);
        double sigma = Delay.DEFAULT_SIGMA;
        if (sigmaValue != null) {
            if (dist != Delay.Distribution.LOGNORMAL) {
                throw new BadParameterException("sigma", sigmaValue, "only with dist=lognormal");
            }
            sigma = doubleParam("sigma", sigmaValue, 0.01, 4.0);
        }
        String seedValue = single(query, "seed", false);
        Long seed = seedValue == null ? null : longParam(query, "seed", 0, Long.MIN_VALUE, Long.MAX_VALUE, "");

        long bytes = -1;
        if (!namedPartner) {
            bytes = longParam(query, "bytes", -1, 2, StubOptions.MAX_BODY_BYTES, "bytes");
        }
        int status = (int) longParam(query, "status", 200, 200, 599, "an HTTP status");
        String faultValue = single(query, "fault", false);
        Fault fault = faultValue == null ? null : Fault.parse(faultValue);

        int dripBytes = DEFAULT_DRIP_BYTES;
        long dripMillis = DEFAULT_DRIP_MILLIS;
        if (fault == Fault.DRIP) {
            dripBytes = (int) longParam(query, "dripBytes", DEFAULT_DRIP_BYTES, 1, MAX_DRIP_BYTES, "bytes per write");
            dripMillis = longParam(query, "dripMillis", DEFAULT_DRIP_MILLIS, 0, MAX_DRIP_MILLIS, "milliseconds");
        } else {
            for (String name : List.of("dripBytes", "dripMillis")) {
                String v = single(query, name, false);
                if (v != null) {
                    throw new BadParameterException(name, v, "only with fault=drip");
                }
            }
        }

        String id = single(query, "id", false);
        if (id != null && id.length() > MAX_ID_LENGTH) {
            throw new BadParameterException("id", abbreviate(id), "at most " + MAX_ID_LENGTH + " characters");
        }
        long firstDelay = longParam(query, "firstDelay", 0, 0, StubOptions.MAX_DELAY_MILLIS, "milliseconds");
        if (firstDelay > 0 && id == null) {
            throw new BadParameterException("firstDelay", Long.toString(firstDelay), "only with an id: the first "
                    + "request of each id waits firstDelay, later ones the usual delay");
        }
        String city = null;
        if (namedPartner) {
            city = single(query, "city", false);
            if (city == null) {
                throw new BadParameterException("city", null, "a city name, e.g. city=Paris (required)");
            }
            if (city.length() > MAX_CITY_LENGTH || !CITY.matcher(city).matches()) {
                throw new BadParameterException("city", abbreviate(city), "letters, spaces, '.', ''' and '-', "
                        + "starting with a letter, at most " + MAX_CITY_LENGTH + " characters");
            }
        }

        String chunkedValue = single(query, "chunked", false);
        if (chunkedValue != null && !chunkedValue.equals("true") && !chunkedValue.equals("false")) {
            throw new BadParameterException("chunked", abbreviate(chunkedValue), "true or false");
        }
        String cookie = single(query, "cookie", false);
        if (cookie != null && !COOKIE.matcher(cookie).matches()) {
            throw new BadParameterException("cookie", abbreviate(cookie), "NAME=VALUE of letters, digits, _ - (and . in"
                    + " the value)");
        }
        String cacheControl = single(query, "cacheControl", false);
        if (cacheControl != null && !CACHE_CONTROL.matcher(cacheControl).matches()) {
            throw new BadParameterException("cacheControl", abbreviate(cacheControl), "directives such as no-store or "
                    + "max-age=30, comma-separated");
        }
        String stampValue = single(query, "stamp", false);
        if (stampValue != null && !stampValue.equals("true") && !stampValue.equals("false")) {
            throw new BadParameterException("stamp", abbreviate(stampValue), "true or false");
        }
        String closeValue = single(query, "close", false);
        if (closeValue != null && !closeValue.equals("true") && !closeValue.equals("false")) {
            throw new BadParameterException("close", abbreviate(closeValue), "true or false");
        }
        return new Behaviour(new Delay(dist, mean, sigma), seed, bytes, status, fault, dripBytes,
                dripMillis, id, city, "true".equals(chunkedValue), cookie, firstDelay, cacheControl,
                "true".equals(stampValue), "true".equals(closeValue));
    }

    /**
     * Bounds a drip by the body it will really send: at most {@link #MAX_DRIP_WRITES} writes, done
     * within the longest delay, so no request holds a connection or the pool longer than that.
     */
    public void checkDrip(long bodySize) throws BadParameterException {
        if (fault != Fault.DRIP) {
            return;
        }
        long writes = (bodySize + dripBytes - 1) / dripBytes;
        if (writes > MAX_DRIP_WRITES) {
            throw new BadParameterException("dripBytes", Integer.toString(dripBytes), "at least "
                    + ((bodySize + MAX_DRIP_WRITES - 1) / MAX_DRIP_WRITES) + " for a " + bodySize
                    + "-byte body (at most " + MAX_DRIP_WRITES + " writes)");
        }
        if (writes * dripMillis > StubOptions.MAX_DELAY_MILLIS) {
            throw new BadParameterException("dripMillis", Long.toString(dripMillis), "a pause that sends the "
                    + bodySize + "-byte body within " + StubOptions.MAX_DELAY_MILLIS + " ms in writes of " + dripBytes
                    + " bytes (raise dripBytes or lower dripMillis)");
        }
    }

    private static String single(Fields query, String name, boolean any) throws BadParameterException {
        List<String> values = query.getValuesOrEmpty(name);
        if (values.isEmpty()) {
            return null;
        }
        if (values.size() > 1 && !any) {
            throw new BadParameterException(name, abbreviate(String.join(",", values)), "the parameter once, not "
                    + values.size() + " times");
        }
        return values.get(0);
    }

    private static long longParam(Fields query, String name, long absent, long min, long max, String unit)
            throws BadParameterException {
        String value = single(query, name, false);
        if (value == null) {
            return absent;
        }
        String accepted = "an integer from " + min + " to " + max + (unit.isEmpty() ? "" : " (" + unit + ")");
        if (min == Long.MIN_VALUE) {
            accepted = "an integer";
        }
        return integer(name, value, min, max, accepted);
    }

    /** {@code value} as an integer from {@code min} to {@code max}; else a failure naming {@code name}. */
    static long integer(String name, String value, long min, long max, String accepted) throws BadParameterException {
        try {
            long n = Long.parseLong(value);
            if (n < min || n > max) {
                throw new BadParameterException(name, value, accepted);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new BadParameterException(name, abbreviate(value), accepted);
        }
    }

    private static double doubleParam(String name, String value, double min, double max)
            throws BadParameterException {
        String accepted = "a number from " + min + " to " + max;
        try {
            double d = Double.parseDouble(value);
            if (!(d >= min && d <= max)) {
                throw new BadParameterException(name, value, accepted);
            }
            return d;
        } catch (NumberFormatException e) {
            throw new BadParameterException(name, abbreviate(value), accepted);
        }
    }

    static String abbreviate(String value) {
        return value.length() <= 64 ? value : value.substring(0, 61) + "...";
    }
}
