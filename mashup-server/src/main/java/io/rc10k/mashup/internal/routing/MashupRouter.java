package io.rc10k.mashup.internal.routing;

import io.rc10k.broker.Call;
import io.rc10k.broker.Outcome;
import io.rc10k.mashup.BodyTemplate;
import io.rc10k.mashup.CallDefinition;
import io.rc10k.mashup.Composite;
import io.rc10k.mashup.Definitions;
import io.rc10k.mashup.MashupDefinition;
import io.rc10k.mashup.ParameterDefinition;
import io.rc10k.mashup.PartReference;
import io.rc10k.mashup.UriTemplate;
import io.rc10k.mashup.internal.observability.TraceContext;
import io.rc10k.mashup.internal.observability.TracedRequest;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;

/**
 * Finds the mashup for an inbound request and turns it into calls: parameters read from the path
 * and query, checked, and expanded into each call's template. Immutable and thread-safe; shared by
 * every mode.
 */
public final class MashupRouter {
    /**
     * A request that resolved to a mashup: its {@code calls}, ready for the broker, each with the forwarded
     * headers plus its trace context ({@code traceparent} with the call's own span id, and {@code tracestate}
     * if any) — a chained call made from the outcomes of the parts it comes after, or skipped with the
     * message of the value it missed; {@code partNames} are the calls' names, {@code required} which of them
     * are required (null when none is: shared, never modified), and {@code spanIds} their span ids, in call
     * order; {@code trace} is the request's trace context.
     */
    public record Route(MashupDefinition mashup, List<Call> calls, List<String> partNames, boolean[] required,
            TraceContext trace,
            long[] spanIds) implements TracedRequest {
    }

    /** A request that did not: the status, the error code and a detail naming what is wrong. */
    public static final class Rejection extends Exception {
        private final int status;
        private final String error;
        private final String parameter;
        private String mashup;

        Rejection(int status, String error, String detail, String parameter) {
            super(detail, null, false, false);
            this.status = status;
            this.error = error;
            this.parameter = parameter;
        }

        public int status() {
            return status;
        }

        /** The mashup the request was for; {@code unknown} when none matched (a bounded metric tag). */
        public String mashup() {
            return mashup == null ? "unknown" : mashup;
        }

        public byte[] body() {
            return parameter == null
                    ? Composite.error(error, getMessage())
                    : Composite.error(error, getMessage(), "parameter", parameter);
        }
    }

    /**
     * A mashup prepared once when the definitions load: its path pattern, its calls' templates, the
     * variables that fill path segments (where {@code .} and {@code ..} are refused), its part names.
     */
    private record Compiled(MashupDefinition mashup, String[] segments, List<UriTemplate> templates,
            List<BodyTemplate> bodies, Set<String> inPathSegments, List<String> partNames, boolean[] required,
            List<Chain> chains) {
    }

    /**
     * What a chained call reads from earlier parts: the parts it waits for (by index), its references in
     * the order of {@code dependsOn}, and the references that fill path segments.
     */
    private record Chain(int[] dependsOn, List<IndexedReference> references, Set<String> inPathSegments) {
        String expand(UriTemplate template, Map<String, String> inbound, List<Outcome> outcomes) {
            Map<String, String> values = new HashMap<>(inbound);
            for (IndexedReference reference : references) {
                int at = 0;
                while (dependsOn[at] != reference.index()) {
                    at++;
                }
                String value = reference.reference().valueIn(outcomes.get(at));
                if (inPathSegments.contains(reference.reference().variable())
                        && (value.isEmpty() || value.equals(".") || value.equals(".."))) {
                    throw new IllegalArgumentException("{" + reference.reference().variable() + "} is \"" + value
                            + "\", which cannot fill a path segment");
                }
                values.put(reference.reference().variable(), value);
            }
            return template.expand(values);
        }
    }

    /** A reference and the index of the part it reads. */
    private record IndexedReference(PartReference reference, int index) {
    }

    private final List<Compiled> mashups = new ArrayList<>();
    /** Decides the {@code sampled} flag when the server exports spans; null: it does not. */
    private final TraceContext.Sampling sampling;

    public MashupRouter(Definitions definitions) {
        this(definitions, null);
    }

    /**
     * @param sampling decides whether each request's trace is sampled, as the server records it ({@link SpanExport});
     *                 null: the caller's decision is passed on and the traces this server starts are not sampled
     */
    public MashupRouter(Definitions definitions, TraceContext.Sampling sampling) {
        this.sampling = sampling;
        for (MashupDefinition m : definitions.mashups().values()) {
            List<UriTemplate> templates = m.calls().stream().map(c -> UriTemplate.parse(c.template())).toList();
            List<String> names = m.calls().stream().map(CallDefinition::name).toList();
            Set<String> inPathSegments = new LinkedHashSet<>(Definitions.pathVariables(m.path()));
            List<Chain> chains = new ArrayList<>();
            for (UriTemplate t : templates) {
                List<IndexedReference> references = new ArrayList<>();
                for (String variable : t.variables()) {
                    PartReference reference = m.parameters().containsKey(variable) ? null : PartReference.parse(variable);
                    if (reference != null && names.contains(reference.part())) {
                        references.add(new IndexedReference(reference, names.indexOf(reference.part())));
                    }
                }
                Set<String> referenced = new LinkedHashSet<>();
                references.forEach(r -> referenced.add(r.reference().variable()));
                for (String variable : t.pathVariables()) {
                    if (!referenced.contains(variable)) {
                        inPathSegments.add(variable);
                    }
                }
                Set<String> chainPath = new LinkedHashSet<>(t.pathVariables());
                chainPath.retainAll(referenced);
                chains.add(references.isEmpty() ? null : new Chain(
                        references.stream().mapToInt(IndexedReference::index).distinct().sorted().toArray(),
                        references, Set.copyOf(chainPath)));
            }
            List<BodyTemplate> bodies = new ArrayList<>();
            for (CallDefinition call : m.calls()) {
                bodies.add(call.body() == null ? null : BodyTemplate.parse(call.body(), call.contentType()));
            }
            mashups.add(new Compiled(m, m.path().substring(1).split("/"), templates, bodies,
                    Set.copyOf(inPathSegments), names, required(m), chains));
        }
    }

    /** Which calls are required, in call order; null when none is. */
    private static boolean[] required(MashupDefinition m) {
        boolean[] required = new boolean[m.calls().size()];
        boolean any = false;
        for (int i = 0; i < required.length; i++) {
            required[i] = m.calls().get(i).required();
            any |= required[i];
        }
        return any ? required : null;
    }

    public Route route(HttpServletRequest request) throws Rejection {
        // Raw (still encoded) path within the context: a WAR lives under its context path.
        String path = request.getRequestURI().substring(request.getContextPath().length());
        String[] raw = (path.startsWith("/") ? path.substring(1) : path).split("/", -1);
        for (Compiled c : mashups) {
            Map<String, String> pathValues;
            try {
                pathValues = match(c.segments(), raw);
            } catch (Rejection rejection) {
                rejection.mashup = c.mashup().name();
                throw rejection;
            }
            if (pathValues != null) {
                try {
                    return resolve(c, pathValues, request);
                } catch (Rejection rejection) {
                    rejection.mashup = c.mashup().name();
                    throw rejection;
                }
            }
        }
        throw new Rejection(404, "not_found", "no mashup at " + path, null);
    }

    private static Map<String, String> match(String[] pattern, String[] raw) throws Rejection {
        if (pattern.length != raw.length) {
            return null;
        }
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < pattern.length; i++) {
            String p = pattern[i];
            if (p.startsWith("{")) {
                String name = p.substring(1, p.length() - 1);
                values.put(name, decode(raw[i], name));
            } else if (!p.equals(raw[i])) {
                return null;
            }
        }
        return values;
    }

    private static String decode(String segment, String name) throws Rejection {
        try {
            // A path segment: '+' is a plus, not a space.
            return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new Rejection(400, "bad_request", "path parameter \"" + name + "\" is not valid percent-encoding",
                    name);
        }
    }

    private Route resolve(Compiled c, Map<String, String> pathValues, HttpServletRequest request)
            throws Rejection {
        MashupDefinition m = c.mashup();
        Map<String, String> values = new HashMap<>(pathValues);
        for (ParameterDefinition p : m.parameters().values()) {
            String value = values.get(p.name());
            if (value == null) {
                String[] given = request.getParameterValues(p.name());
                if (given != null && given.length > 1) {
                    throw new Rejection(400, "bad_request", "parameter \"" + p.name() + "\" is given " + given.length
                            + " times (accepted: once)", p.name());
                }
                value = given == null ? null : given[0];
            }
            if (value == null || value.isEmpty()) {
                if (p.required()) {
                    throw new Rejection(400, "bad_request", "missing required parameter \"" + p.name() + "\"",
                            p.name());
                }
                value = p.defaultValue() == null ? "" : p.defaultValue();
            }
            if (value.length() > p.maxLength()) {
                throw new Rejection(400, "bad_request", "parameter \"" + p.name() + "\" is " + value.length()
                        + " characters long (accepted: at most " + p.maxLength() + ")", p.name());
            }
            values.put(p.name(), value);
        }
        for (String name : c.inPathSegments()) {
            String value = values.getOrDefault(name, "");
            if (value.isEmpty() || value.equals(".") || value.equals("..")) {
                throw new Rejection(400, "bad_request", "path parameter \"" + name + "\" is \"" + value
                        + "\" (accepted: a non-empty value other than . and ..)", name);
            }
        }
        TraceContext trace = sampling == null ? TraceContext.of(request, false)
                : TraceContext.of(request, sampling, m.name());
        List<Call> calls = new ArrayList<>(m.calls().size());
        long[] spanIds = new long[m.calls().size()];
        for (int i = 0; i < m.calls().size(); i++) {
            CallDefinition call = m.calls().get(i);
            spanIds[i] = TraceContext.newSpanId();
            Chain chain = c.chains().get(i);
            HttpFields headers = headers(call, request, trace, spanIds[i]);
            BodyTemplate body = c.bodies().get(i);
            byte[] bytes = body == null ? null : body.expand(values);
            Call.Builder described = Call.to(call.partner()).method(call.method()).headers(headers).body(bytes)
                    .options(call.options());
            UriTemplate template = c.templates().get(i);
            if (chain == null) {
                described.path(template.expand(values));
            } else {
                described.after(chain.dependsOn()).path(outcomes -> chain.expand(template, values, outcomes));
            }
            calls.add(described.build());
        }
        return new Route(m, calls, c.partNames(), c.required(), trace, spanIds);
    }

    /** The call's forwarded headers and its trace context: one small list, sized to fit. */
    private static HttpFields headers(CallDefinition call, HttpServletRequest request, TraceContext trace,
            long spanId) {
        HttpFields.Mutable headers = HttpFields.build(call.forwardHeaders().size() + 3);
        if (call.contentType() != null) {
            headers.add(HttpHeader.CONTENT_TYPE, call.contentType());
        }
        for (String name : call.forwardHeaders()) {
            String value = request.getHeader(name);
            if (value != null) {
                headers.add(name, value);
            }
        }
        headers.add(trace.traceparent(spanId));
        if (trace.tracestate() != null) {
            headers.add(trace.tracestate());
        }
        return headers;
    }
}
