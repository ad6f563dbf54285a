package io.rc10k.mashup.internal.routing;

import static io.rc10k.mashup.internal.routing.JsonTree.Type.ARRAY;
import static io.rc10k.mashup.internal.routing.JsonTree.Type.BOOLEAN;
import static io.rc10k.mashup.internal.routing.JsonTree.Type.INTEGER;
import static io.rc10k.mashup.internal.routing.JsonTree.Type.OBJECT;
import static io.rc10k.mashup.internal.routing.JsonTree.Type.STRING;

import io.rc10k.broker.Caching;
import io.rc10k.broker.CallOptions;
import io.rc10k.broker.Hedging;
import io.rc10k.mashup.CallDefinition;
import io.rc10k.mashup.MashupDefinition;
import io.rc10k.mashup.ParameterDefinition;
import java.time.Duration;
import java.util.List;

/**
 * A mashup of the definitions file ({@code mashups.<name>}), read for {@link DefinitionsJson}: its fields, its
 * parameters and its calls. Checks that need the whole file (an unknown partner, a template's parameters) run when
 * the definitions are built.
 */
final class MashupJson {
    private static final Fields<MashupDefinition.Builder> MASHUP = new Fields<MashupDefinition.Builder>("mashup")
            .field("path", STRING, (m, v) -> m.path(v.text()))
            .field("deadlineMillis", INTEGER, (m, v) -> m.deadline(v.millis()))
            .field("parameters", OBJECT, (m, v) -> v.entries((name, p) -> m.parameter(parameter(name, p))))
            .required("calls", ARRAY, (m, v) -> v.elements(call -> m.call(call(call))));

    private static final Fields<ParameterDraft> PARAMETER = new Fields<ParameterDraft>("parameter")
            .field("required", BOOLEAN, (p, v) -> p.required = v.bool())
            .field("default", STRING, (p, v) -> p.defaultValue = v.text())
            .field("maxLength", INTEGER, (p, v) -> p.maxLength = v.intValue());

    private static final Fields<CallDraft> CALL = new Fields<CallDraft>("call")
            .field("name", STRING, (c, v) -> c.name = v.text())
            .required("partner", STRING, (c, v) -> c.partner = v.text())
            .required("template", STRING, (c, v) -> c.template = v.text())
            .field("method", STRING, (c, v) -> c.method = v.text())
            .field("body", STRING, (c, v) -> c.body = v.text())
            .field("contentType", STRING, (c, v) -> c.contentType = v.text())
            .field("forwardHeaders", ARRAY, (c, v) -> c.forwardHeaders = v.texts())
            .field("required", BOOLEAN, (c, v) -> c.options = c.options.withRequired(v.bool()))
            .field("hedgeAfterMillis", INTEGER, (c, v) -> c.hedgeAfter = Duration.ofMillis(v.between(1, 60_000)))
            .field("maxHedges", INTEGER, (c, v) -> {
                c.maxHedgesAt = v;
                c.maxHedges = (int) v.between(1, Hedging.MAX_EXTRA);
            })
            .field("timeoutMillis", INTEGER, (c, v) -> c.options = c.options.withTimeout(
                    Duration.ofMillis(v.between(1, 600_000))))
            .field("cacheSeconds", INTEGER, (c, v) -> c.options = c.options.withCaching(
                    new Caching(Duration.ofSeconds(v.between(1, 86_400)))));

    private MashupJson() {
    }

    /** The declarations of a mashup and of the objects inside it. */
    static List<Fields<?>> kinds() {
        return List.of(MASHUP, PARAMETER, CALL);
    }

    static MashupDefinition read(String name, Value value) {
        MashupDefinition.Builder b = MashupDefinition.builder(name);
        value.read(MASHUP, b);
        return b.build();
    }

    private static ParameterDefinition parameter(String name, Value value) {
        ParameterDraft p = value.read(PARAMETER, new ParameterDraft());
        return new ParameterDefinition(name, p.required, p.defaultValue, p.maxLength);
    }

    /**
     * A call with a problem is still added (with stand-ins, whose checks are not reported), so that the calls after it
     * keep their index in messages and the mashup's own checks still run.
     */
    private static CallDefinition call(Value value) {
        CallDraft c = value.read(CALL, new CallDraft());
        if (c.maxHedgesAt != null && !value.node().members().containsKey("hedgeAfterMillis")) {
            c.maxHedgesAt.problem("only with hedgeAfterMillis");
        }
        if (c.name == null && (c.partner == null || !PartnerJson.isName(c.partner))) {
            // Named after a partner that is missing or has no name: the partner's problem, reported already.
            value.madeUp(JsonTree.member(value.path(), "name"));
        }
        CallOptions options = c.hedgeAfter == null ? c.options : c.options.withHedging(new Hedging(c.hedgeAfter,
                c.maxHedges));
        String partner = c.partner != null ? c.partner : "";
        if (c.contentType != null && c.body == null) {
            value.problem("contentType without a body (accepted: with body)");
        }
        return new CallDefinition(c.name != null ? c.name : partner, partner, c.template != null ? c.template : "",
                c.forwardHeaders, options, c.method, c.body, c.contentType);
    }

    private static final class ParameterDraft {
        private boolean required;
        private String defaultValue;
        private int maxLength = ParameterDefinition.DEFAULT_MAX_LENGTH;
    }

    private static final class CallDraft {
        private String method;
        private String body;
        private String contentType;
        private String name;
        private String partner;
        private String template;
        private List<String> forwardHeaders = List.of();
        private CallOptions options = CallOptions.NONE;
        private Duration hedgeAfter;
        private int maxHedges = 1;
        private Value maxHedgesAt;
    }
}
