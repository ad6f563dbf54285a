package io.rc10k.stubs;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLSocketFactory;

/**
 * One HTTP/1.1 request over a plain socket (or a TLS one), read to the end: shows what client libraries
 * hide — whether the connection ended with FIN, RST or not at all. Over TLS, an end is {@code EOF} when
 * {@code close_notify} came, {@code RESET} when the TCP connection under TLS was reset.
 */
final class RawHttp {
    enum End { EOF, RESET, TIMEOUT }

    record Result(String text, End end, long millis) {
        String head() {
            int i = text.indexOf("\r\n\r\n");
            return i < 0 ? text : text.substring(0, i);
        }

        String body() {
            int i = text.indexOf("\r\n\r\n");
            return i < 0 ? "" : text.substring(i + 4);
        }
    }

    private RawHttp() {
    }

    /** Sends {@code GET pathAndQuery} with {@code Connection: close} and reads until EOF, RST or {@code timeoutMillis}. */
    static Result get(URI base, String pathAndQuery, int timeoutMillis) throws IOException {
        return get(base, pathAndQuery, timeoutMillis, null);
    }

    /** Like {@link #get(URI, String, int)}, over TLS with {@code tls} unless it is null. */
    static Result get(URI base, String pathAndQuery, int timeoutMillis, SSLSocketFactory tls) throws IOException {
        long start = System.nanoTime();
        try (Socket socket = tls == null ? new Socket(base.getHost(), base.getPort())
                : tls.createSocket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(timeoutMillis);
            String request = "GET " + pathAndQuery + " HTTP/1.1\r\nHost: " + base.getHost() + "\r\n"
                    + "Connection: close\r\n\r\n";
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[8192];
            End end;
            try {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    received.write(buffer, 0, n);
                }
                end = End.EOF;
            } catch (SocketTimeoutException e) {
                end = End.TIMEOUT;
            } catch (SocketException e) {
                if (!String.valueOf(e.getMessage()).contains("reset")) {
                    throw e;
                }
                end = End.RESET;
            }
            return new Result(received.toString(StandardCharsets.ISO_8859_1), end,
                    (System.nanoTime() - start) / 1_000_000);
        }
    }
}
