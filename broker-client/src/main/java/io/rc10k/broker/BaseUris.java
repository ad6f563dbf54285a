package io.rc10k.broker;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a partner's base URI may be: {@code http[s]://host[:port][/base/path]}, without user info, query or
 * fragment, kept with a trailing {@code /} so that calls resolve under it; and when a partner is served from
 * several hosts, one scheme and base path for all, none listed twice. Messages name the field and the value.
 */
final class BaseUris {
    private BaseUris() {
    }

    /** The base URIs of {@code partner}'s hosts, in their order ({@link Partner.Builder#hosts}). */
    static List<URI> parseAll(String partner, List<String> baseUris) {
        if (baseUris == null || baseUris.isEmpty()) {
            throw new IllegalArgumentException(partner + ".baseUris: give at least one");
        }
        List<URI> parsed = new ArrayList<>();
        for (int i = 0; i < baseUris.size(); i++) {
            URI uri = parse(partner + ".baseUris[" + i + "]", baseUris.get(i));
            if (!parsed.isEmpty() && (!uri.getScheme().equals(parsed.get(0).getScheme())
                    || !uri.getRawPath().equals(parsed.get(0).getRawPath()))) {
                throw new IllegalArgumentException(partner + ".baseUris[" + i + "]: \"" + baseUris.get(i)
                        + "\" (accepted: the scheme and base path of baseUris[0], " + parsed.get(0) + ")");
            }
            if (parsed.contains(uri)) {
                throw new IllegalArgumentException(partner + ".baseUris[" + i + "]: \"" + baseUris.get(i)
                        + "\" is listed twice");
            }
            parsed.add(uri);
        }
        return parsed;
    }

    /** One base URI, normalized: the scheme in lower case, the path ending with {@code /}. */
    static URI parse(String field, String text) {
        URI uri;
        try {
            uri = URI.create(text);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(field + ": \"" + text + "\" is not a URI");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null || uri.getRawQuery() != null
                || uri.getRawFragment() != null || uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException(field + ": \"" + text + "\" (accepted: http[s]://host[:port]"
                    + "[/base/path], without user info, query or fragment)");
        }
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        if (!path.endsWith("/")) {
            path = path + "/";
        }
        return URI.create(scheme + "://" + uri.getRawAuthority() + path);
    }
}
