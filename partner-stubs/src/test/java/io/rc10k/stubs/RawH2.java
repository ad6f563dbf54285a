package io.rc10k.stubs;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackDecoder;
import org.eclipse.jetty.http2.hpack.HpackEncoder;

/**
 * An h2c client on a raw socket for tests of the hostile h2c partner: it sends the preface, its SETTINGS and
 * GET requests, and reads back the partner's frames as they are, to check the bytes of each misbehaviour.
 */
final class RawH2 implements AutoCloseable {
    static final int DATA = 0x0;
    static final int HEADERS = 0x1;
    static final int RST_STREAM = 0x3;
    static final int SETTINGS = 0x4;
    static final int PUSH_PROMISE = 0x5;
    static final int PING = 0x6;
    static final int GOAWAY = 0x7;
    static final int WINDOW_UPDATE = 0x8;
    static final int CONTINUATION = 0x9;
    static final int END_STREAM = 0x1;
    static final int ACK = 0x1;
    static final int END_HEADERS = 0x4;

    record Frame(int type, int flags, int stream, byte[] payload) {
        boolean has(int flag) {
            return (flags & flag) != 0;
        }
    }

    private final URI base;
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final HpackEncoder encoder = new HpackEncoder();
    private final HpackDecoder decoder = new HpackDecoder(8 * 1024 * 1024, System::nanoTime);

    private RawH2(URI base, Socket socket) throws IOException {
        this.base = base;
        this.socket = socket;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = socket.getOutputStream();
    }

    /** Connects, sends the preface and SETTINGS with ENABLE_PUSH=0 and INITIAL_WINDOW_SIZE={@code window}. */
    static RawH2 connect(URI base, int window) throws IOException {
        RawH2 raw = new RawH2(base, new Socket(base.getHost(), base.getPort()));
        raw.socket.setSoTimeout(20_000);
        raw.out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        raw.frame(SETTINGS, 0, 0, ByteBuffer.allocate(12).putShort((short) 2).putInt(0).putShort((short) 4)
                .putInt(window).array());
        return raw;
    }

    void get(int stream, String pathAndQuery) throws Exception {
        MetaData.Request request = new MetaData.Request("GET", HttpURI.build(base.resolve(pathAndQuery)),
                HttpVersion.HTTP_2, HttpFields.EMPTY);
        ByteBuffer block = ByteBuffer.allocate(4096);
        encoder.encode(block, request);
        block.flip();
        byte[] bytes = new byte[block.remaining()];
        block.get(bytes);
        frame(HEADERS, END_HEADERS | END_STREAM, stream, bytes);
    }

    void frame(int type, int flags, int stream, byte[] payload) throws IOException {
        int n = payload.length;
        out.write(new byte[] {(byte) (n >>> 16), (byte) (n >>> 8), (byte) n, (byte) type, (byte) flags,
                (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8), (byte) stream});
        out.write(payload);
        out.flush();
    }

    /** The next frame, whatever its length; null at EOF, a truncated frame included. A reset is a SocketException. */
    Frame read() throws IOException {
        try {
            return readFrame();
        } catch (EOFException e) {
            return null;
        }
    }

    private Frame readFrame() throws IOException {
        byte[] header = new byte[9];
        in.readFully(header);
        ByteBuffer h = ByteBuffer.wrap(header);
        int length = (h.getShort() & 0xFFFF) << 8 | h.get() & 0xFF;
        int type = h.get() & 0xFF;
        int flags = h.get() & 0xFF;
        int stream = h.getInt() & 0x7FFF_FFFF;
        byte[] payload = new byte[length];
        in.readFully(payload);
        return new Frame(type, flags, stream, payload);
    }

    /** The next frame that {@code wanted} takes, skipping the others; null at EOF. */
    Frame next(Predicate<Frame> wanted) throws IOException {
        for (Frame frame = read(); frame != null; frame = read()) {
            if (wanted.test(frame)) {
                return frame;
            }
        }
        return null;
    }

    /** Decodes a complete header block. */
    MetaData decode(byte[] block) throws Exception {
        return decoder.decode(ByteBuffer.wrap(block));
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
