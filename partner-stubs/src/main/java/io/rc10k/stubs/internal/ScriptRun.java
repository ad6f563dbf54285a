package io.rc10k.stubs.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Plays one {@link Script} on one connection: writes each step's pieces, pauses between them on the
 * timer, waits for the socket to drain when the client reads slowly. Confined to the connection's
 * loop; never blocks it.
 */
final class ScriptRun {
    /** What a run needs from its connection. */
    interface Stage {
        /** Resume when the socket can take more bytes. */
        void awaitWritable();

        /** Resume after {@code millis}, unless the connection has moved on or closed by then. */
        void pause(long millis, Runnable resume);

        /** The last byte was written: end the connection as the script says. */
        void finished(Script.End end);

        /** The client went away; close quietly. */
        void broken(IOException cause);
    }

    private final Stage stage;
    private final SocketChannel channel;
    private final Script script;
    private int step;
    private long position;
    private boolean paused;
    private ByteBuffer pending;

    ScriptRun(Stage stage, SocketChannel channel, Script script) {
        this.stage = stage;
        this.channel = channel;
        this.script = script;
    }

    /** Writes until the script ends, the socket is full, or a pause; called again to go on. */
    void resume() {
        try {
            while (true) {
                if (pending != null) {
                    channel.write(pending);
                    if (pending.hasRemaining()) {
                        stage.awaitWritable();
                        return;
                    }
                    pending = null;
                }
                if (step == script.steps().size()) {
                    stage.finished(script.end());
                    return;
                }
                Script.Step current = script.steps().get(step);
                if (position >= current.length()) {
                    step++;
                    position = 0;
                    continue;
                }
                if (current.everyMillis() > 0 && position > 0 && !paused) {
                    paused = true;
                    stage.pause(current.everyMillis(), this::resume);
                    return;
                }
                paused = false;
                pending = current.pieceAt(position);
                position += pending.remaining();
            }
        } catch (IOException e) {
            stage.broken(e);
        }
    }
}
