package io.rc10k.mashup;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.rc10k.broker.Outcome;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * Writes the composite response (docs/mashup-server.md#endpoints-and-statuses), the same in every mode:
 *
 * <pre>
 * {"mashup":"travel","complete":false,"elapsedMillis":1003,
 *  "parts":{"weather":{"status":200,"elapsedMillis":512,"spanId":"53995c3f42cd8ad8","body":{...}},
 *           "hotels":{"error":"timeout","elapsedMillis":1000,"spanId":"c2fb1f8e4bb3a0a1"}}}
 * </pre>
 *
 * Each part's {@code spanId} is the span id its call sent in {@code traceparent}, so a reader can find
 * the call in the partner's logs; without span ids (benchmarks, tests) the field is left out.
 *
 * A JSON body is checked in one pass over its bytes ({@link JsonSyntax}) and embedded as it is (never parsed
 * into objects or tokens);
 * a {@code text/*} body becomes a string; anything else is a part error. Status: 200 when at least
 * one part succeeded, 504 when every part timed out, 502 otherwise — unless a required part failed:
 * then 502, or 504 when it timed out, and {@code "failedRequired"} names that part (the first to fail).
 * Thread-safe (stateless).
 */
public final class Composite {
    private static final JsonStringEncoder ENCODER = JsonStringEncoder.getInstance();

    /** The response: status, whether every part succeeded, and the body. */
    public record Response(int status, boolean complete, byte[] body, String outcome) {
    }

    /** One part's verdict; {@code embedded} is what to embed, or null for the outcome's JSON body as it is. */
    private record Part(String name, boolean ok, String error, Outcome outcome, byte[] embedded) {
    }

    private Composite() {
    }

    public static Response compose(String mashup, List<String> names, List<Outcome> outcomes, long elapsedMillis) {
        return compose(mashup, names, outcomes, null, elapsedMillis);
    }

    /** The composite with each part's span id ({@code spanIds}: in part order, or null for none). */
    public static Response compose(String mashup, List<String> names, List<Outcome> outcomes, long[] spanIds,
            long elapsedMillis) {
        return compose(mashup, names, outcomes, spanIds, null, -1, elapsedMillis);
    }

    /**
     * The composite of a mashup with required parts.
     *
     * @param required       which parts are required, in part order; null when none is
     * @param failedRequired the required part that failed first, as the fan-out saw it; -1 for none (then
     *                       the first required part that is not a success, if any, decides)
     */
    public static Response compose(String mashup, List<String> names, List<Outcome> outcomes, long[] spanIds,
            boolean[] required, int failedRequired, long elapsedMillis) {
        Part[] parts = new Part[outcomes.size()];
        int ok = 0;
        int timeouts = 0;
        int cause = failedRequired;
        for (int i = 0; i < parts.length; i++) {
            parts[i] = judge(names.get(i), outcomes.get(i));
            ok += parts[i].ok() ? 1 : 0;
            timeouts += "timeout".equals(parts[i].error()) ? 1 : 0;
            if (cause < 0 && required != null && required[i] && !parts[i].ok()) {
                cause = i;
            }
        }
        boolean complete = ok == parts.length;
        int status;
        if (cause >= 0) {
            status = "timeout".equals(parts[cause].error()) ? 504 : 502;
        } else {
            status = ok > 0 ? 200 : timeouts == parts.length ? 504 : 502;
        }
        String outcome = complete ? "complete" : status == 200 ? "partial" : status == 504 ? "timeout" : "failed";

        // The frame, ~100 bytes of fields per part (~130 with its span id), and the bodies: one buffer, never regrown.
        int perPart = spanIds == null ? 128 : 160;
        int bodies = 0;
        for (Outcome o : outcomes) {
            bodies += o.bodyLength();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(128 + perPart * parts.length + bodies);
        write(out, "{\"mashup\":");
        quote(out, mashup);
        write(out, ",\"complete\":" + complete);
        if (cause >= 0) {
            write(out, ",\"failedRequired\":");
            quote(out, parts[cause].name());
        }
        write(out, ",\"elapsedMillis\":" + elapsedMillis + ",\"parts\":{");
        for (int i = 0; i < parts.length; i++) {
            Part part = parts[i];
            if (i > 0) {
                out.write(',');
            }
            quote(out, part.name());
            out.write(':');
            if (part.ok()) {
                write(out, "{\"status\":" + part.outcome().status() + ",\"elapsedMillis\":"
                        + part.outcome().elapsedMillis());
                spanId(out, spanIds, i);
                write(out, ",\"body\":");
                if (part.embedded() == null) {
                    writeBody(out, part.outcome());
                } else {
                    out.writeBytes(part.embedded());
                }
                out.write('}');
            } else {
                write(out, "{\"error\":");
                quote(out, part.error());
                if (part.outcome().status() > 0) {
                    write(out, ",\"status\":" + part.outcome().status());
                }
                write(out, ",\"elapsedMillis\":" + part.outcome().elapsedMillis());
                spanId(out, spanIds, i);
                out.write('}');
            }
        }
        write(out, "}}");
        return new Response(status, complete, out.toByteArray(), outcome);
    }

    private static Part judge(String name, Outcome o) {
        if (o.kind() != Outcome.Kind.OK) {
            return new Part(name, false, o.kind().label(), o, null);
        }
        String type = o.contentType() == null ? "" : o.contentType().toLowerCase(Locale.ROOT);
        if (o.bodyLength() == 0) {
            return new Part(name, true, null, o, "null".getBytes(StandardCharsets.US_ASCII));
        }
        if (type.startsWith("application/json") || type.matches("application/[a-z0-9.+-]*\\+json.*")) {
            return isJson(o) ? new Part(name, true, null, o, null) : new Part(name, false, "malformed_json", o, null);
        }
        if (type.startsWith("text/")) {
            ByteArrayOutputStream text = new ByteArrayOutputStream(o.bodyLength() + 16);
            quote(text, o.bodyAsString());
            return new Part(name, true, null, o, text.toByteArray());
        }
        return new Part(name, false, "unsupported_content_type", o, null);
    }

    /** One complete JSON value and nothing after it, checked in one pass over the body's bytes ({@link JsonSyntax}). */
    static boolean isJson(Outcome o) {
        JsonSyntax.Check check = new JsonSyntax.Check();
        writeBody(check, o);
        return check.isOneValue();
    }

    private static void writeBody(OutputStream out, Outcome o) {
        try {
            o.writeBodyTo(out);
        } catch (IOException e) {
            throw new UncheckedIOException("an in-memory stream does not fail", e);
        }
    }

    /** {@code ,"spanId":"<16 hex digits>"} of part {@code i}, if there are span ids. */
    private static void spanId(ByteArrayOutputStream out, long[] spanIds, int i) {
        if (spanIds != null && i < spanIds.length) {
            write(out, ",\"spanId\":\"");
            for (int shift = 60; shift >= 0; shift -= 4) {
                out.write(Character.forDigit((int) (spanIds[i] >>> shift) & 0xf, 16));
            }
            out.write('"');
        }
    }

    private static void write(ByteArrayOutputStream out, String ascii) {
        out.writeBytes(ascii.getBytes(StandardCharsets.UTF_8));
    }

    private static void quote(ByteArrayOutputStream out, String s) {
        out.write('"');
        out.writeBytes(ENCODER.quoteAsUTF8(s));
        out.write('"');
    }

    /** A JSON error body for 400/404/503: {@code {"error": ..., "detail": ...}} plus extra fields. */
    public static byte[] error(String error, String detail, String... extraPairs) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(128);
        write(out, "{\"error\":");
        quote(out, error);
        write(out, ",\"detail\":");
        quote(out, detail);
        for (int i = 0; i + 1 < extraPairs.length; i += 2) {
            out.write(',');
            quote(out, extraPairs[i]);
            out.write(':');
            quote(out, extraPairs[i + 1]);
        }
        out.write('}');
        return out.toByteArray();
    }
}
