package io.rc10k.mashup.internal.routing;

import static io.rc10k.mashup.internal.routing.JsonTree.Type.ARRAY;
import static io.rc10k.mashup.internal.routing.JsonTree.Type.BOOLEAN;
import static io.rc10k.mashup.internal.routing.JsonTree.Type.INTEGER;
import static io.rc10k.mashup.internal.routing.JsonTree.Type.NUMBER;
import static io.rc10k.mashup.internal.routing.JsonTree.Type.OBJECT;
import static io.rc10k.mashup.internal.routing.JsonTree.Type.STRING;

import io.rc10k.broker.Balancing;
import io.rc10k.broker.CircuitBreakerSettings;
import io.rc10k.broker.Ejection;
import io.rc10k.broker.Partner;
import io.rc10k.broker.PartnerTls;
import io.rc10k.broker.Protocol;
import io.rc10k.mashup.Definitions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A partner of the definitions file ({@code partners.<name>}), read for {@link DefinitionsJson}: its fields and those
 * of the objects inside it (circuit breaker, ejection, TLS, a header's secret), each set on the broker's
 * {@link Partner.Builder}, which checks them. A partner with a problem is still declared, so that the calls naming
 * it are not reported again.
 */
final class PartnerJson {
    /** A partner whose base URI is wrong is still built on this one, so that its other fields are checked too. */
    private static final String STAND_IN_URI = "http://stand-in.invalid/";

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
            .field("balancing", STRING, (p, v) -> p.builder().balancing(Balancing.parse(v.text())))
            .field("ejection", OBJECT, (p, v) -> ejection(v).ifPresent(p.builder()::ejection))
            .field("protocol", STRING, (p, v) -> p.builder().protocol(Protocol.parse(v.text())))
            .field("maxConnections", INTEGER, (p, v) -> p.builder().maxConnections(v.intValue()))
            .field("maxQueued", INTEGER, (p, v) -> p.builder().maxQueued(v.intValue()))
            .field("maxStreamsPerConnection", INTEGER, (p, v) -> p.builder().maxStreamsPerConnection(v.intValue()))
            .field("connectTimeoutMillis", INTEGER, (p, v) -> p.builder().connectTimeout(v.millis()))
            .field("callTimeoutMillis", INTEGER, (p, v) -> p.builder().callTimeout(v.millis()))
            .field("idleTimeoutMillis", INTEGER, (p, v) -> p.builder().idleTimeout(v.millis()))
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

    private PartnerJson() {
    }

    /** The declarations of a partner and of the objects inside it. */
    static List<Fields<?>> kinds() {
        return List.of(PARTNER, CIRCUIT_BREAKER, EJECTION, TLS, SECRET);
    }

    /** Declared even when wrong (its own problems are reported), so that calls naming it are not reported again. */
    static void read(Definitions.Builder definitions, String name, Value value) {
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
            value.problem("a " + value.node().type().name().toLowerCase(Locale.ROOT)
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

    private static Optional<Ejection> ejection(Value value) {
        int before = value.problemCount();
        EjectionDraft e = value.read(EJECTION, new EjectionDraft());
        if (value.problemCount() != before) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Ejection(e.consecutiveFailures, e.coolDown));
        } catch (IllegalArgumentException x) {
            value.problem(x.getMessage().replaceFirst("^ejection: ", ""));
            return Optional.empty();
        }
    }

    private static Optional<PartnerTls> tls(Value value) {
        int before = value.problemCount();
        TlsDraft t = value.read(TLS, new TlsDraft());
        if (value.problemCount() != before) {
            return Optional.empty();
        }
        try {
            return Optional.of(new PartnerTls(t.caFile, t.trustStore, t.trustStorePassword, t.keyStore,
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
    private static Optional<CircuitBreakerSettings> circuitBreaker(Value value) {
        int before = value.problemCount();
        BreakerDraft b = value.read(CIRCUIT_BREAKER, new BreakerDraft());
        if (value.problemCount() != before) {
            return Optional.empty();
        }
        try {
            return Optional.of(new CircuitBreakerSettings(b.enabled, b.consecutiveFailures, b.failureRatio,
                    b.minimumCalls, b.window, b.coolDown));
        } catch (IllegalArgumentException e) {
            CircuitBreakerSettings d = CircuitBreakerSettings.DEFAULT;
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

    /** Whether {@code name} may name a partner (a letter, then letters, digits, {@code _}, {@code -}). */
    static boolean isName(String name) {
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
        private final CircuitBreakerSettings d = CircuitBreakerSettings.DEFAULT;
        private boolean enabled = true;
        private int consecutiveFailures = d.consecutiveFailures();
        private double failureRatio = d.failureRatio();
        private int minimumCalls = d.minimumCalls();
        private int window = d.window();
        private Duration coolDown = d.coolDown();
    }

    private static final class EjectionDraft {
        private int consecutiveFailures = Ejection.DEFAULT.consecutiveFailures();
        private Duration coolDown = Ejection.DEFAULT.coolDown();
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

}
