package io.rc10k.mashup.internal.observability;

import jakarta.servlet.http.HttpServletRequest;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.concurrent.ThreadLocalRandom;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;

/**
 * One mashup request's place in a W3C Trace Context trace (Level 1, {@code traceparent} version
 * {@code 00}): the trace it continues or starts, the request's own span, and the headers each partner
 * call carries.
 *
 * <pre>{@code
 * TraceContext trace = TraceContext.of(request);
 * long span = TraceContext.newSpanId();
 * fields.add(trace.traceparent(span));     // traceparent: 00-<trace-id>-<span>-<flags>
 * if (trace.tracestate() != null) {
 *     fields.add(trace.tracestate());      // passed on as received
 * }
 * response.setHeader(TraceContext.TRACERESPONSE, trace.traceresponse());
 * }</pre>
 *
 * <p>A valid inbound {@code traceparent} is continued: its trace id, its {@code sampled} flag (the
 * other flags are reserved and sent as zero), and its {@code tracestate} unchanged when that is within
 * the spec's limits. Anything else — absent, malformed, duplicated — starts a new trace: a random
 * trace id, no {@code tracestate}, and flags {@code 00} (the spec's default for a trace a component
 * starts is "not sampled"), or {@code 01} when the server exports spans ({@link SpanExport}) and so
 * records the trace it starts. A server that exports may instead let its sampler decide, for a
 * continued trace too ({@link Sampling}).</p>
 *
 * <p>Threading: made by the thread that routes the request, which also calls {@link #traceparent}
 * for each call (it rewrites one buffer); after routing, only the immutable values ({@link #traceId},
 * {@link #traceresponse}, {@link #tracestate}) are read, from any thread.</p>
 */
public final class TraceContext {
    public static final String TRACEPARENT = "traceparent";
    public static final String TRACESTATE = "tracestate";
    /** The response header (W3C Trace Context Level 2): the trace and the mashup request's own span. */
    public static final String TRACERESPONSE = "traceresponse";
    /** The spec's minimum to propagate; a longer {@code tracestate} loses whole entries. */
    static final int MAX_TRACESTATE_LENGTH = 512;
    static final int MAX_TRACESTATE_MEMBERS = 32;
    /** Entries longer than this go first when a {@code tracestate} must be truncated. */
    private static final int LONG_ENTRY = 128;
    private static final int LENGTH = 55;
    private static final int TRACE_ID = 3;
    private static final int SPAN_ID = 36;
    private static final int FLAGS = 53;
    private static final int SAMPLED = 0x01;
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    /** The next {@code traceparent}: {@code 00-<trace-id>-<span-id>-<flags>}, its span id rewritten per call. */
    private final byte[] header = new byte[LENGTH];
    /** The inbound {@code traceparent} continued, or null: kept as received, read only by a span export. */
    private final String inbound;
    private final HttpField tracestate;
    private final String traceresponse;

    private TraceContext(String inbound, long high, long low, int flags, String tracestate) {
        header[0] = '0';
        header[1] = '0';
        header[2] = '-';
        if (inbound != null) {
            for (int i = TRACE_ID; i < TRACE_ID + 32; i++) {
                header[i] = (byte) inbound.charAt(i); // checked: lowercase hex
            }
        } else {
            hex(high, header, TRACE_ID);
            hex(low, header, TRACE_ID + 16);
        }
        header[SPAN_ID - 1] = '-';
        header[FLAGS - 1] = '-';
        header[FLAGS] = HEX[flags >>> 4];
        header[FLAGS + 1] = HEX[flags & 0xf];
        this.inbound = inbound;
        this.tracestate = tracestate == null ? null : new HttpField((HttpHeader) null, TRACESTATE, tracestate);
        this.traceresponse = headerValue(newSpanId());
    }

    /**
     * Whether this server records a trace: asked once per routed request when spans are exported, so that
     * the flags the partners receive carry the decision (OpenTelemetry's sampler, {@link SpanExport}).
     */
    @FunctionalInterface
    public interface Sampling {
        /**
         * @param traceId      the trace's 32 hex digits
         * @param parentSpanId the caller's span (16 hex digits), or null for a trace this server starts
         * @param parentFlags  the caller's flags ({@code 01}: it records the trace), or null
         * @param mashup       the mashup's name
         */
        boolean sampled(String traceId, String parentSpanId, String parentFlags, String mashup);
    }

    /** The request's trace context, from its {@code traceparent} and {@code tracestate} headers. */
    public static TraceContext of(HttpServletRequest request) {
        return of(request, false);
    }

    /**
     * The request's trace context, from its {@code traceparent} and {@code tracestate} headers; a new
     * trace is started {@code sampled} (as a server that records spans starts it) or not.
     */
    public static TraceContext of(HttpServletRequest request, boolean sampled) {
        String traceparent = request.getHeader(TRACEPARENT);
        if (traceparent == null) {
            return start(sampled);
        }
        int flags = flags(traceparent);
        if (flags < 0) {
            return start(sampled); // and tracestate is not even read, as the spec asks
        }
        Enumeration<String> all = request.getHeaders(TRACEPARENT);
        all.nextElement();
        if (all.hasMoreElements()) {
            return start(sampled); // two traceparents: neither can be trusted
        }
        Enumeration<String> states = request.getHeaders(TRACESTATE);
        String tracestate = null;
        if (states != null && states.hasMoreElements()) {
            tracestate = states.nextElement();
            while (states.hasMoreElements()) {
                // Several fields are one list, joined as RFC 9110 combines field lines.
                tracestate = tracestate + "," + states.nextElement();
            }
        }
        return new TraceContext(traceparent, 0, 0, flags & SAMPLED, bounded(tracestate));
    }

    /**
     * The request's trace context as {@link #of(HttpServletRequest, boolean)} reads it, its {@code sampled}
     * flag decided by {@code sampling} (a new trace's ids are chosen first: a sampler may decide by them).
     */
    public static TraceContext of(HttpServletRequest request, Sampling sampling, String mashup) {
        TraceContext trace = of(request, false);
        String parentFlags = trace.inbound == null ? null : trace.inbound.substring(FLAGS, FLAGS + 2);
        boolean sampled = sampling.sampled(trace.traceId(), trace.parentSpanId(), parentFlags, mashup);
        return sampled == trace.sampled() ? trace : new TraceContext(trace, sampled ? SAMPLED : 0);
    }

    /** {@code from} with other flags: the same trace, spans and {@code tracestate}. */
    private TraceContext(TraceContext from, int flags) {
        System.arraycopy(from.header, 0, header, 0, LENGTH);
        header[FLAGS] = HEX[flags >>> 4];
        header[FLAGS + 1] = HEX[flags & 0xf];
        this.inbound = from.inbound;
        this.tracestate = from.tracestate;
        this.traceresponse = from.traceresponse.substring(0, FLAGS) + (char) header[FLAGS] + (char) header[FLAGS + 1];
    }

    /** Continues {@code traceparent} when it is valid, else starts a new trace ({@code tracestate} then dropped). */
    public static TraceContext of(String traceparent, String tracestate) {
        int flags = flags(traceparent);
        if (flags < 0) {
            return start();
        }
        return new TraceContext(traceparent, 0, 0, flags & SAMPLED, bounded(tracestate));
    }

    /** A new trace: a random trace id, not sampled, no {@code tracestate}. */
    public static TraceContext start() {
        return start(false);
    }

    /** A new trace: a random trace id, no {@code tracestate}, flags {@code 01} if {@code sampled}, else {@code 00}. */
    public static TraceContext start(boolean sampled) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long high;
        long low;
        do {
            high = random.nextLong();
            low = random.nextLong();
        } while (high == 0 && low == 0);
        return new TraceContext(null, high, low, sampled ? SAMPLED : 0, null);
    }

    /** A random span id, never zero (the spec's invalid value). */
    public static long newSpanId() {
        long id;
        do {
            id = ThreadLocalRandom.current().nextLong();
        } while (id == 0);
        return id;
    }

    /** The {@code traceparent} field of one call whose span is {@code spanId}. Routing thread only. */
    public HttpField traceparent(long spanId) {
        return new HttpField((HttpHeader) null, TRACEPARENT, headerValue(spanId));
    }

    private String headerValue(long spanId) {
        hex(spanId, header, SPAN_ID);
        return new String(header, StandardCharsets.ISO_8859_1);
    }

    /** The {@code tracestate} field to pass on, or null: none came, it was invalid, or a new trace started. */
    public HttpField tracestate() {
        return tracestate;
    }

    /** {@code 00-<trace-id>-<the mashup request's span id>-<flags>}, for the response. */
    public String traceresponse() {
        return traceresponse;
    }

    /** The 32 hex digits of the trace id. */
    public String traceId() {
        return traceresponse.substring(TRACE_ID, TRACE_ID + 32);
    }

    /** The flags sent on: {@code 00} or {@code 01} (sampled). */
    public String flags() {
        return traceresponse.substring(FLAGS);
    }

    /** Whether the flags sent on say {@code sampled}: the caller, or this server, records the trace. */
    public boolean sampled() {
        return header[FLAGS + 1] == '1';
    }

    /** The 16 hex digits of the mashup request's own span id (the one in {@link #traceresponse}). */
    public String spanId() {
        return traceresponse.substring(SPAN_ID, SPAN_ID + 16);
    }

    /** The 16 hex digits of the caller's span (this request's parent), or null: this server started the trace. */
    public String parentSpanId() {
        return inbound == null ? null : inbound.substring(SPAN_ID, SPAN_ID + 16);
    }

    /** Whether the request's {@code traceparent} was continued (false: this server started the trace). */
    public boolean continued() {
        return inbound != null;
    }

    /**
     * The inbound flags when {@code value} is a {@code traceparent} this server may continue, else -1.
     * Version 00 is exactly 55 characters; a later version (not {@code ff}) is read as far as version 00
     * goes, and what follows must start with a dash — its fields are not ours to read.
     */
    static int flags(String value) {
        if (value == null || value.length() < LENGTH) {
            return -1;
        }
        int version = hexByte(value, 0);
        if (version < 0 || version == 0xff || value.charAt(2) != '-') {
            return -1;
        }
        if (version == 0 ? value.length() != LENGTH : value.length() > LENGTH && value.charAt(LENGTH) != '-') {
            return -1;
        }
        if (value.charAt(SPAN_ID - 1) != '-' || value.charAt(FLAGS - 1) != '-'
                || !nonZeroHex(value, TRACE_ID, SPAN_ID - 1) || !nonZeroHex(value, SPAN_ID, FLAGS - 1)) {
            return -1;
        }
        return hexByte(value, FLAGS);
    }

    /**
     * {@code tracestate} as it will be passed on: unchanged when it is printable ASCII of at most 32
     * list members and 512 characters; past 512, whole entries are removed as the spec says (those
     * over 128 characters first, then from the end); null when nothing of it is left or it is invalid.
     */
    static String bounded(String value) {
        if (value == null) {
            return null;
        }
        int members = 1;
        boolean content = false;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == ',') {
                members++;
            } else if (c != ' ' && c != '\t') {
                if (c < 0x21 || c > 0x7e) {
                    return null;
                }
                content = true;
            }
        }
        if (!content || members > MAX_TRACESTATE_MEMBERS) {
            return null;
        }
        return value.length() <= MAX_TRACESTATE_LENGTH ? value : truncated(value);
    }

    /** Rare: a list over 512 characters, cut down to whole entries. */
    private static String truncated(String value) {
        String[] entries = value.split(",", -1);
        int length = 0;
        for (int i = 0; i < entries.length; i++) {
            entries[i] = entries[i].strip();
            length += entries[i].isEmpty() ? 0 : entries[i].length() + 1;
        }
        for (int i = 0; i < entries.length && length - 1 > MAX_TRACESTATE_LENGTH; i++) {
            if (entries[i].length() > LONG_ENTRY) {
                length -= entries[i].length() + 1;
                entries[i] = "";
            }
        }
        for (int i = entries.length - 1; i >= 0 && length - 1 > MAX_TRACESTATE_LENGTH; i--) {
            if (!entries[i].isEmpty()) {
                length -= entries[i].length() + 1;
                entries[i] = "";
            }
        }
        StringBuilder kept = new StringBuilder(MAX_TRACESTATE_LENGTH);
        for (String entry : entries) {
            if (!entry.isEmpty()) {
                kept.append(kept.length() == 0 ? "" : ",").append(entry);
            }
        }
        return kept.length() == 0 ? null : kept.toString();
    }

    /** Writes the 16 lowercase hex digits of {@code value} at {@code offset}. */
    private static void hex(long value, byte[] out, int offset) {
        for (int i = 15; i >= 0; i--) {
            out[offset + i] = HEX[(int) value & 0xf];
            value >>>= 4;
        }
    }

    private static boolean nonZeroHex(String s, int from, int to) {
        boolean nonZero = false;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
            nonZero |= c != '0';
        }
        return nonZero;
    }

    private static int hexByte(String s, int at) {
        int high = hexDigit(s.charAt(at));
        int low = hexDigit(s.charAt(at + 1));
        return high < 0 || low < 0 ? -1 : high << 4 | low;
    }

    private static int hexDigit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    }
}
