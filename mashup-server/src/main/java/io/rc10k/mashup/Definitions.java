package io.rc10k.mashup;

import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.Partner;
import io.rc10k.mashup.UriTemplate;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The partners and mashups a server serves. Built in Java or loaded from a definitions file (JSON,
 * docs/mashup-server.md); either way {@link Builder#build()} checks
 * everything and reports every problem at once, so a server never starts half-configured.
 *
 * <pre>{@code
 * Definitions definitions = Definitions.builder()
 *         .partner(Partner.builder("weather", "http://127.0.0.1:9001").build())
 *         .mashup(MashupDefinition.builder("forecast")
 *                 .parameter(ParameterDefinition.required("city"))
 *                 .call("weather", "weather", "/weather?city={city}")
 *                 .build())
 *         .build();
 * }</pre>
 */
public final class Definitions {
    public static final Duration MAX_DEADLINE = Duration.ofMinutes(10);
    public static final int MAX_CALLS = 64;
    /** The methods a call may use. */
    private static final List<String> METHODS = List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE");
    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,63}");
    private static final Pattern PARAMETER = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]{0,63}");
    private static final Pattern PATH = Pattern.compile("(/([A-Za-z0-9._~-]+|\\{[A-Za-z][A-Za-z0-9_.-]*\\}))+");
    private static final Set<String> RESERVED_PATHS = Set.of("/metrics", "/health", "/dashboard", "/dashboard/data");
    /** The broker refuses these (and every {@code Proxy-*}): they would redirect or re-frame a request. */
    /** Every call carries the server's own trace context; a forwarded copy would contradict it. */
    private static final Set<String> TRACE_CONTEXT = Set.of("traceparent", "tracestate");

    private final Map<String, Partner> partners;
    private final Map<String, MashupDefinition> mashups;

    private Definitions(Map<String, Partner> partners, Map<String, MashupDefinition> mashups) {
        this.partners = Map.copyOf(partners);
        this.mashups = Map.copyOf(mashups);
    }

    public static Builder builder() {
        return new Builder();
    }

    public Map<String, Partner> partners() {
        return partners;
    }

    public Map<String, MashupDefinition> mashups() {
        return mashups;
    }

    /** Names of the path variables of a mashup path, in order: {@code /mashup/x/{city}} has {@code city}. */
    public static List<String> pathVariables(String path) {
        List<String> names = new ArrayList<>();
        for (String segment : path.split("/")) {
            if (segment.startsWith("{") && segment.endsWith("}")) {
                names.add(segment.substring(1, segment.length() - 1));
            }
        }
        return names;
    }

    public static final class Builder {
        private final Map<String, Partner> partners = new LinkedHashMap<>();
        private final Map<String, MashupDefinition> mashups = new LinkedHashMap<>();
        private final List<String> problems = new ArrayList<>();
        /** Partner names a loader saw but could not build (already reported): calls naming them are not reported again. */
        private final Set<String> declared = new LinkedHashSet<>();

        private Builder() {
        }

        /** Marks a partner name as defined though it has problems of its own (reported separately). */
        public Builder declarePartner(String name) {
            declared.add(name);
            return this;
        }

        public Builder partner(Partner partner) {
            if (partners.putIfAbsent(partner.name(), partner) != null) {
                problems.add("partners." + partner.name() + ": defined twice");
            }
            return this;
        }

        public Builder mashup(MashupDefinition mashup) {
            if (mashups.putIfAbsent(mashup.name(), mashup) != null) {
                problems.add("mashups." + mashup.name() + ": defined twice");
            }
            return this;
        }

        /** A problem found before building (by a loader); reported with the rest. */
        public Builder problem(String problem) {
            problems.add(problem);
            return this;
        }

        public Definitions build() throws DefinitionException {
            List<String> all = new ArrayList<>(problems);
            if (mashups.isEmpty() && all.isEmpty()) {
                all.add("mashups: none defined (accepted: at least one)");
            }
            Set<String> paths = new HashSet<>();
            for (MashupDefinition mashup : mashups.values()) {
                check(mashup, paths, all);
            }
            if (!all.isEmpty()) {
                throw new DefinitionException(all);
            }
            return new Definitions(partners, mashups);
        }

        private void check(MashupDefinition m, Set<String> paths, List<String> all) {
            String at = "mashups." + m.name();
            if (!NAME.matcher(m.name()).matches()) {
                all.add(at + ": \"" + m.name() + "\" is not a name (accepted: a letter, then letters, digits, _ or -)");
            }
            if (!PATH.matcher(m.path()).matches()) {
                all.add(at + ".path: \"" + m.path() + "\" (accepted: /segments of letters, digits, . _ ~ - or "
                        + "{parameter}, e.g. /mashup/travel or /mashup/travel/{city})");
            } else if (RESERVED_PATHS.contains(m.path())) {
                all.add(at + ".path: \"" + m.path() + "\" is reserved for the server's own endpoint");
            } else if (!paths.add(m.path().replaceAll("\\{[^}]*}", "{}"))) {
                all.add(at + ".path: \"" + m.path() + "\" is already served by another mashup");
            }
            if (m.deadline() == null || m.deadline().isNegative() || m.deadline().isZero()
                    || m.deadline().compareTo(MAX_DEADLINE) > 0) {
                all.add(at + ".deadlineMillis: " + (m.deadline() == null ? null : m.deadline().toMillis())
                        + " (accepted: 1 to " + MAX_DEADLINE.toMillis() + ")");
            }
            Set<String> known = new HashSet<>(m.parameters().keySet());
            known.addAll(pathVariables(m.path()));
            for (ParameterDefinition p : m.parameters().values()) {
                String pat = at + ".parameters." + p.name();
                if (!PARAMETER.matcher(p.name()).matches()) {
                    all.add(pat + ": not a parameter name (accepted: a letter, then letters, digits, _ . or -)");
                }
                if (p.maxLength() < 1 || p.maxLength() > 8192) {
                    all.add(pat + ".maxLength: " + p.maxLength() + " (accepted: 1 to 8192)");
                }
                if (p.required() && p.defaultValue() != null) {
                    all.add(pat + ": required and with a default; choose one");
                }
                if (p.defaultValue() != null && p.defaultValue().length() > p.maxLength()) {
                    all.add(pat + ".default: longer than its maxLength " + p.maxLength());
                }
            }
            if (m.calls().isEmpty() || m.calls().size() > MAX_CALLS) {
                all.add(at + ".calls: " + m.calls().size() + " calls (accepted: 1 to " + MAX_CALLS + ")");
            }
            Set<String> parts = new HashSet<>();
            List<String> names = m.calls().stream().map(CallDefinition::name).toList();
            // Chained calls: which parts each call takes values from (by index), for the order and cycle checks.
            List<Set<Integer>> takesFrom = new ArrayList<>();
            for (int i = 0; i < m.calls().size(); i++) {
                takesFrom.add(new LinkedHashSet<>());
            }
            for (int i = 0; i < m.calls().size(); i++) {
                CallDefinition call = m.calls().get(i);
                String cat = at + ".calls[" + i + "]";
                if (call.name() == null || !NAME.matcher(call.name()).matches()) {
                    all.add(cat + ".name: \"" + call.name() + "\" is not a name (accepted: a letter, then letters, "
                            + "digits, _ or -)");
                } else if (!parts.add(call.name())) {
                    all.add(cat + ".name: \"" + call.name() + "\" is used by another call of this mashup");
                }
                if (call.partner() == null || !(partners.containsKey(call.partner())
                        || declared.contains(call.partner()))) {
                    Set<String> partnerNames = new LinkedHashSet<>(declared);
                    partnerNames.addAll(partners.keySet());
                    all.add(cat + ".partner: unknown partner \"" + call.partner() + "\" (known: "
                            + String.join(", ", partnerNames) + ")");
                }
                try {
                    UriTemplate template = UriTemplate.parse(call.template());
                    for (String variable : template.variables()) {
                        PartReference reference = PartReference.parse(variable);
                        if (known.contains(variable)) {
                            if (reference != null && names.contains(reference.part())) {
                                all.add(cat + ".template: {" + variable + "} is both a parameter and a value of part "
                                        + reference.part() + "; rename the parameter");
                            }
                        } else if (reference != null && names.contains(reference.part())) {
                            takesFrom.get(i).add(names.indexOf(reference.part()));
                        } else {
                            all.add(cat + ".template: {" + variable + "} is not a parameter of the mashup (known: "
                                    + (known.isEmpty() ? "none" : String.join(", ", known.stream().sorted().toList()))
                                    + ") nor a value of one of its parts ({part.body.field})");
                        }
                    }
                } catch (IllegalArgumentException e) {
                    all.add(cat + ".template: " + e.getMessage());
                }
                checkRequest(cat, call, known, !takesFrom.get(i).isEmpty(), all);
                java.time.Duration timeout = call.options().timeout();
                if (timeout != null && timeout.compareTo(m.deadline()) > 0) {
                    all.add(cat + ".timeoutMillis: " + timeout.toMillis() + " is past the mashup's deadline (accepted: 1 "
                            + "to its deadlineMillis, " + m.deadline().toMillis() + ")");
                }
                for (String header : call.forwardHeaders()) {
                    String lower = header.toLowerCase(Locale.ROOT);
                    if (BrokerClient.isRefusedHeader(header)) {
                        all.add(cat + ".forwardHeaders: \"" + header + "\" is hop-by-hop or set by the client; it is "
                                + "never forwarded");
                    } else if (TRACE_CONTEXT.contains(lower)) {
                        all.add(cat + ".forwardHeaders: \"" + header + "\" is set by the server on every call "
                                + "(W3C Trace Context: the inbound trace, continued with the call's own span id); it is "
                                + "never forwarded as received");
                    }
                }
            }
            checkOrder(at, names, takesFrom, all);
        }

        /**
         * A call's method and body: a known method; a body only with a method that carries one, its placeholders
         * the mashup's parameters, and not on a chained call; a method that changes something never hedged or
         * cached (a second attempt, or an answer served again, would hide or repeat its effect).
         */
        private static void checkRequest(String cat, CallDefinition call, Set<String> parameters, boolean chained,
                List<String> all) {
            String method = call.method();
            if (!METHODS.contains(method)) {
                all.add(cat + ".method: \"" + method + "\" (accepted: " + String.join(", ", METHODS) + ")");
                return;
            }
            boolean read = method.equals("GET") || method.equals("HEAD");
            if (call.body() != null && read) {
                all.add(cat + ".body: a " + method + " call carries no body (accepted: with POST, PUT, PATCH or "
                        + "DELETE)");
            }
            if (call.body() != null && chained) {
                all.add(cat + ".body: a call that takes values from other parts cannot have a body (accepted: a "
                        + "body with the mashup's parameters, on a call whose template takes none from parts)");
            }
            if (call.body() != null) {
                for (String variable : BodyTemplate.parse(call.body(), call.contentType()).variables()) {
                    if (!parameters.contains(variable)) {
                        all.add(cat + ".body: {" + variable + "} is not a parameter of the mashup (known: "
                                + (parameters.isEmpty() ? "none" : String.join(", ", parameters.stream().sorted()
                                .toList())) + ")");
                    }
                }
            }
            if (!read && call.hedging() != null) {
                all.add(cat + ".hedgeAfterMillis: a " + method + " call is never hedged: a second attempt would "
                        + "repeat its effect (accepted: GET, HEAD)");
            }
            if (!read && call.caching() != null) {
                all.add(cat + ".cacheSeconds: a " + method + " call is never cached (accepted: GET, HEAD)");
            }
        }

        /** Chained calls take values only from calls listed before them: no call waits for itself. */
        private static void checkOrder(String at, List<String> names, List<Set<Integer>> takesFrom, List<String> all) {
            for (int i = 0; i < takesFrom.size(); i++) {
                String cat = at + ".calls[" + i + "]";
                for (int from : takesFrom.get(i)) {
                    if (from == i) {
                        all.add(cat + ".template: takes a value from its own part " + names.get(i));
                    } else if (from > i) {
                        all.add(cat + ".template: takes a value from part " + names.get(from) + ", which "
                                + (reaches(takesFrom, from, i) ? "takes one from it in turn: a cycle" : "comes after it")
                                + " (a call may take values only from calls listed before it)");
                    }
                }
            }
        }

        /** True when call {@code from} takes values, directly or through others, from call {@code to}. */
        private static boolean reaches(List<Set<Integer>> takesFrom, int from, int to) {
            Deque<Integer> next = new ArrayDeque<>(List.of(from));
            Set<Integer> seen = new HashSet<>();
            while (!next.isEmpty()) {
                int call = next.pop();
                if (call == to) {
                    return true;
                }
                if (seen.add(call)) {
                    next.addAll(takesFrom.get(call));
                }
            }
            return false;
        }
    }
}
