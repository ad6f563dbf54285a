package io.rc10k.stubs.internal;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.IteratingCallback;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Writes a {@link Body} in chunks, one write in flight at a time, optionally pausing between writes
 * (the {@code drip} fault) and optionally stopping part-way (the {@code close-mid-body} fault).
 * Pauses are timer tasks: no thread waits.
 */
final class BodyWriter extends IteratingCallback {
    static final int CHUNK_BYTES = 16 * 1024;

    private final Response response;
    private final Body body;
    private final long stopAt;
    private final int chunkBytes;
    private final long pauseMillis;
    private final Scheduler scheduler;
    private final Callback done;
    private long position;
    private boolean pausing;

    BodyWriter(Response response, Body body, long stopAt, int chunkBytes, long pauseMillis, Scheduler scheduler,
            Callback done) {
        this.response = response;
        this.body = body;
        this.stopAt = stopAt;
        this.chunkBytes = chunkBytes;
        this.pauseMillis = pauseMillis;
        this.scheduler = scheduler;
        this.done = done;
    }

    @Override
    protected Action process() {
        if (position >= stopAt) {
            return Action.SUCCEEDED;
        }
        if (pauseMillis > 0 && position > 0 && !pausing) {
            pausing = true;
            scheduler.schedule(this::succeeded, pauseMillis, TimeUnit.MILLISECONDS);
            return Action.SCHEDULED;
        }
        pausing = false;
        ByteBuffer chunk = body.slice(position, (int) Math.min(chunkBytes, stopAt - position));
        position += chunk.remaining();
        response.write(position >= body.size(), chunk, this);
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
