package io.rc10k.stubs.internal;

import io.rc10k.stubs.Misbehaviour;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Chooses the script for a request and counts the choice: {@code /ok} is answered correctly,
 * {@code /<token>} misbehaves as asked, {@code /} lists them, and any other path is a 404 — or, in
 * chaos mode, any path but those two kinds gets a correct answer, or now and then a misbehaviour drawn
 * at random. Thread-safe.
 */
final class Router {
    static final String OK_PATH = "/ok";
    private static final String KNOWN = OK_PATH + "  a correct 200 {\"ok\":true}\n"
            + Arrays.stream(Misbehaviour.values()).map(Router::line).collect(Collectors.joining("\n"));

    private final HostileCounters counters;
    private final Chaos chaos;

    /** @param chaos null when chaos mode is off */
    Router(HostileCounters counters, Chaos chaos) {
        this.counters = counters;
        this.chaos = chaos;
    }

    /** {@code /token  description [expected, or also allowed]}: one line of the listing. */
    private static String line(Misbehaviour m) {
        String allowed = m.allowed().stream().filter(e -> e != m.expected()).map(e -> "; or " + e.label())
                .collect(Collectors.joining());
        return "/" + m.token() + "  " + m.description() + " [" + m.expected().label() + allowed + "]";
    }

    /** The misbehaviour asked for by a request for {@code path}, or null. */
    static Misbehaviour named(String path) {
        return path.length() < 2 ? null : Misbehaviour.find(path.substring(1)).orElse(null);
    }

    Script route(RequestHead head) {
        if (head.hasBody()) {
            counters.refused();
            return Playbook.refuse(400, "Bad Request", "the hostile partner reads no request bodies");
        }
        if (OK_PATH.equals(head.path())) {
            counters.answeredOk();
            return Playbook.ok();
        }
        Misbehaviour named = named(head.path());
        if (named != null) {
            try {
                Script script = Playbook.script(named, new Tuning(named.token(), head.query()));
                counters.misbehaved(named);
                return script;
            } catch (BadParameterException e) {
                counters.refused();
                return Playbook.badParameter(e);
            }
        }
        if (chaos == null && "/".equals(head.path())) {
            return Playbook.index(KNOWN);
        }
        if (chaos == null) {
            counters.refused();
            return Playbook.notFound(head.path(), KNOWN);
        }
        Misbehaviour drawn = chaos.draw();
        if (drawn == null) {
            counters.answeredOk();
            return Playbook.ok();
        }
        return misbehave(drawn);
    }

    /** {@code m} as it is with no parameters: for chaos draws and misbehaviours at accept. */
    Script misbehave(Misbehaviour m) {
        try {
            Script script = Playbook.script(m, Tuning.defaults(m.token()));
            counters.misbehaved(m);
            return script;
        } catch (BadParameterException e) {
            throw new AssertionError("the defaults of " + m + " are out of range", e);
        }
    }

    Script refuse(int status, String reason, String why) {
        counters.refused();
        return Playbook.refuse(status, reason, why);
    }
}
