package io.rc10k.broker.internal;

import java.io.EOFException;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.util.BufferUtil;

/**
 * The receiving half of an {@link Http1Connection}: parses the bytes its loop reads with Jetty's
 * {@link HttpParser} into the current call's response events, judges what HTTP/1.1 does not allow (a bad
 * status line, an unasked-for 101, too many interim answers, a broken body framing, an early end), and
 * tells the connection when a response came whole and whether its framing leaves the connection reusable.
 * One per connection, made with it: nothing is allocated per call but the response's headers.
 *
 * <p>Threading: the connection's loop only, but {@link #expect}, which a sender calls on a connection it
 * holds before the call is published to the loop.</p>
 */
final class Http1Receiver implements HttpParser.ResponseHandler {
    private static final int MAX_RESPONSE_HEAD_BYTES = 64 * 1024;
    /** Interim (1xx) responses accepted before the real one: more is a partner stalling with them. */
    private static final int MAX_INTERIM_RESPONSES = 8;

    private final Http1Connection connection;
    private final String partner;
    private final HttpParser parser = new HttpParser(this, MAX_RESPONSE_HEAD_BYTES);
    /** The response being parsed. */
    private int status;
    private HttpFields.Mutable headers;
    private boolean closeAfter;
    private boolean responseEnded;
    /** Interim responses seen before the current call's real one. */
    private int interims;
    /** Set while {@link #eof()} lets the parser finish, when an early end is a reset, not a fault. */
    private boolean atEof;
    /** What is wrong with the status line Jetty's parser let through, or null. */
    private String badStatusLine;

    Http1Receiver(Http1Connection connection, String partner) {
        this.connection = connection;
        this.partner = partner;
    }

    /** {@code next} goes out on the connection: a HEAD's answer declares a body that does not follow. */
    void expect(Http1Call next) {
        parser.setHeadResponse(next.head);
    }

    /** What came of the response before a failure: its status, or 0 before its head. */
    int statusSoFar() {
        return headers == null ? 0 : status;
    }

    /** Its headers, or null before its head. */
    HttpFields headersSoFar() {
        return headers;
    }

    /** The call ended in failure: the interim answers it saw no longer count. */
    void failed() {
        interims = 0;
    }

    /** The bytes the loop read: each whole response ends its call through the connection. */
    void parse(ByteBuffer buffer) {
        while (buffer.hasRemaining() && !connection.isClosed()) {
            Http1Call current = connection.current();
            if (current == null) {
                // Bytes nobody asked for: the connection can no longer be trusted to frame a response.
                connection.close();
                return;
            }
            int before = buffer.remaining();
            try {
                parser.parseNext(buffer);
            } catch (AssertionError refused) {
                malformed(current, "the parser refused it (" + refused.getMessage() + ")");
                return;
            }
            if (responseEnded) {
                responseEnded = false;
                if (status >= 100 && status < 200) {
                    // An interim response (100, 103): the real one follows on the same connection.
                    if (++interims > MAX_INTERIM_RESPONSES) {
                        malformed(current, "more than " + MAX_INTERIM_RESPONSES + " interim (1xx) responses");
                        return;
                    }
                    parser.reset();
                    parser.setHeadResponse(current.head);
                    continue;
                }
                end(current, buffer.hasRemaining());
            } else if (buffer.remaining() == before) {
                return; // nothing consumed: the parser waits for more bytes
            }
        }
    }

    /** The partner closed its end: a response whose length is the stream's ends, any other is cut short. */
    void eof() {
        Http1Call current = connection.current();
        if (current != null && !connection.isClosed()) {
            atEof = true;
            parser.atEOF();
            try {
                parser.parseNext(BufferUtil.EMPTY_BUFFER);
            } catch (AssertionError refused) {
                badMessage(null); // as without assertions: at the end of the stream, a reset
                return;
            }
            if (responseEnded) {
                end(current, true);
                return;
            }
            connection.fail(current, new EOFException(partner + " closed the connection before the response ended"));
            return;
        }
        connection.close();
    }

    /**
     * The response came whole: the parser is made ready for the next, then the connection ends the call. It may
     * keep the connection only when nothing about the framing is in doubt: the partner did not ask to close it,
     * no byte follows the answer, and the answer's framing was unambiguous.
     */
    private void end(Http1Call current, boolean extraBytes) {
        int answered = status;
        HttpFields answeredHeaders = headers;
        status = 0;
        headers = null;
        interims = 0;
        Throwable aborted = current.aborted();
        if (aborted != null) {
            connection.fail(current, aborted);
            return;
        }
        boolean reusable = !closeAfter && !extraBytes && framedClearly(answered, answeredHeaders);
        parser.reset();
        connection.answered(current, answered, answeredHeaders, reusable);
    }

    /**
     * A body-less answer (204, 304) that still declares a body's framing: whatever bytes the partner meant
     * as that body would arrive later and be read as the next call's answer, so the connection is not kept.
     */
    private static boolean framedClearly(int status, HttpFields fields) {
        if (status != 204 && status != 304) {
            return true;
        }
        if (fields.contains(HttpHeader.TRANSFER_ENCODING)) {
            return false;
        }
        return status != 204 || fields.getLongField(HttpHeader.CONTENT_LENGTH) <= 0;
    }

    /** The partner's bytes broke HTTP; the call ends MALFORMED at once and the connection closes. */
    private void malformed(Http1Call which, String fault) {
        connection.fail(which, new Failures.MalformedResponseException(partner + " sent a malformed response: "
                + fault));
    }

    @Override
    public void startResponse(HttpVersion version, int code, String reason) {
        status = code;
        headers = HttpFields.build();
        closeAfter = version != HttpVersion.HTTP_1_1;
        // Jetty's parser takes any known version and any three digits; an HTTP/1.1 answer has neither.
        if (version != HttpVersion.HTTP_1_1 && version != HttpVersion.HTTP_1_0) {
            badStatusLine = "version " + version + " in an HTTP/1.1 answer";
        } else if (code < 100 || code > 599) {
            badStatusLine = "status " + code + " (accepted: 100 to 599)";
        } else {
            badStatusLine = null;
        }
    }

    @Override
    public void parsedHeader(HttpField field) {
        headers.add(field);
        if (field.getHeader() == HttpHeader.CONNECTION) {
            if (field.contains(HttpHeaderValue.CLOSE.asString())) {
                closeAfter = true;
            } else if (field.contains(HttpHeaderValue.KEEP_ALIVE.asString())) {
                closeAfter = false;
            }
        }
    }

    @Override
    public boolean headerComplete() {
        Http1Call current = connection.current();
        if (current == null) {
            return true;
        }
        if (badStatusLine != null) {
            malformed(current, badStatusLine);
            return true;
        }
        if (status == 101) {
            // Switching protocols was never asked for: what follows is not HTTP/1.1 any more.
            malformed(current, "101 Switching Protocols without an Upgrade request");
            return true;
        }
        if (status >= 100 && status < 200) {
            return false; // interim: the real response follows
        }
        current.events.onHeaders(status, headers);
        return connection.isClosed();
    }

    @Override
    public boolean content(ByteBuffer content) {
        Http1Call current = connection.current();
        if (current == null) {
            return true;
        }
        current.events.onContent(content);
        return connection.isClosed();
    }

    /** The body's last byte: nothing to do before {@link #messageComplete()}, which follows at once. */
    @Override
    public boolean contentComplete() {
        return false;
    }

    /**
     * The response is whole: the parser stops here, so that {@link #parse} ends the call before any byte of
     * what follows is parsed as the next call's answer.
     */
    @Override
    public boolean messageComplete() {
        responseEnded = true;
        return true;
    }

    @Override
    public void earlyEOF() {
        if (atEof) {
            return; // eof() reports it: the partner closed before the response ended
        }
        // The socket is open, but the parser gave up on the body's framing (a bad chunk, say): it reports
        // that as an early end after the headers, and waiting for more bytes would only wait for the deadline.
        Http1Call current = connection.current();
        if (current != null) {
            malformed(current, "the body's framing is broken (bad chunk or length)");
        } else {
            connection.close();
        }
    }

    @Override
    public void badMessage(HttpException failure) {
        Http1Call current = connection.current();
        if (current == null || connection.isClosed()) {
            connection.close();
        } else if (atEof) {
            // The partner closed inside the head: what it sent was not wrong, only cut short.
            connection.fail(current, new EOFException(partner + " closed the connection before the response "
                    + "head ended"));
        } else {
            connection.fail(current, new Failures.MalformedResponseException(partner + " sent a malformed response: "
                    + failure.getReason(), (Throwable) failure));
        }
    }
}
