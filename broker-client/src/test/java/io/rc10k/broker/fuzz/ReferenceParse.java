package io.rc10k.broker.fuzz;

import io.rc10k.broker.Outcome;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.util.BufferUtil;

/**
 * The outcome a partner's bytes should give a GET, by the broker's documented rules, with Jetty's
 * {@link HttpParser} (the parser the broker's HTTP/1.1 wire uses) as the judge of what HTTP/1.1 is:
 * a version other than HTTP/1.0 and 1.1 or a status outside 100–599 MALFORMED, interim answers skipped
 * (more than 8 is MALFORMED), a 101 MALFORMED, whatever the parser refuses
 * MALFORMED as soon as the bytes show it, a body past {@code maxResponseBytes} (declared or received)
 * TOO_LARGE, an end of stream inside the head or the body RESET (what came was cut short, not wrong),
 * and no end at all TIMEOUT. The judgment runs on a
 * fresh parser, in memory, over the bytes cut as the caller says, so a difference from the broker's
 * answer is the broker's (its read loop, its connection state) or the parser's (if only one cut differs).
 *
 * <pre>{@code
 * ReferenceParse.Expected expected = ReferenceParse.judge(plan, 64 * 1024);
 * assertEquals(expected.kind(), outcome.kind());
 * }</pre>
 */
public final class ReferenceParse {
    /** As the broker's wire: response heads up to 64 KiB. */
    static final int MAX_HEAD_BYTES = 64 * 1024;
    static final int MAX_INTERIM_RESPONSES = 8;

    private ReferenceParse() {
    }

    /**
     * @param kind      how the call should end
     * @param status    the final response's status when its head was parsed, else 0
     * @param body      the body, for OK and HTTP_ERROR
     * @param endOffset where the final response ended in the bytes (OK, HTTP_ERROR), else -1
     * @param why       what decided it, for reports
     */
    public record Expected(Outcome.Kind kind, int status, byte[] body, int endOffset, String why) {
        public boolean hasResponse() {
            return kind == Outcome.Kind.OK || kind == Outcome.Kind.HTTP_ERROR;
        }

        /** Bytes after the end of the final response. */
        public boolean extraBytes(int total) {
            return hasResponse() && endOffset < total;
        }

        @Override
        public String toString() {
            return kind + (status > 0 ? " " + status : "") + (hasResponse() ? " " + body.length + "B" : "") + " (" + why
                    + ")";
        }
    }

    /** The outcome for the plan's bytes, fed to the parser in the plan's writes. */
    public static Expected judge(ResponsePlan plan, long maxResponseBytes) {
        return judge(plan.bytes(), plan.writes(), plan.ending().endsStream(), maxResponseBytes);
    }

    /** The outcome for the bytes fed in one piece. */
    public static Expected judgeWhole(ResponsePlan plan, long maxResponseBytes) {
        return judge(plan.bytes(), new int[] {plan.bytes().length}, plan.ending().endsStream(), maxResponseBytes);
    }

    static Expected judge(byte[] bytes, int[] cuts, boolean endOfStream, long maxResponseBytes) {
        Judge judge = new Judge(maxResponseBytes);
        int at = 0;
        for (int cut : cuts) {
            ByteBuffer piece = ByteBuffer.wrap(bytes, at, cut).slice();
            judge.feed(piece);
            if (judge.verdict != null) {
                return judge.verdict.endOffset >= 0
                        ? withOffset(judge.verdict, at + judge.verdict.endOffset) : judge.verdict;
            }
            at += cut;
        }
        if (!endOfStream) {
            return new Expected(Outcome.Kind.TIMEOUT, judge.finalStatus(), null, -1, "no end: the partner keeps "
                    + "the connection open in state " + judge.parser.getState());
        }
        judge.atEof();
        Expected verdict = judge.verdict;
        return verdict.endOffset >= 0 ? withOffset(verdict, bytes.length) : verdict;
    }

    private static Expected withOffset(Expected e, int offset) {
        return new Expected(e.kind, e.status, e.body, offset, e.why);
    }

    private static final class Judge implements HttpParser.ResponseHandler {
        private final HttpParser parser = new HttpParser(this, MAX_HEAD_BYTES);
        private final long maxResponseBytes;
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        private int status;
        private HttpVersion version;
        private boolean headed;
        private boolean messageDone;
        private boolean earlyEof;
        private HttpException bad;
        private int interims;
        private boolean atEof;
        Expected verdict;

        Judge(long maxResponseBytes) {
            this.maxResponseBytes = maxResponseBytes;
        }

        int finalStatus() {
            return headed ? status : 0;
        }

        void feed(ByteBuffer piece) {
            while (verdict == null) {
                int before = piece.position();
                HttpParser.State state = parser.getState();
                if (!parse(piece)) {
                    return;
                }
                if (decide(piece)) {
                    return;
                }
                if (!piece.hasRemaining() || (piece.position() == before && parser.getState() == state)) {
                    return; // waits for more bytes
                }
            }
        }

        void atEof() {
            atEof = true;
            parser.atEOF();
            if (!parse(BufferUtil.EMPTY_BUFFER)) {
                return;
            }
            if (!decide(BufferUtil.EMPTY_BUFFER) || verdict == null) {
                verdict = new Expected(Outcome.Kind.RESET, finalStatus(), null, -1, "end of stream before the "
                        + "response ended, in state " + parser.getState());
            }
        }

        /**
         * One {@code parseNext}; false when the parser threw instead of reporting a bad message (Jetty 12.1's
         * asserts do, with assertions on, for a response head it refuses): the bytes broke HTTP all the same.
         */
        private boolean parse(ByteBuffer piece) {
            try {
                parser.parseNext(piece);
                return true;
            } catch (Throwable thrown) {
                verdict = atEof
                        ? new Expected(Outcome.Kind.RESET, finalStatus(), null, -1, "end of stream inside the head "
                                + "(the parser threw " + thrown + ")")
                        : new Expected(Outcome.Kind.MALFORMED, finalStatus(), null, -1, "the parser threw " + thrown);
                return false;
            }
        }

        /** True when the bytes so far decide the outcome (then {@link #verdict} is set), or interim ended. */
        private boolean decide(ByteBuffer piece) {
            if (verdict != null) {
                return true;
            }
            if (bad != null) {
                verdict = atEof
                        ? new Expected(Outcome.Kind.RESET, finalStatus(), null, -1, "end of stream inside the head")
                        : new Expected(Outcome.Kind.MALFORMED, finalStatus(), null, -1, "the parser refused: "
                                + bad.getCode() + " " + bad.getReason());
                return true;
            }
            if (earlyEof) {
                verdict = atEof
                        ? new Expected(Outcome.Kind.RESET, finalStatus(), null, -1, "end of stream inside the body")
                        : new Expected(Outcome.Kind.MALFORMED, finalStatus(), null, -1, "the parser gave up on the "
                                + "body's framing with the stream open");
                return true;
            }
            if (!messageDone) {
                return false;
            }
            messageDone = false;
            if (status >= 100 && status < 200) {
                if (atEof) {
                    return false; // an interim answer, then the end: no final answer
                }
                parser.reset();
                body.reset();
                headed = false;
                return false;
            }
            verdict = new Expected(status < 400 ? Outcome.Kind.OK : Outcome.Kind.HTTP_ERROR, status, body.toByteArray(),
                    piece.position(), "a whole response");
            return true;
        }

        @Override
        public void startResponse(HttpVersion version, int code, String reason) {
            status = code;
            this.version = version;
        }

        @Override
        public void parsedHeader(HttpField field) {
        }

        @Override
        public boolean headerComplete() {
            headed = true;
            // Jetty's parser lets any known version and any three digits through; an HTTP/1.1 answer has neither.
            if ((version != HttpVersion.HTTP_1_1 && version != HttpVersion.HTTP_1_0) || status < 100 || status > 599) {
                verdict = new Expected(Outcome.Kind.MALFORMED, status, null, -1, "a status line of another protocol");
                return true;
            }
            if (status == 101) {
                verdict = new Expected(Outcome.Kind.MALFORMED, status, null, -1, "an unasked-for 101");
                return true;
            }
            if (status >= 100 && status < 200) {
                if (++interims > MAX_INTERIM_RESPONSES) {
                    verdict = new Expected(Outcome.Kind.MALFORMED, status, null, -1, "more than "
                            + MAX_INTERIM_RESPONSES + " interim responses");
                    return true;
                }
                return false;
            }
            long declared = parser.getContentLength();
            boolean bodyFollows = status != 204 && status != 304;
            if (bodyFollows && declared > maxResponseBytes) {
                verdict = new Expected(Outcome.Kind.TOO_LARGE, status, null, -1, "declared length " + declared);
                return true;
            }
            return false;
        }

        @Override
        public boolean content(ByteBuffer content) {
            if ((long) body.size() + content.remaining() > maxResponseBytes) {
                verdict = new Expected(Outcome.Kind.TOO_LARGE, status, null, -1, "body past " + maxResponseBytes);
                content.position(content.limit());
                return true;
            }
            byte[] piece = new byte[content.remaining()];
            content.get(piece);
            body.write(piece, 0, piece.length);
            return false;
        }

        @Override
        public boolean contentComplete() {
            return false;
        }

        @Override
        public boolean messageComplete() {
            messageDone = true;
            return true;
        }

        @Override
        public void earlyEOF() {
            earlyEof = true;
        }

        @Override
        public void badMessage(HttpException failure) {
            bad = failure;
        }
    }
}
