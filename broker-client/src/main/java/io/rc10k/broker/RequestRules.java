package io.rc10k.broker;

import java.util.Locale;
import java.util.Set;

/**
 * What a caller may put in a partner request: a method token, and no header that would redirect or re-frame
 * the request. The one place of these rules: {@link Call.Builder} and {@link Partner.Builder} check with them,
 * and mashup definitions may not forward a header they refuse ({@link BrokerClient#isRefusedHeader}).
 */
final class RequestRules {
    /** Headers a caller may not set: they would redirect or re-frame the request. */
    private static final Set<String> REFUSED_HEADERS = Set.of("host", "content-length", "transfer-encoding",
            "connection", "upgrade", "te", "trailer", "keep-alive", "expect", "proxy-authorization",
            "proxy-authenticate", "proxy-connection");

    private RequestRules() {
    }

    static boolean isRefusedHeader(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return REFUSED_HEADERS.contains(lower) || lower.startsWith("proxy-");
    }

    static void checkHeader(String name) {
        if (name == null || isRefusedHeader(name)) {
            throw new IllegalArgumentException("header \"" + name + "\" may not be set by a caller: it is hop-by-hop "
                    + "or set by the client");
        }
    }

    /** The method in upper case, when it is one to twenty ASCII letters: every method a partner call may use. */
    static String checkMethod(String method) {
        if (method == null || method.isEmpty() || method.length() > 20) {
            throw notAMethod(method);
        }
        for (int i = 0; i < method.length(); i++) {
            char c = method.charAt(i);
            if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z')) {
                throw notAMethod(method);
            }
        }
        return method.toUpperCase(Locale.ROOT);
    }

    private static IllegalArgumentException notAMethod(String method) {
        return new IllegalArgumentException("method: \"" + method + "\" (accepted: GET, HEAD, POST, …)");
    }
}
