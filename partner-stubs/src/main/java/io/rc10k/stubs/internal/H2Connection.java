package io.rc10k.stubs.internal;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.frames.FrameType;
import org.eclipse.jetty.http2.hpack.HpackDecoder;
import org.eclipse.jetty.http2.hpack.HpackException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One h2c connection of the hostile partner, served by one thread of {@link H2Server}'s pool with blocking
 * reads: the client's preface, then its frames one by one. It answers SETTINGS and PING as a server should,
 * hands the settings and WINDOW_UPDATEs that govern what it sends to its {@link H2Sender}, decodes each request's
 * header block (Jetty's {@link HpackDecoder}) and hands the stream and its path to {@link H2Acts}.
 *
 * <p>Threads: everything but {@link #close()} and {@link #reset()} runs on the connection's thread; the timer
 * closes a held connection at the stall cap, which ends the thread's blocking read.</p>
 */
final class H2Connection implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(H2Connection.class);
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    /** The largest frame this side accepts: the protocol's default, which it never raises. */
    private static final int MAX_FRAME_SIZE_IN = 16_384;
    private static final int MAX_HEADER_BLOCK_IN = 64 * 1024;
    private static final int ENABLE_PUSH = 0x2;

    private final Socket socket;
    private final H2Server.Shared shared;
    private final DataInputStream in;
    private final H2Out out;
    private final H2Sender sender;
    private final HpackDecoder decoder = new HpackDecoder(MAX_HEADER_BLOCK_IN, System::nanoTime);
    private final H2Acts acts;
    private final AtomicBoolean closed = new AtomicBoolean();
    private boolean pushEnabled = true;
    private boolean settingsSeen;
    private volatile ScheduledFuture<?> cap;

    H2Connection(Socket socket, H2Server.Shared shared) throws IOException {
        this.socket = socket;
        this.shared = shared;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = new H2Out(socket.getOutputStream());
        this.sender = new H2Sender(out);
        this.acts = new H2Acts(this, sender, shared.counters(), shared.h2());
        socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, shared.idleTimeoutMillis()));
    }

    @Override
    public void run() {
        try {
            byte[] preface = new byte[PREFACE.length];
            in.readFully(preface);
            if (!Arrays.equals(preface, PREFACE)) {
                LOG.debug("not an HTTP/2 preface: {}", new String(preface, StandardCharsets.ISO_8859_1));
                return;
            }
            // SETTINGS_MAX_CONCURRENT_STREAMS (0x3) = 100.
            out.frame(H2Out.SETTINGS, 0, 0, new byte[] {0, 3, 0, 0, 0, 100});
            for (;;) {
                handle(readFrame());
            }
        } catch (EOFException | SocketException e) {
            LOG.debug("h2 connection ended: {}", e.toString());
        } catch (IOException | HpackException e) {
            LOG.debug("h2 connection failed: {}", e.toString());
        } finally {
            close();
        }
    }

    private Frame readFrame() throws IOException {
        int length = in.readUnsignedShort() << 8 | in.readUnsignedByte();
        int type = in.readUnsignedByte();
        int flags = in.readUnsignedByte();
        int stream = in.readInt() & 0x7FFF_FFFF;
        if (length > MAX_FRAME_SIZE_IN) {
            throw new IOException("a frame of " + length + " bytes, over " + MAX_FRAME_SIZE_IN);
        }
        byte[] payload = new byte[length];
        in.readFully(payload);
        return new Frame(type, flags, stream, payload);
    }

    private void handle(Frame frame) throws IOException, HpackException {
        FrameType type = FrameType.from(frame.type());
        if (type == null) {
            return; // an unknown frame type: ignored, as RFC 9113 asks
        }
        switch (type) {
            case SETTINGS -> {
                if ((frame.flags() & H2Out.ACK) == 0) {
                    settings(frame.payload());
                    out.frame(H2Out.SETTINGS, H2Out.ACK, 0, new byte[0]);
                    sender.flush();
                }
            }
            case PING -> {
                if ((frame.flags() & H2Out.ACK) == 0) {
                    out.frame(H2Out.PING, H2Out.ACK, 0, frame.payload());
                }
            }
            case WINDOW_UPDATE -> sender.windowUpdate(frame.stream(),
                    ByteBuffer.wrap(frame.payload()).getInt() & 0x7FFF_FFFFL);
            case RST_STREAM -> sender.reset(frame.stream());
            case HEADERS -> request(frame.stream(), headerBlock(frame));
            default -> {
                // DATA (requests here have no body), PRIORITY, GOAWAY (the client closes next), stray frames, and
                // unknown types, which the protocol says to ignore.
            }
        }
    }

    private void settings(byte[] payload) {
        ByteBuffer entries = ByteBuffer.wrap(payload);
        while (entries.remaining() >= 6) {
            int id = entries.getShort() & 0xFFFF;
            long value = entries.getInt() & 0xFFFF_FFFFL;
            if (id == ENABLE_PUSH) {
                pushEnabled = value != 0;
            } else {
                sender.setting(id, value);
            }
        }
        if (!settingsSeen) {
            settingsSeen = true;
            if (pushEnabled) {
                shared.h2().pushEnabled();
            }
        }
    }

    /** The block of a HEADERS frame and of the CONTINUATION frames that follow it, padding and priority removed. */
    private byte[] headerBlock(Frame headers) throws IOException {
        ByteBuffer payload = ByteBuffer.wrap(headers.payload());
        int padding = 0;
        if ((headers.flags() & H2Out.PADDED) != 0) {
            padding = payload.get() & 0xFF;
        }
        if ((headers.flags() & H2Out.PRIORITY) != 0) {
            payload.position(payload.position() + 5);
        }
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        block.write(payload.array(), payload.position(), payload.remaining() - padding);
        for (Frame frame = headers; (frame.flags() & H2Out.END_HEADERS) == 0; ) {
            frame = readFrame();
            if (frame.type() != H2Out.CONTINUATION || frame.stream() != headers.stream()) {
                throw new IOException("a header block broken by a frame of type " + frame.type());
            }
            if (block.size() + frame.payload().length > MAX_HEADER_BLOCK_IN) {
                throw new IOException("a header block over " + MAX_HEADER_BLOCK_IN + " bytes");
            }
            block.write(frame.payload());
        }
        return block.toByteArray();
    }

    private void request(int stream, byte[] block) throws IOException, HpackException {
        MetaData metaData = decoder.decode(ByteBuffer.wrap(block));
        if (metaData instanceof MetaData.Request request) {
            sender.opened(stream);
            acts.act(stream, request.getHttpURI().getPath(), request.getHttpURI().getQuery());
        }
    }

    /**
     * The connection stays open, reads on without an idle timeout and sends nothing more for the stream; the
     * timer closes it at the stall cap (counted as capped), unless the client closes it first.
     */
    void hold() throws SocketException {
        socket.setSoTimeout(0);
        if (cap == null) {
            cap = shared.timer().schedule(() -> {
                if (!closed.get()) {
                    shared.counters().capped();
                    close();
                }
            }, shared.maxStallMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** A close of this side (FIN) with the connection still read until the client closes it or the stall cap. */
    void finish() throws IOException {
        socket.shutdownOutput();
        hold();
    }

    /** A TCP reset: SO_LINGER 0, then close. */
    void reset() {
        try {
            socket.setSoLinger(true, 0);
        } catch (SocketException e) {
            LOG.debug("SO_LINGER: {}", e.toString());
        }
        close();
    }

    /** Closes the socket; idempotent, from any thread. */
    void close() {
        if (closed.compareAndSet(false, true)) {
            shared.counters().closed();
            ScheduledFuture<?> held = cap;
            if (held != null) {
                held.cancel(false);
            }
            try {
                socket.close();
            } catch (IOException e) {
                LOG.debug("closing: {}", e.toString());
            }
        }
    }

    private record Frame(int type, int flags, int stream, byte[] payload) {
    }
}
