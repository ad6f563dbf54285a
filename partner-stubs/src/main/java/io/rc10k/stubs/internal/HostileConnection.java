package io.rc10k.stubs.internal;

import io.rc10k.stubs.Misbehaviour;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One accepted connection: reads a request head, plays the script the {@link Router} picks, then reads
 * the next head, holds, closes or resets as the script ends. Confined to its {@link HostileLoop}: every
 * method runs there, timer tasks included (they are handed to the loop), so there are no locks.
 *
 * <p>States: READING (a head, with the idle timeout) → PLAYING (a script, under the stall cap) →
 * READING again, HOLDING (discarding reads until the client closes or the cap), or CLOSED. A timer task
 * carries the {@code epoch} it was set in and does nothing once the connection has moved on.</p>
 */
final class HostileConnection implements HostileLoop.Ready, ScriptRun.Stage {
    private static final Logger LOG = LoggerFactory.getLogger(HostileConnection.class);
    private static final int FIRST_BUFFER_BYTES = 2048;

    private enum State { READING, PLAYING, HOLDING, CLOSED }

    private final SocketChannel channel;
    private final HostileLoop loop;
    private final HostileServer.Shared shared;
    private SelectionKey key;
    private State state = State.READING;
    /** Request bytes read and not yet handled, in write mode. */
    private ByteBuffer in = ByteBuffer.allocate(FIRST_BUFFER_BYTES);
    private int scanned;
    private boolean answeredAhead;
    private boolean closeAfter;
    private long epoch;
    private Future<?> timeout;
    private ScriptRun run;

    HostileConnection(SocketChannel channel, HostileLoop loop, HostileServer.Shared shared) {
        this.channel = channel;
        this.loop = loop;
        this.shared = shared;
    }

    /** On the loop, once: registers, then reads the first head — or misbehaves at once, unasked. */
    void open(Misbehaviour atAccept) {
        try {
            key = loop.register(channel, 0, this);
        } catch (IOException | ClosedSelectorException e) {
            close(); // the partner is stopping
            return;
        }
        if (atAccept == null) {
            startReading();
            return;
        }
        // Whatever it sends answers the connection's first request, ahead of it.
        answeredAhead = true;
        play(shared.router().misbehave(atAccept));
    }

    @Override
    public void ready(SelectionKey ready) {
        if (state == State.READING && ready.isReadable()) {
            read();
        } else if (state == State.HOLDING && ready.isReadable()) {
            discard();
        } else if (state == State.PLAYING && ready.isWritable()) {
            key.interestOps(0);
            run.resume();
        }
    }

    private void startReading() {
        moveOn(State.READING);
        key.interestOps(SelectionKey.OP_READ);
        timeout = later(shared.idleTimeoutMillis(), this::close);
        if (in.position() > 0) {
            // A pipelined request, already read: handled as a task, so a long pipeline does not recurse.
            long now = epoch;
            loop.execute(() -> {
                if (epoch == now) {
                    headBytes();
                }
            });
        }
    }

    private void read() {
        try {
            if (!in.hasRemaining()) {
                if (in.capacity() >= Playbook.HEAD_LIMIT) {
                    play(shared.router().refuse(431, "Request Header Fields Too Large", "the request head is over "
                            + Playbook.HEAD_LIMIT + " bytes"));
                    return;
                }
                in = ByteBuffer.allocate(in.capacity() * 2).put(in.flip());
            }
            if (channel.read(in) < 0) {
                close();
                return;
            }
        } catch (IOException e) {
            broken(e);
            return;
        }
        headBytes();
    }

    /** Acts on a whole head if the bytes hold one; answers ahead on a bare request line if it asks to. */
    private void headBytes() {
        int end = headEnd();
        if (end < 0) {
            if (!answeredAhead && answersAhead()) {
                answeredAhead = true;
                play(shared.router().misbehave(Misbehaviour.ANSWER_BEFORE_READ));
            }
            return;
        }
        String text = new String(in.array(), 0, end, StandardCharsets.ISO_8859_1);
        in.flip().position(end);
        in.compact();
        scanned = 0;
        closeAfter = false;
        RequestHead head;
        try {
            head = RequestHead.parse(text);
        } catch (RequestHead.NotHttpException e) {
            play(shared.router().refuse(400, "Bad Request", e.getMessage()));
            return;
        }
        closeAfter = head.close();
        if (answeredAhead) {
            answeredAhead = false;
            finished(Script.End.KEEP_ALIVE);
            return;
        }
        play(shared.router().route(head));
    }

    /** The index just past the blank line that ends the head, or -1. */
    private int headEnd() {
        byte[] bytes = in.array();
        int limit = in.position();
        for (int i = Math.max(0, scanned - 3); i < limit; i++) {
            if (bytes[i] == '\n' && (i >= 1 && bytes[i - 1] == '\n'
                    || i >= 3 && bytes[i - 1] == '\r' && bytes[i - 2] == '\n' && bytes[i - 3] == '\r')) {
                return i + 1;
            }
        }
        scanned = limit;
        return -1;
    }

    private boolean answersAhead() {
        byte[] bytes = in.array();
        for (int i = 0; i < in.position(); i++) {
            if (bytes[i] == '\n') {
                String line = new String(bytes, 0, i, StandardCharsets.ISO_8859_1).strip();
                return ("/" + Misbehaviour.ANSWER_BEFORE_READ.token()).equals(RequestHead.pathOf(line));
            }
        }
        return false;
    }

    private void play(Script script) {
        moveOn(State.PLAYING);
        key.interestOps(0);
        timeout = later(shared.maxStallMillis(), this::capped);
        run = new ScriptRun(this, channel, script);
        run.resume();
    }

    @Override
    public void awaitWritable() {
        key.interestOps(SelectionKey.OP_WRITE);
    }

    @Override
    public void pause(long millis, Runnable resume) {
        later(millis, resume);
    }

    @Override
    public void finished(Script.End end) {
        run = null;
        switch (end) {
            case KEEP_ALIVE -> {
                if (closeAfter && !answeredAhead) {
                    closeGracefully();
                } else {
                    startReading();
                }
            }
            case CLOSE -> closeGracefully();
            case RESET -> reset();
            case HOLD -> {
                // The stall cap set by play() stays: it ends the hold.
                state = State.HOLDING;
                key.interestOps(SelectionKey.OP_READ);
            }
        }
    }

    private void discard() {
        try {
            in.clear();
            if (channel.read(in) < 0) {
                close();
            }
        } catch (IOException e) {
            broken(e);
        }
    }

    private void capped() {
        shared.counters().capped();
        closeGracefully();
    }

    /** Enters {@code next}: timer tasks of the state left behind are void from now on. */
    private void moveOn(State next) {
        state = next;
        epoch++;
        if (timeout != null) {
            timeout.cancel(false);
            timeout = null;
        }
    }

    private Future<?> later(long millis, Runnable task) {
        long setIn = epoch;
        return shared.timer().schedule(() -> loop.execute(() -> {
            if (epoch == setIn && state != State.CLOSED) {
                task.run();
            }
        }), millis, TimeUnit.MILLISECONDS);
    }

    private void closeGracefully() {
        try {
            channel.shutdownOutput();
        } catch (IOException e) {
            LOG.debug("shutdownOutput: {}", e.toString());
        }
        close();
    }

    private void reset() {
        try {
            channel.setOption(StandardSocketOptions.SO_LINGER, 0);
        } catch (IOException e) {
            LOG.debug("SO_LINGER 0: {}", e.toString());
        }
        close();
    }

    @Override
    public void broken(IOException cause) {
        LOG.debug("the client went away: {}", cause.toString());
        close();
    }

    private void close() {
        if (state == State.CLOSED) {
            return;
        }
        moveOn(State.CLOSED);
        if (key != null) {
            key.cancel();
        }
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("close: {}", e.toString());
        }
        shared.counters().closed();
    }

    @Override
    public void stop() {
        close();
    }
}
