package io.rc10k.broker.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.rc10k.broker.Partner;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** {@link BoundedBody}, driven directly: what it reserves from a real {@link BufferBudget}, and when it refuses. */
class BoundedBodyTest {
    private static final Partner PARTNER = Partner.builder("p", "http://p.invalid:1").maxResponseBytes(100_000).build();

    private final BufferBudget budget = new BufferBudget(1 << 20);

    private static ByteBuffer bytes(int n, int value) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) value);
        return ByteBuffer.wrap(b);
    }

    @Test
    void theBufferDoublesWithTheBytesFromItsFirstSizeAndTheReservationGoesBackOnce() {
        BoundedBody body = new BoundedBody(PARTNER, budget);
        assertNull(body.expect(200, "GET", -1));
        assertNull(body.take(bytes(10, 1)));
        assertEquals(BoundedBody.FIRST_BUFFER_BYTES, budget.used(), "the first buffer, not the bytes' 10");
        assertNull(body.take(bytes(BoundedBody.FIRST_BUFFER_BYTES, 2)));
        assertEquals(2L * BoundedBody.FIRST_BUFFER_BYTES, budget.used(), "doubled");
        assertEquals(10 + BoundedBody.FIRST_BUFFER_BYTES, body.length());
        byte[] whole = body.bytes();
        assertEquals(body.length(), whole.length);
        assertEquals(1, whole[9]);
        assertEquals(2, whole[10]);
        body.release();
        body.release();
        assertEquals(0, budget.used());
    }

    @Test
    void aDeclaredLengthBoundsTheGrowthButNeverWhatArrives() {
        BoundedBody body = new BoundedBody(PARTNER, budget);
        assertNull(body.expect(200, "GET", 20));
        assertNull(body.take(bytes(10, 1)));
        assertEquals(20, budget.used(), "the declared length, not the first buffer's size");
        assertNull(body.take(bytes(30, 1)), "more than declared: the bytes decide");
        assertEquals(40, body.length());
        assertEquals(40, budget.used(), "grown to what came");
        body.release();
        assertEquals(0, budget.used());
    }

    @Test
    void aDeclaredLengthPastTheBoundIsRefusedAtOnceUnlessNoBodyFollows() {
        long past = PARTNER.maxResponseBytes() + 1;
        assertInstanceOf(Failures.TooLargeException.class, new BoundedBody(PARTNER, budget).expect(200, "GET", past));
        assertNull(new BoundedBody(PARTNER, budget).expect(200, "HEAD", past));
        assertNull(new BoundedBody(PARTNER, budget).expect(204, "GET", past));
        assertNull(new BoundedBody(PARTNER, budget).expect(304, "GET", past));
        assertEquals(0, budget.used());
    }

    @Test
    void bytesPastTheBoundAreRefusedOnceAndWhatFollowsIsDropped() {
        BoundedBody body = new BoundedBody(PARTNER, budget);
        body.expect(200, "GET", -1);
        assertNull(body.take(bytes(60_000, 1)));
        assertInstanceOf(Failures.TooLargeException.class, body.take(bytes(60_000, 1)));
        assertNull(body.take(bytes(10, 1)), "refused already: dropped, not refused again");
        assertEquals(60_000, body.length());
        body.release();
        assertEquals(0, budget.used());
    }

    @Test
    void aSpentBudgetRefusesTheBodyThatWouldGrowPastIt() {
        BufferBudget small = new BufferBudget(BoundedBody.FIRST_BUFFER_BYTES);
        BoundedBody body = new BoundedBody(PARTNER, small);
        body.expect(200, "GET", -1);
        assertNull(body.take(bytes(BoundedBody.FIRST_BUFFER_BYTES, 1)));
        assertInstanceOf(Failures.MemoryBudgetException.class, body.take(bytes(1, 1)));
        assertEquals(BoundedBody.FIRST_BUFFER_BYTES, small.used(), "nothing reserved past the budget");
        body.release();
        assertEquals(0, small.used());
    }
}
