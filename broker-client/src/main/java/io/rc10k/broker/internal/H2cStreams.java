package io.rc10k.broker.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http2.ErrorCode;

/**
 * The streams of one {@link H2cConnection}: how many calls hold one (reserved against the partner's limit of
 * concurrent streams), the open ones by id, and how a stream ends — answered, reset, handed back to the
 * destination, or failed before it opened. Every end gives the stream back and tells the destination, whose
 * waiting calls may then take it.
 *
 * <p>Threading: {@link #reserve} from any thread, lock-free; {@link #opened} under the connection's lock; the
 * ends on the connection's loop.</p>
 */
final class H2cStreams {
    /** How many times a call the partner never processed (GOAWAY, REFUSED_STREAM) goes out again. */
    static final int MAX_HAND_BACKS = 2;

    private final H2cConnection connection;
    /** Open streams by id: put by the sending thread under the lock, read and removed on the loop. */
    private final Map<Integer, H2cCall> open = new ConcurrentHashMap<>();
    /** Streams reserved by calls (opened, or about to be): what {@link #reserve} counts against. */
    private final AtomicInteger reserved = new AtomicInteger();
    private final int configuredMax;
    private volatile int max;
    /** The highest stream id opened: frames for ids above it (or even ones) break the protocol. */
    private volatile int lastId;
    private volatile long idleSinceNanos = System.nanoTime();

    H2cStreams(H2cConnection connection, int configuredMax) {
        this.connection = connection;
        this.configuredMax = configuredMax;
        this.max = configuredMax;
    }

    /** Any thread: takes a stream if one is free; the taker then sends a call on it. */
    boolean reserve() {
        for (int now = reserved.get(); connection.accepting && now < max; now = reserved.get()) {
            if (reserved.compareAndSet(now, now + 1)) {
                return true;
            }
        }
        return false;
    }

    /** The stream of the call that opens the connection, before anyone else can see it. */
    void reserveFirst() {
        reserved.incrementAndGet();
    }

    /** A stream ended or was given back unused. */
    void release() {
        if (reserved.decrementAndGet() == 0) {
            idleSinceNanos = System.nanoTime();
            if (!connection.accepting) {
                connection.loop.run(connection::closeIfDone);
            }
        }
    }

    /** On the loop, the connection closing: the streams of the {@code ended} calls it ends, given back at once. */
    void giveBack(int ended) {
        reserved.addAndGet(-ended);
    }

    /** Streams reserved or open. */
    int count() {
        return reserved.get();
    }

    /** True when no stream is reserved or open, and has been since {@code since} or before. */
    boolean idleSince(long since) {
        return reserved.get() == 0 && idleSinceNanos - since <= 0;
    }

    /** Under the lock: the partner's SETTINGS_MAX_CONCURRENT_STREAMS, never above the partner's own setting. */
    void max(int value) {
        max = value < 0 ? configuredMax : Math.min(configuredMax, value);
    }

    /** Under the lock: the call's stream is open, its frames about to be queued. */
    void opened(H2cCall call) {
        lastId = call.streamId;
        open.put(call.streamId, call);
    }

    H2cCall get(int id) {
        return open.get(id);
    }

    Collection<H2cCall> open() {
        return open.values();
    }

    boolean isEmpty() {
        return open.isEmpty();
    }

    int lastId() {
        return lastId;
    }

    /** On the loop, the connection closing: the calls still open, no longer here. */
    List<H2cCall> drain() {
        List<H2cCall> calls = new ArrayList<>(open.values());
        open.clear();
        return calls;
    }

    /** On the loop: the partner ended the call's stream with a whole response. */
    void answered(H2cCall call) {
        boolean bodyLeft;
        synchronized (connection) {
            bodyLeft = connection.sender.forget(call);
        }
        open.remove(call.streamId);
        if (bodyLeft) {
            // Answered before the whole request went out: the rest is not wanted (RFC 9113 §8.1).
            connection.sender.send(H2Frames.reset(call.streamId, ErrorCode.NO_ERROR.code));
        }
        release();
        call.complete(call.status, call.responseHeaders, null, true);
        connection.destination.released(connection);
    }

    /**
     * On the loop: ends the call with {@code cause}, resetting its stream with {@code error} (none when the
     * partner reset it); the connection stays.
     */
    void reset(H2cCall call, ErrorCode error, Throwable cause) {
        if (open.remove(call.streamId) == null) {
            return;
        }
        List<H2cCall> sent;
        synchronized (connection) {
            connection.sender.forget(call);
            if (!connection.closed && error != null) {
                connection.sender.queue(H2Frames.reset(call.streamId, error.code));
            }
            sent = connection.sender.flush();
        }
        connection.sender.told(sent);
        release();
        call.complete(call.status, call.responseHeaders, cause, false);
        connection.destination.released(connection);
    }

    /**
     * On the loop: a stream the partner says it never processed (beyond its GOAWAY's last stream, or refused)
     * leaves the connection; its call goes out again on another, at most {@value #MAX_HAND_BACKS} times, or
     * ends with {@code why}.
     */
    void handBack(H2cCall call, String why) {
        if (open.remove(call.streamId) == null) {
            return;
        }
        synchronized (connection) {
            connection.sender.forget(call);
        }
        release();
        if (call.status == 0 && call.handBacks++ < MAX_HAND_BACKS) {
            call.connection = null;
            call.destination.dispatch(call);
        } else {
            call.complete(call.status, call.responseHeaders, new IOException(why), false);
        }
        connection.destination.released(connection);
    }

    /**
     * On the loop: the partner is going away (GOAWAY) having taken the streams up to {@code last}: no new stream
     * starts here, the later ones are handed back, and the connection closes once the rest have ended.
     */
    void goingAway(int last) {
        List<H2cCall> untaken = new ArrayList<>();
        synchronized (connection) {
            // Under the lock: a stream opened before this is among the open ones; none is opened after.
            connection.accepting = false;
            for (H2cCall call : open.values()) {
                if (call.streamId > last) {
                    untaken.add(call);
                }
            }
        }
        for (H2cCall call : untaken) {
            handBack(call, connection.partner + " is going away (GOAWAY) and did not take stream " + call.streamId);
        }
        connection.closeIfDone();
        connection.destination.released(connection);
    }

    /** Ends a call that got no stream (aborted, refused, late) with {@code cause}; the lock let go. */
    void fail(H2cCall call, Throwable cause) {
        release();
        call.complete(0, null, cause, false);
        connection.destination.released(connection);
    }
}
