package io.rc10k.broker.internal;

import io.rc10k.broker.Partner;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One attempt's response body, read into memory under two bounds: the partner's
 * {@link Partner#maxResponseBytes()} and the client's {@link BufferBudget}. Memory follows the bytes that
 * came, never a declared length: the buffer doubles from {@value #FIRST_BUFFER_BYTES} bytes as they arrive,
 * each step reserved from the budget first, and goes no further than the declared length or the bound
 * unless the bytes themselves do.
 *
 * <pre>{@code
 * BoundedBody body = new BoundedBody(partner, buffers);
 * Throwable refused = body.expect(status, "GET", declaredLength);   // null, or why to abort at once
 * refused = body.take(content);                                    // each piece; null, or why to abort
 * byte[] whole = body.bytes();
 * body.release();                                                  // as the attempt ends, whatever way
 * }</pre>
 *
 * <p>Threading: a response's events and its end come on one thread at a time (a connection's loop, or Jetty's
 * serialized response callbacks), so it needs no synchronization.</p>
 */
final class BoundedBody {
    private static final byte[] NO_BODY = new byte[0];
    /** A body's first buffer when it may be larger: it then doubles as bytes arrive, up to its declared length. */
    static final int FIRST_BUFFER_BYTES = 8 * 1024;

    private final Partner partner;
    private final BufferBudget budget;
    private byte[] body = NO_BODY;
    private int length;
    /** How far the buffer may grow before the bytes force it: the declared length, else maxResponseBytes. */
    private long expected = Long.MAX_VALUE;
    /** Of the budget: the buffer's capacity, given back by {@link #release}. */
    private long reserved;
    /** Refused for its size or the budget: what still arrives until the abort lands is dropped. */
    private boolean refused;

    BoundedBody(Partner partner, BufferBudget budget) {
        this.partner = partner;
        this.budget = budget;
    }

    /**
     * The response's head came: why to abort at once when its declared length passes the bound (and from now on
     * every byte is dropped), else null. HEAD, 204 and 304 declare a length but carry no body: nothing to refuse.
     *
     * @param declared the {@code Content-Length}, or -1 for none
     */
    Throwable expect(int status, String method, long declared) {
        boolean bodyFollows = !"HEAD".equals(method) && status != 204 && status != 304;
        if (bodyFollows && declared > partner.maxResponseBytes()) {
            return refuse(tooLarge(declared));
        }
        if (bodyFollows && declared >= 0) {
            // Only a hint for how far to grow: the buffer follows the bytes that come, never the declaration.
            expected = declared;
        }
        return null;
    }

    /**
     * Takes {@code content}'s bytes: why to abort when they pass the bound or the budget is spent (from then on
     * every byte is dropped), else null. After a refusal it drops what comes and returns null.
     */
    Throwable take(ByteBuffer content) {
        if (refused) {
            return null;
        }
        int n = content.remaining();
        if ((long) length + n > partner.maxResponseBytes()) {
            return refuse(tooLarge((long) length + n));
        }
        if (length + n > body.length) {
            Throwable spent = grow(length + n);
            if (spent != null) {
                return spent;
            }
        }
        content.get(body, length, n);
        length += n;
        return null;
    }

    /**
     * Makes room for {@code needed} bytes: doubling from {@value #FIRST_BUFFER_BYTES}, never past the declared
     * length or maxResponseBytes unless the bytes themselves do, each step reserved from the budget first; the
     * refusal when the budget is spent.
     */
    private Throwable grow(int needed) {
        long doubled = Math.max(FIRST_BUFFER_BYTES, 2L * body.length);
        int capacity = (int) Math.max(needed, Math.min(doubled, Math.min(expected, partner.maxResponseBytes())));
        long more = capacity - body.length;
        if (!budget.reserve(more)) {
            return refuse(new Failures.MemoryBudgetException("partner " + partner.name() + ": the client's budget of "
                    + budget.maxBytes() + " buffered response bytes is spent by the calls in flight "
                    + "(maxBufferedBytes)"));
        }
        reserved += more;
        body = Arrays.copyOf(body, capacity);
        return null;
    }

    private Throwable refuse(Throwable why) {
        refused = true;
        return why;
    }

    private Failures.TooLargeException tooLarge(long bytes) {
        return new Failures.TooLargeException("response body of " + partner.name() + " exceeds maxResponseBytes "
                + partner.maxResponseBytes() + " (at least " + bytes + " bytes)");
    }

    /** Bytes taken so far. */
    int length() {
        return length;
    }

    /** The body taken, exactly its length. */
    byte[] bytes() {
        return length == body.length ? body : Arrays.copyOf(body, length);
    }

    /** Gives the buffer's reservation back to the budget (the bytes stay readable); again, nothing. */
    void release() {
        budget.release(reserved);
        reserved = 0;
    }
}
