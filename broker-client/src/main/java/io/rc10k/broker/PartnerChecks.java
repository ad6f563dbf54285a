package io.rc10k.broker;

import io.rc10k.broker.internal.TlsMaterial;
import java.net.URI;
import java.time.Duration;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpFields;

/** The checks {@link Partner.Builder} makes of each value; every message names the partner, the field and the value. */
final class PartnerChecks {
    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,63}");

    private PartnerChecks() {
    }

    static String name(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name: \"" + name + "\" (accepted: a letter, then letters, digits,"
                    + " _ or -, at most 64)");
        }
        return name;
    }

    /** A header to send on every call: one the client may not set, a second of a name, or a broken value fails. */
    static void header(String partner, HttpFields headers, String name, String value) {
        RequestRules.checkHeader(name);
        if (headers.contains(name)) {
            throw new IllegalArgumentException(partner + ".headers." + name + ": given twice");
        }
        if (value == null || value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0 || value.indexOf('\0') >= 0) {
            // The value itself stays out of the message: it may be a credential.
            throw new IllegalArgumentException(partner + ".headers." + name + ": the value is missing or holds "
                    + "a line break or NUL (accepted: one line of text)");
        }
    }

    static int atLeast(String partner, String field, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(partner + "." + field + ": " + value + " < " + min);
        }
        return value;
    }

    static long between(String partner, String field, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(partner + "." + field + ": " + value + " (accepted: " + min + " to "
                    + max + ")");
        }
        return value;
    }

    static Duration positive(String partner, String field, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(partner + "." + field + ": " + value + " (accepted: > 0)");
        }
        return value;
    }

    /** Positive and at most {@code max} (so that it fits a count of nanoseconds). */
    static Duration positive(String partner, String field, Duration value, Duration max) {
        if (value == null || value.isNegative() || value.isZero() || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(partner + "." + field + ": " + value + " (accepted: > 0 and at most "
                    + max + ")");
        }
        return value;
    }

    /**
     * The protocol and TLS settings checked against the scheme: h2c only in cleartext, TLS settings only
     * with https (and their files readable). Returns the protocol to use: h2 names h2c for an http partner.
     */
    static Protocol secured(String partner, URI baseUri, Protocol protocol, PartnerTls tls) {
        boolean secure = "https".equals(baseUri.getScheme());
        if (protocol == Protocol.H2C && secure) {
            throw new IllegalArgumentException(partner + ".protocol: h2c is cleartext HTTP/2 but baseUri is " + baseUri
                    + " (accepted for https: http/1.1, h2)");
        }
        if (!secure && !tls.equals(PartnerTls.DEFAULT)) {
            throw new IllegalArgumentException(partner + ".tls: given for " + baseUri + " (accepted: only with https)");
        }
        if (secure) {
            TlsMaterial.check(partner, tls);
        }
        // HTTP/2 without TLS has no ALPN to agree on it: prior knowledge, as h2c.
        return protocol == Protocol.H2 && !secure ? Protocol.H2C : protocol;
    }
}
