package io.rc10k.stubs.internal;

import java.nio.ByteBuffer;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.IteratingCallback;

/**
 * Writes a {@link Body} in chunks, one write in flight at a time, optionally pausing between writes
 * (the {@code drip} fault) and optionally stopping part-way (the {@code close-mid-body} fault).
 * Pauses are timer tasks: no thread waits.
 */
final class BodyWriter extends IteratingCallback {
    static final int CHUNK_BYTES = 16 * 1024;

    /** Runs a task on the pool after a pause. */
    interface Pauser {
        void later(long millis, Runnable work);
    }

    private final Response response;
    private final Body body;
    private final long stopAt;
    private final int chunkBytes;
    private final long pauseMillis;
    private final Pauser pauser;
    private final boolean chunked;
    private final Callback done;
    private long position;
    private boolean pausing;
    private boolean finished;

    /**
     * @param chunked never pass content with the last write: Jetty would then know the whole length
     *                and send a {@code Content-Length} after all
     */
    BodyWriter(Response response, Body body, long stopAt, int chunkBytes, long pauseMillis, Pauser pauser,
            boolean chunked, Callback done) {
        this.response = response;
        this.body = body;
        this.stopAt = stopAt;
        this.chunkBytes = chunkBytes;
        this.pauseMillis = pauseMillis;
        this.pauser = pauser;
        this.chunked = chunked;
        this.done = done;
    }

    @Override
    protected Action process() {
        if (position >= stopAt) {
            if (chunked && stopAt == body.size() && !finished) {
                finished = true;
                response.write(true, BufferUtil.EMPTY_BUFFER, this);
                return Action.SCHEDULED;
            }
            return Action.SUCCEEDED;
        }
        if (pauseMillis > 0 && position > 0 && !pausing) {
            pausing = true;
            pauser.later(pauseMillis, this::succeeded);
            return Action.SCHEDULED;
        }
        pausing = false;
        ByteBuffer chunk = body.slice(position, (int) Math.min(chunkBytes, stopAt - position));
        position += chunk.remaining();
        response.write(!chunked && position >= body.size(), chunk, this);
        return Action.SCHEDULED;
    }

    @Override
    protected void onCompleteSuccess() {
        done.succeeded();
    }

    @Override
    protected void onCompleteFailure(Throwable cause) {
        done.failed(cause);
    }
}
