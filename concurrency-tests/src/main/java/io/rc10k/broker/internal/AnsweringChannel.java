package io.rc10k.broker.internal;

import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A partner on the other end of a {@link FakeSocketChannel}: once a request starts to arrive it has its answer
 * ready to read (a 200 with a two-byte body, kept alive), once. The first write takes a moment, as the copy into
 * a real socket's buffer does, and its first bytes have arrived while it lasts, so the answer can be read and
 * parsed before the writing thread is back. (Later writes are instant: a jcstress actor that writes them would
 * otherwise fall behind the other, which then finds each state's race already over.) It notes any request whose
 * bytes begin before the bytes of an earlier one all went out: on a real connection those would reach the
 * partner inside the earlier request.
 */
final class AnsweringChannel extends FakeSocketChannel {
    private static final byte[] ANSWER = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"
            .getBytes(StandardCharsets.US_ASCII);
    /** How long the first write lasts, in spin-wait hints: about as long as the loop takes to parse the answer. */
    private static final int COPY_SPINS = 50;

    /** What the loop's selector hands a connection whose partner has sent bytes. */
    static final SelectionKey READABLE = new FakeSelectionKey(SelectionKey.OP_READ);

    /** The most bytes one write takes: all of them, or fewer (a full socket buffer). */
    private final int takenPerWrite;
    private final AtomicInteger writing = new AtomicInteger();
    private final AtomicInteger writes = new AtomicInteger();
    /** A write left bytes behind: whatever is written next lands inside that request. */
    private volatile boolean unfinished;
    /** The partner has the first bytes of a request: its answer may be read. */
    private volatile boolean requestArrived;
    /** Read by the loop only. */
    private boolean answered;
    /** Requests begun over an earlier one's unwritten bytes. */
    final AtomicInteger interleaved = new AtomicInteger();

    /** @param takenPerWrite the most bytes one write takes */
    AnsweringChannel(int takenPerWrite) {
        this.takenPerWrite = takenPerWrite;
    }

    boolean requestArrived() {
        return requestArrived;
    }

    @Override
    public int write(ByteBuffer src) {
        if (writing.incrementAndGet() > 1 || unfinished) {
            interleaved.incrementAndGet();
        }
        requestArrived = true;
        if (writes.getAndIncrement() == 0) {
            for (int i = 0; i < COPY_SPINS; i++) {
                Thread.onSpinWait();
            }
        }
        int n = Math.min(src.remaining(), takenPerWrite);
        src.position(src.position() + n);
        if (src.hasRemaining()) {
            unfinished = true;
        }
        writing.decrementAndGet();
        return n;
    }

    @Override
    public int read(ByteBuffer dst) {
        if (answered || !requestArrived) {
            return 0;
        }
        answered = true;
        dst.put(ANSWER);
        return ANSWER.length;
    }
}
