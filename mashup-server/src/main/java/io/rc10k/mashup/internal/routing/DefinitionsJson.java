package io.rc10k.mashup.internal.routing;

import static io.rc10k.mashup.internal.routing.JsonTree.Type.ARRAY;
import static io.rc10k.mashup.internal.routing.JsonTree.Type.BOOLEAN;
import static io.rc10k.mashup.internal.routing.JsonTree.Type.INTEGER;
import static io.rc10k.mashup.internal.routing.JsonTree.Type.NUMBER;
import static io.rc10k.mashup.internal.routing.JsonTree.Type.OBJECT;
import static io.rc10k.mashup.internal.routing.JsonTree.Type.STRING;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.rc10k.broker.Caching;
import io.rc10k.broker.CallOptions;
import io.rc10k.broker.Hedging;
import io.rc10k.broker.Partner;
import io.rc10k.mashup.CallDefinition;
import io.rc10k.mashup.DefinitionException;
import io.rc10k.mashup.Definitions;
import io.rc10k.mashup.MashupDefinition;
import io.rc10k.mashup.ParameterDefinition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Loads {@link Definitions} from JSON (format in docs/mashup-server.md, schema in docs/definitions.schema.json). Every
 * problem — a wrong type, an unknown or duplicate key, a bad value, a check of the whole (an unknown partner, a
 * template's parameters) — is reported at once, each with its line and column and the value as written; nothing is
 * built half-way. A problem that follows from another (the calls of a partner that is itself wrong) is not reported
 * again.
 *
 * <p>The fields of each kind of object are declared below, once ({@link Fields}): adding a field is a line there and
 * its entry in docs/definitions.schema.json, which {@code DefinitionsSchemaTest} holds against {@link #kinds()}.
 */
public final class DefinitionsJson {
    /** A partner whose base URI is wrong is still built on this one, so that its other fields are checked too. */
    private static final String STAND_IN_URI = "http://stand-in.invalid/";

    private static final Fields<Definitions.Builder> DEFINITIONS = new Fields<Definitions.Builder>("definitions")
            // Where editors find the schema; the server has no use for it.
            .field("$schema", STRING, (d, v) -> { })
            .field("partners", OBJECT, (d, v) -> v.entries((name, partner) -> partner(d, name, partner)))
            .required("mashups", OBJECT, (d, v) -> v.entries((name, mashup) -> d.mashup(mashup(name, mashup))));

    private static final Fields<PartnerDraft> PARTNER = new Fields<PartnerDraft>("partner")
            // First: the builder is made with it; the fields below are set on that builder, which checks them.
            .field("baseUri", STRING, (p, v) -> {
                p.based = true;
                p.builder = Partner.builder(p.name, v.text());
            })
            // Or several hosts: the first is the partner's baseUri.
            .field("baseUris", ARRAY, (p, v) -> {
                if (p.based) {
                    v.problem("given with baseUri (accepted: one of baseUri and baseUris)");
                    return;
                }
                p.based = true;
                List<String> uris = v.texts();
                if (uris.isEmpty()) {
                    v.problem("[] (accepted: at least one base URI)");
                    return;
                }
                p.builder = Partner.builder(p.name, uris.get(0)).hosts(uris);
            })
            .field("balancing", STRING, (p, v) -> p.builder().balancing(Partner.Balancing.parse(v.text())))
            .field("ejection", OBJECT, (p, v) -> ejection(v).ifPresent(p.builder()::ejection))
            .field("protocol", STRING, (p, v) -> p.builder().protocol(Partner.Protocol.parse(v.text())))
            .field("maxConnections", INTEGER, (p, v) -> p.builder().maxConnections(v.intValue()))
            .field("maxQueued", INTEGER, (p, v) -> p.builder().maxQueued(v.intValue()))
            .field("maxStreamsPerConnection", INTEGER, (p, v) -> p.builder().maxStreamsPerConnection(v.intValue()))
            .field("connectTimeoutMillis", INTEGER, (p, v) -> p.builder().connectTimeout(v.millis()))
            .field("callTimeoutMillis", INTEGER, (p, v) -> p.builder().callTimeout(v.millis()))
            .field("maxResponseBytes", INTEGER, (p, v) -> p.builder().maxResponseBytes(v.longValue()))
            .field("retries", INTEGER, (p, v) -> p.builder().retries(v.intValue()))
            .field("circuitBreaker", OBJECT, (p, v) -> circuitBreaker(v).ifPresent(p.builder()::circuitBreaker))
            .field("tls", OBJECT, (p, v) -> tls(v).ifPresent(p.builder()::tls))
            .field("headers", OBJECT, (p, v) -> v.entries((name, value) -> header(p, name, value)))
            .field("cacheMaxEntries", INTEGER, (p, v) -> p.builder().cacheMaxEntries(v.longValue()))
            .field("cacheMaxBytes", INTEGER, (p, v) -> p.builder().cacheMaxBytes(v.longValue()));

    private static final Fields<BreakerDraft> CIRCUIT_BREAKER = new Fields<BreakerDraft>("circuitBreaker")
            .field("enabled", BOOLEAN, (b, v) -> b.enabled = v.bool())
            .field("consecutiveFailures", INTEGER, (b, v) -> b.consecutiveFailures = v.intValue())
            .field("failureRatio", NUMBER, (b, v) -> b.failureRatio = v.number())
            .field("minimumCalls", INTEGER, (b, v) -> b.minimumCalls = v.intValue())
            .field("window", INTEGER, (b, v) -> b.window = v.intValue())
            .field("coolDownMillis", INTEGER, (b, v) -> b.coolDown = v.millis());

    private static final Fields<EjectionDraft> EJECTION = new Fields<EjectionDraft>("ejection")
            .field("consecutiveFailures", INTEGER, (e, v) -> e.consecutiveFailures = v.intValue())
            .field("coolDownMillis", INTEGER, (e, v) -> e.coolDown = v.millis());

    /** An https partner's certificates: paths as written (relative ones from the server's working directory). */
    private static final Fields<TlsDraft> TLS = new Fields<TlsDraft>("tls")
            .field("caFile", STRING, (t, v) -> t.caFile = Path.of(v.text()))
            .field("trustStore", STRING, (t, v) -> t.trustStore = Path.of(v.text()))
            .field("trustStorePassword", STRING, (t, v) -> t.trustStorePassword = v.text())
            .field("keyStore", STRING, (t, v) -> t.keyStore = Path.of(v.text()))
            .field("keyStorePassword", STRING, (t, v) -> t.keyStorePassword = v.text())
            .field("verifyHostname", BOOLEAN, (t, v) -> t.verifyHostname = v.bool());

    /** Where a header's value comes from when it is a secret: exactly one of the two. */
    private static final Fields<SecretDraft> SECRET = new Fields<SecretDraft>("secret")
            .field("env", STRING, (t, v) -> t.env = v.text())
            .field("file", STRING, (t, v) -> t.file = Path.of(v.text()));

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

    private DefinitionsJson() {
    }

    /** The declaration of every kind of object in the file: the top level first, then partner, mashup and the rest. */
    public static List<Fields<?>> kinds() {
        return List.of(DEFINITIONS, PARTNER, CIRCUIT_BREAKER, EJECTION, TLS, SECRET, MASHUP, PARAMETER, CALL);
    }

    public static Definitions load(Path file) throws DefinitionException {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new DefinitionException(List.of(file + ": cannot be read (" + e + ")"));
        }
        return parse(text, file.toString());
    }

    /** @param source the file's name in messages: {@code source:line:column: path: what is wrong} */
    public static Definitions parse(String text, String source) throws DefinitionException {
        Problems problems = new Problems();
        JsonTree tree;
        try {
            tree = JsonTree.read(text, problems);
        } catch (JsonProcessingException e) {
            throw new DefinitionException(List.of(source + ": not valid JSON at line "
                    + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + " ("
                    + e.getOriginalMessage() + ")"));
        }
        JsonTree.Node root = tree.root();
        if (root == null || root.type() != OBJECT) {
            problems.add(root == null ? 1 : root.line(), root == null ? 1 : root.column(), "",
                    "the top level must be an object with \"partners\" and \"mashups\"");
            throw new DefinitionException(source, problems.inFileOrder());
        }
        Definitions.Builder builder = Definitions.builder();
        new Value(root, problems).read(DEFINITIONS, builder);
        try {
            Definitions definitions = builder.build();
            if (problems.count() == 0) {
                return definitions;
            }
        } catch (DefinitionException e) {
            e.problems().forEach(problem -> problems.later(problem, tree));
        }
        throw new DefinitionException(source, problems.inFileOrder());
    }

    /** Declared even when wrong (its own problems are reported), so that calls naming it are not reported again. */
    private static void partner(Definitions.Builder definitions, String name, Value value) {
        definitions.declarePartner(name);
        int before = value.problemCount();
        PartnerDraft draft = new PartnerDraft(name, value);
        value.read(PARTNER, draft);
        if (!draft.based) {
            value.problem("baseUri: missing (required, or baseUris for several hosts)");
        }
        if (value.problemCount() == before) {
            // What needs every field together: TLS settings against the scheme, the files they name.
            try {
                definitions.partner(draft.builder().build());
            } catch (IllegalArgumentException e) {
                atField(value, name, e.getMessage());
            }
        }
    }

    /**
     * Reports a partner builder's message ({@code name.tls.caFile: …}) at the field it names when the file has it
     * ({@code partners.name.tls.caFile: …}), else at the partner.
     */
    private static void atField(Value partner, String name, String message) {
        int colon = message.indexOf(": ");
        if (!message.startsWith(name + ".") || colon < 0) {
            partner.problem(message);
            return;
        }
        JsonTree.Node node = partner.node();
        for (String step : message.substring(name.length() + 1, colon).split("\\.")) {
            JsonTree.Node member = node.members().get(step);
            if (member == null) {
                break;
            }
            node = member;
        }
        new Value(node, partner.problems()).problem(message.substring(colon + 2));
    }

    /**
     * A header sent on every call to the partner: its value as written, or read from an environment variable or a
     * file when the definitions are read. A value read so is never part of a message (only its source is).
     */
    private static void header(PartnerDraft partner, String name, Value value) {
        String text;
        if (value.node().type() == STRING) {
            text = value.text();
        } else if (value.node().type() == OBJECT) {
            int before = value.problemCount();
            SecretDraft secret = value.read(SECRET, new SecretDraft());
            if (value.problemCount() != before) {
                return;
            }
            if ((secret.env == null) == (secret.file == null)) {
                value.problem("give one of env and file (accepted: {\"env\": \"NAME\"} or {\"file\": \"/path\"})");
                return;
            }
            text = secret.env != null ? System.getenv(secret.env) : readSecret(secret.file);
            if (text == null) {
                value.problem(secret.env != null ? "environment variable " + secret.env + " is not set"
                        : "file " + secret.file + (Files.exists(secret.file) ? " cannot be read" : " does not exist"));
                return;
            }
        } else {
            value.problem("a " + value.node().type().name().toLowerCase(java.util.Locale.ROOT)
                    + " (accepted: a string, {\"env\": \"NAME\"} or {\"file\": \"/path\"})");
            return;
        }
        value.attempt(() -> partner.builder().header(name, text));
    }

    /** A secret file's text without its final line break (files written by editors and `echo` end with one). */
    private static String readSecret(Path file) {
        try {
            return Files.readString(file).replaceFirst("\\r?\\n$", "");
        } catch (IOException e) {
            return null;
        }
    }

    private static Optional<Partner.Ejection> ejection(Value value) {
        int before = value.problemCount();
        EjectionDraft e = value.read(EJECTION, new EjectionDraft());
        if (value.problemCount() != before) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Partner.Ejection(e.consecutiveFailures, e.coolDown));
        } catch (IllegalArgumentException x) {
            value.problem(x.getMessage().replaceFirst("^ejection: ", ""));
            return Optional.empty();
        }
    }

    private static Optional<Partner.Tls> tls(Value value) {
        int before = value.problemCount();
        TlsDraft t = value.read(TLS, new TlsDraft());
        if (value.problemCount() != before) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Partner.Tls(t.caFile, t.trustStore, t.trustStorePassword, t.keyStore,
                    t.keyStorePassword, t.verifyHostname));
        } catch (IllegalArgumentException e) {
            value.problem(e.getMessage().replaceFirst("^tls: ", ""));
            return Optional.empty();
        }
    }

    /**
     * The settings are checked together by their record, so they are only when each field alone was fine; the message
     * lists them as written (the defaults for those not written).
     */
    private static Optional<Partner.CircuitBreakerSettings> circuitBreaker(Value value) {
        int before = value.problemCount();
        BreakerDraft b = value.read(CIRCUIT_BREAKER, new BreakerDraft());
        if (value.problemCount() != before) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Partner.CircuitBreakerSettings(b.enabled, b.consecutiveFailures, b.failureRatio,
                    b.minimumCalls, b.window, b.coolDown));
        } catch (IllegalArgumentException e) {
            Partner.CircuitBreakerSettings d = Partner.CircuitBreakerSettings.DEFAULT;
            String message = e.getMessage();
            int accepted = message.indexOf(" (accepted:");
            value.problem("consecutiveFailures " + written(value, "consecutiveFailures", d.consecutiveFailures())
                    + ", failureRatio " + written(value, "failureRatio", d.failureRatio())
                    + ", minimumCalls " + written(value, "minimumCalls", d.minimumCalls())
                    + ", window " + written(value, "window", d.window())
                    + ", coolDownMillis " + written(value, "coolDownMillis", d.coolDown().toMillis())
                    + (accepted >= 0 ? message.substring(accepted) : ""));
            return Optional.empty();
        }
    }

    private static String written(Value object, String field, Object otherwise) {
        JsonTree.Node member = object.node().members().get(field);
        return member != null ? member.asWritten() : String.valueOf(otherwise);
    }

    private static MashupDefinition mashup(String name, Value value) {
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
        if (c.name == null && (c.partner == null || !isPartnerName(c.partner))) {
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

    private static boolean isPartnerName(String name) {
        try {
            Partner.builder(name, STAND_IN_URI);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static final class PartnerDraft {
        private final String name;
        private Partner.Builder builder;
        /** baseUri or baseUris was given (the builder may still be a stand-in, when that was wrong). */
        private boolean based;

        /** Checks the name; a wrong one is reported at its key, and a stand-in checks the fields. */
        PartnerDraft(String name, Value value) {
            int before = value.problemCount();
            value.attemptName(() -> Partner.builder(name, STAND_IN_URI));
            this.name = value.problemCount() == before ? name : "stand-in";
        }

        /** The builder made with the base URI, or (when that was missing or wrong) one that checks the other fields. */
        Partner.Builder builder() {
            if (builder == null) {
                builder = Partner.builder(name, STAND_IN_URI);
            }
            return builder;
        }
    }

    private static final class BreakerDraft {
        private final Partner.CircuitBreakerSettings d = Partner.CircuitBreakerSettings.DEFAULT;
        private boolean enabled = true;
        private int consecutiveFailures = d.consecutiveFailures();
        private double failureRatio = d.failureRatio();
        private int minimumCalls = d.minimumCalls();
        private int window = d.window();
        private Duration coolDown = d.coolDown();
    }

    private static final class EjectionDraft {
        private int consecutiveFailures = Partner.Ejection.DEFAULT.consecutiveFailures();
        private Duration coolDown = Partner.Ejection.DEFAULT.coolDown();
    }

    private static final class SecretDraft {
        private String env;
        private Path file;
    }

    private static final class TlsDraft {
        private Path caFile;
        private Path trustStore;
        private String trustStorePassword;
        private Path keyStore;
        private String keyStorePassword;
        private boolean verifyHostname = true;
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
