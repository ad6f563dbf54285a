package io.rc10k.broker.internal;

import io.rc10k.broker.Partner;
import java.net.URI;
import java.net.URISyntaxException;

/**
 * Where a call's path and query lead: always under its partner's base URI. Whatever would change the
 * scheme, host or port, or climb out of the base path — once decoded by some partner server — is refused
 * with a message that says why. Stateless and thread-safe.
 *
 * <pre>{@code
 * CallUris.resolve(partner, "weather?city=Paris")   // http://127.0.0.1:9001/api/weather?city=Paris
 * CallUris.resolve(partner, "../admin")             // IllegalArgumentException
 * }</pre>
 */
public final class CallUris {
    private CallUris() {
    }

    /** Resolves and checks a call path once: a path that passed before is taken from the partner's memory. */
    public static URI resolve(PartnerState state, String pathAndQuery) {
        URI uri = state.resolvedBefore(pathAndQuery);
        if (uri == null) {
            uri = resolve(state.partner(), pathAndQuery);
            state.remember(pathAndQuery, uri);
        }
        return uri;
    }

    /**
     * Resolves {@code pathAndQuery} under the partner's base path. A leading {@code /} is relative to
     * the base path too; anything that would change scheme, host or port is refused.
     */
    public static URI resolve(Partner partner, String pathAndQuery) {
        String relative = pathAndQuery.startsWith("/") ? pathAndQuery.substring(1) : pathAndQuery;
        URI base = partner.baseUri();
        refuseDotSegments(partner, pathAndQuery, relative);
        URI uri;
        try {
            URI reference = new URI(relative);
            if (reference.getScheme() != null || reference.getRawAuthority() != null) {
                throw new IllegalArgumentException("call to " + partner.name() + ": \"" + pathAndQuery
                        + "\" names a scheme or host; calls are paths under " + base);
            }
            uri = base.resolve(reference);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("call to " + partner.name() + ": \"" + pathAndQuery
                    + "\" is not a percent-encoded path and query (" + e.getReason() + ")");
        }
        if (!base.getRawAuthority().equals(uri.getRawAuthority()) || !uri.getRawPath().startsWith(base.getRawPath())) {
            throw new IllegalArgumentException("call to " + partner.name() + ": \"" + pathAndQuery
                    + "\" leaves the partner's base URI " + base);
        }
        return uri;
    }

    /**
     * Refuses path segments that some partner servers would treat as {@code .}, {@code ..} or a
     * separator once decoded: {@code %2e%2e}, {@code ..;}, {@code %2F}, {@code %5C}, {@code \}.
     */
    private static void refuseDotSegments(Partner partner, String pathAndQuery, String relative) {
        int query = relative.indexOf('?');
        int end = query < 0 ? relative.length() : query;
        int start = 0;
        while (start <= end) {
            int slash = relative.indexOf('/', start);
            int segmentEnd = slash < 0 || slash > end ? end : slash;
            if (unsafeSegment(relative, start, segmentEnd)) {
                throw new IllegalArgumentException("call to " + partner.name() + ": \"" + pathAndQuery
                        + "\" has a dot, separator or parameter segment that could leave the base path");
            }
            start = segmentEnd + 1;
        }
    }

    /** A parameter, a backslash or an encoded separator anywhere, or a segment of one or two (encoded) dots. */
    private static boolean unsafeSegment(String s, int from, int to) {
        int dots = 0;
        boolean onlyDots = true;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c == ';' || c == '\\') {
                return true;
            }
            if (c == '%' && i + 2 < to) {
                char hi = s.charAt(i + 1);
                char lo = Character.toLowerCase(s.charAt(i + 2));
                if (hi == '2' && lo == 'f' || hi == '5' && lo == 'c') {
                    return true;
                }
                if (hi == '2' && lo == 'e') {
                    dots++;
                    i += 2;
                    continue;
                }
            }
            if (c == '.') {
                dots++;
            } else {
                onlyDots = false;
            }
        }
        return onlyDots && (dots == 1 || dots == 2);
    }
}
