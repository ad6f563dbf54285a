package io.rc10k.broker;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * How one exchange ended: its {@link Kind}, the response when there was one, and how long it took.
 * Immutable: the body is read through {@link #bodyStream()} or {@link #writeBodyTo} without a copy, or
 * copied by {@link #body()}.
 */
public final class Outcome {
    /** Every way an exchange can end. */
    public enum Kind {
        /** A response with a status below 400 and its whole body. */
        OK,
        /** A response with a status of 400 or more, and its whole body. */
        HTTP_ERROR,
        /** The exchange's call timeout or the fan-out deadline passed first. */
        TIMEOUT,
        /** No connection could be made (refused, unreachable, connect timeout); nothing was sent. */
        CONNECT_FAILED,
        /**
         * An {@code https} partner's TLS handshake failed: its certificate is not trusted or not for its host,
         * no TLS version or cipher is shared, or it does not speak TLS. Nothing was sent; not retried, as a
         * second handshake would fail the same way.
         */
        TLS_FAILED,
        /** The connection or stream broke after the request went out: reset, or closed before the response ended. */
        RESET,
        /**
         * The partner's bytes broke HTTP: a bad status line, header or chunk, lengths that disagree, a response it
         * was not asked for. Ended as soon as the bytes arrived; the connection is closed, and the call not retried.
         */
        MALFORMED,
        /** The response body was larger than the partner's {@code maxResponseBytes}. */
        TOO_LARGE,
        /**
         * The client's budget of buffered response bytes, shared by every partner, was spent by calls in
         * flight ({@code BrokerClient.Builder#maxBufferedBytes}): this call's body could not be kept.
         */
        MEMORY_BUDGET,
        /** Not started: the partner's connections and queue were full. */
        REJECTED,
        /** Aborted by the caller, or by the client stopping while the exchange was in flight. */
        CANCELLED,
        /** Not started: the partner's circuit breaker is open after repeated failures. */
        CIRCUIT_OPEN,
        /** Not started: a call it depends on ended without what it needed ({@link Call.Builder#after}). */
        SKIPPED;

        /** The name used in metrics and composite responses: {@code connect_failed}, {@code too_large}, … */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final byte[] NO_BODY = new byte[0];

    private final String partner;
    private final Kind kind;
    private final int status;
    private final String contentType;
    private final byte[] body;
    private final long elapsedNanos;
    private final int attempts;
    private final Throwable failure;
    private final int hedges;
    private final boolean hedgeWon;
    private final String cache;

    private Outcome(String partner, Kind kind, int status, String contentType, byte[] body, long elapsedNanos,
            int attempts, Throwable failure) {
        this(partner, kind, status, contentType, body, elapsedNanos, attempts, failure, 0, false, null);
    }

    private Outcome(String partner, Kind kind, int status, String contentType, byte[] body, long elapsedNanos,
            int attempts, Throwable failure, int hedges, boolean hedgeWon, String cache) {
        this.cache = cache;
        this.hedges = hedges;
        this.hedgeWon = hedgeWon;
        this.partner = partner;
        this.kind = kind;
        this.status = status;
        this.contentType = contentType;
        this.body = body;
        this.elapsedNanos = elapsedNanos;
        this.attempts = attempts;
        this.failure = failure;
    }

    /** A response: OK below 400, HTTP_ERROR from 400. */
    public static Outcome response(String partner, int status, String contentType, byte[] body, long elapsedNanos,
            int attempts) {
        return new Outcome(partner, status < 400 ? Kind.OK : Kind.HTTP_ERROR, status, contentType,
                body == null ? NO_BODY : body, elapsedNanos, attempts, null);
    }

    /** No (whole) response; {@code status} is the response status when headers had arrived, else 0. */
    public static Outcome failure(String partner, Kind kind, int status, Throwable failure, long elapsedNanos,
            int attempts) {
        if (kind == Kind.OK || kind == Kind.HTTP_ERROR) {
            throw new IllegalArgumentException("a failure cannot be " + kind);
        }
        return new Outcome(partner, kind, status, null, NO_BODY, elapsedNanos, attempts, failure);
    }

    public String partner() {
        return partner;
    }

    public Kind kind() {
        return kind;
    }

    /** True for OK and HTTP_ERROR: a whole response arrived. */
    public boolean hasResponse() {
        return kind == Kind.OK || kind == Kind.HTTP_ERROR;
    }

    /** The response status, or 0 when no response headers arrived. */
    public int status() {
        return status;
    }

    /** The response's {@code Content-Type}, or null. */
    public String contentType() {
        return contentType;
    }

    /** A copy of the whole response body (empty without a response). */
    public byte[] body() {
        return body.clone();
    }

    /** The body's length in bytes (0 without a response). */
    public int bodyLength() {
        return body.length;
    }

    /** The body to read, without a copy. */
    public InputStream bodyStream() {
        return new ByteArrayInputStream(body);
    }

    /** Writes the whole body to {@code out}, without a copy. */
    public void writeBodyTo(OutputStream out) throws IOException {
        out.write(body);
    }

    public String bodyAsString() {
        return new String(body, StandardCharsets.UTF_8);
    }

    public long elapsedNanos() {
        return elapsedNanos;
    }

    public Duration elapsed() {
        return Duration.ofNanos(elapsedNanos);
    }

    public long elapsedMillis() {
        return elapsedNanos / 1_000_000;
    }

    /** Attempts made: 1, or more after retries and hedges. */
    public int attempts() {
        return attempts;
    }

    /** Extra attempts sent because the call was hedged ({@link Hedging}); 0 for an unhedged call. */
    public int hedges() {
        return hedges;
    }

    /** True when a hedge, not the first attempt, answered the call. */
    public boolean hedgeWon() {
        return hedgeWon;
    }

    /** This outcome with its hedging counts. */
    public Outcome withHedges(int hedges, boolean hedgeWon) {
        return hedges == 0 && !hedgeWon ? this
                : new Outcome(partner, kind, status, contentType, body, elapsedNanos, attempts, failure, hedges, hedgeWon,
                        cache);
    }

    /** Cached calls ({@link Caching}): {@code hit}, {@code coalesced} (the answer of an identical call out at the
     * same time), {@code miss} (this call asked the partner); null for a call without caching. */
    public String cache() {
        return cache;
    }

    /**
     * This outcome as a cached call sees it: {@code how} it came ({@link #cache()}), after
     * {@code elapsedNanos} of its own; no attempt of its own unless a miss.
     */
    public Outcome fromCache(String how, long elapsedNanos) {
        boolean own = "miss".equals(how);
        return new Outcome(partner, kind, status, contentType, body, own ? this.elapsedNanos : elapsedNanos,
                own ? attempts : 0, failure, own ? hedges : 0, own && hedgeWon, how);
    }

    /** The cause of a failure, or null. */
    public Throwable failure() {
        return failure;
    }

    @Override
    public String toString() {
        return partner + ": " + kind + (status > 0 ? " " + status : "") + (hasResponse() ? " " + body.length + "B" : "")
                + " in " + elapsedMillis() + "ms" + (attempts > 1 ? " after " + attempts + " attempts" : "")
                + (failure != null ? " (" + failure + ")" : "");
    }
}
