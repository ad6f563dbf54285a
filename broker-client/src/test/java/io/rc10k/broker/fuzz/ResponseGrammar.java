package io.rc10k.broker.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * HTTP/1.1 responses for the fuzzer from a small grammar, with their usual faults mixed in: interim
 * answers, a status line, a header list, a body by one of the framings, and bytes after. Each fault
 * chosen is named in the plan's label ({@code grammar/1xx*2/chunked/200/chunk-size[zz]}).
 *
 * <pre>{@code
 * byte[] answer = ResponseGrammar.response(new Random(seed), new StringBuilder("grammar"));
 * }</pre>
 */
final class ResponseGrammar {
    static final String[] CODES = {"200", "200", "200", "201", "202", "204", "206", "301", "302", "304", "400",
        "401", "404", "409", "418", "429", "500", "502", "503", "504"};
    private static final String[] ODD_CODES = {"0", "000", "99", "099", "100", "101", "102", "103", "199", "299", "600",
        "999", "1000", "2000", "20", "2x0", "-20", " 200", "200 ", "+200", "0200", "", "4O4"};
    private static final String[] VERSIONS = {"HTTP/1.0", "HTTP/2", "HTTP/2.0", "HTTP/1.2", "HTTP/0.9", "http/1.1",
        "HTTP/1.1 ", "HTTP/11", "HTTP/1.", "HTTP/", "HTTP", "ICY", "RTSP/1.0", " HTTP/1.1", "HTTP/1.1\t", "HTTP/9.9"};
    private static final String[] CONTENT_LENGTHS = {"-1", "-0", "+5", " 5", "5 ", "05", "0x10", "1e3", "abc", "",
        "5, 5", "5,6", "18446744073709551616", "9223372036854775807", "9223372036854775808", "99999999999999999999999",
        "2147483648", "4294967296", "65537", "1 0"};
    private static final String[] TRANSFER_ENCODINGS = {"chunked", "chunked", "Chunked", "CHUNKED", "gzip, chunked",
        "chunked, gzip", "identity", "gzip", "chunked, chunked", " chunked", "chunked ", "x-chunked", "chunked;q=1",
        "", ","};
    private static final String[] CONNECTIONS = {"close", "keep-alive", "Close", "upgrade", "close, keep-alive",
        "keep-alive, close", "junk", ""};
    private static final String[] CHUNK_SIZE_FAULTS = {"zz", "-1", "", " ", "0x10", "FFFFFFFFFFFFFFFF",
        "7fffffff", "80000000", "100000000", "10000000000000000000000", "1 0", "g", "+1", "\t1", "1\t", "07FFFFFF"};
    private static final String[] INTERIMS = {"HTTP/1.1 100 Continue\r\n\r\n", "HTTP/1.1 102 Processing\r\n\r\n",
        "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"};

    private ResponseGrammar() {
    }

    /** A response from the grammar, its faults named in {@code label}. */
    static byte[] response(Random r, StringBuilder label) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        interims(r, out, label);

        String eol = r.nextInt(100) < 92 ? "\r\n" : r.nextBoolean() ? "\n" : "\r";
        if (!eol.equals("\r\n")) {
            label.append(eol.equals("\n") ? "/lf" : "/cr");
        }
        String version = r.nextInt(100) < 88 ? "HTTP/1.1" : pickOf(r, VERSIONS);
        String code = r.nextInt(100) < 90 ? pickOf(r, CODES) : pickOf(r, ODD_CODES);
        String reason = reason(r);
        write(out, version + " " + code + (reason == null ? "" : " " + reason) + eol);
        int status = parse(code);

        Framing framing = framing(r, status);
        label.append('/').append(framing.name().toLowerCase(Locale.ROOT)).append('/').append(code.strip());
        byte[] body = framing == Framing.NONE ? new byte[0] : body(r);

        List<String> headers = new ArrayList<>();
        if (r.nextInt(100) < 80) {
            headers.add("Content-Type: " + (r.nextBoolean() ? "application/json" : "text/plain; charset=utf-8"));
        }
        if (r.nextInt(100) < 30) {
            headers.add("Date: Sat, 21 Nov 2026 00:00:00 GMT");
        }
        if (r.nextInt(100) < 25) {
            headers.add("Connection: " + pickOf(r, CONNECTIONS));
        }
        switch (framing) {
            case LENGTH -> headers.add("Content-Length: " + declaredLength(r, body.length, label));
            case CHUNKED -> headers.add("Transfer-Encoding: " + transferEncoding(r, label));
            case BOTH -> {
                headers.add("Content-Length: " + declaredLength(r, body.length, label));
                headers.add("Transfer-Encoding: " + transferEncoding(r, label));
                if (r.nextBoolean()) {
                    Collections.reverse(headers);
                }
            }
            case NONE -> {
                if (r.nextInt(100) < 30) {
                    headers.add("Content-Length: " + (r.nextBoolean() ? "0" : String.valueOf(r.nextInt(100))));
                }
            }
            case EOF -> {
            }
        }
        junkHeaders(r, headers, label);
        for (String header : headers) {
            write(out, header);
            write(out, eol);
        }
        write(out, eol);

        switch (framing) {
            case LENGTH, NONE, EOF -> out.write(body, 0, body.length);
            case CHUNKED, BOTH -> chunked(r, out, body, label);
        }
        if (r.nextInt(100) < 12) {
            label.append("/extra");
            int pick = r.nextInt(3);
            if (pick == 0) {
                write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi");
            } else if (pick == 1) {
                write(out, "\r\n");
            } else {
                byte[] extra = ResponseGenerator.randomBytes(r, 1 + r.nextInt(64));
                out.write(extra, 0, extra.length);
            }
        }
        return out.toByteArray();
    }

    private enum Framing {
        LENGTH, CHUNKED, EOF, NONE, BOTH
    }

    private static Framing framing(Random r, int status) {
        if (status == 204 || status == 304 || (status >= 100 && status < 200)) {
            return r.nextInt(100) < 70 ? Framing.NONE : Framing.LENGTH;
        }
        int pick = r.nextInt(100);
        return pick < 48 ? Framing.LENGTH : pick < 80 ? Framing.CHUNKED : pick < 93 ? Framing.EOF
                : pick < 96 ? Framing.NONE : Framing.BOTH;
    }

    private static void interims(Random r, ByteArrayOutputStream out, StringBuilder label) {
        int pick = r.nextInt(100);
        if (pick < 84) {
            return;
        }
        if (pick < 95) {
            int n = 1 + r.nextInt(3);
            label.append("/1xx*").append(n);
            for (int i = 0; i < n; i++) {
                write(out, pickOf(r, INTERIMS));
            }
        } else if (pick < 98) {
            int n = 6 + r.nextInt(15);
            label.append("/102*").append(n);
            for (int i = 0; i < n; i++) {
                write(out, "HTTP/1.1 102 Processing\r\n\r\n");
            }
        } else {
            label.append("/101");
            write(out, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
        }
    }

    private static String reason(Random r) {
        int pick = r.nextInt(100);
        if (pick < 70) {
            return "OK";
        }
        if (pick < 78) {
            return null;
        }
        if (pick < 84) {
            return "";
        }
        if (pick < 90) {
            return "Reason With Spaces And Ünïcödé";
        }
        if (pick < 95) {
            return "a".repeat(1 + r.nextInt(r.nextBoolean() ? 2000 : 70_000));
        }
        return "bad" + (char) r.nextInt(32) + "reason";
    }

    private static int parse(String code) {
        try {
            return Integer.parseInt(code.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static byte[] body(Random r) {
        int size = bodySize(r);
        if (r.nextInt(100) < 70) {
            byte[] body = new byte[size];
            byte[] text = "{\"k\":\"0123456789abcdefghijklmnopqrstuvwxyz\"}\n".getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < size; i++) {
                body[i] = text[i % text.length];
            }
            return body;
        }
        return ResponseGenerator.randomBytes(r, size);
    }

    private static String declaredLength(Random r, int actual, StringBuilder label) {
        int pick = r.nextInt(100);
        if (pick < 84) {
            return String.valueOf(actual);
        }
        if (pick < 92) {
            label.append("/cl-off");
            return String.valueOf(Math.max(0, actual + r.nextInt(21) - 10));
        }
        label.append("/cl-odd");
        return pickOf(r, CONTENT_LENGTHS);
    }

    private static String transferEncoding(Random r, StringBuilder label) {
        if (r.nextInt(100) < 80) {
            return "chunked";
        }
        label.append("/te-odd");
        return pickOf(r, TRANSFER_ENCODINGS);
    }

    /** Header faults: duplicate framing, obs-fold, NUL, no colon, long values, many headers. */
    private static void junkHeaders(Random r, List<String> headers, StringBuilder label) {
        if (r.nextInt(100) >= 22) {
            return;
        }
        int faults = 1 + r.nextInt(3);
        for (int i = 0; i < faults; i++) {
            int at = r.nextInt(headers.size() + 1);
            switch (r.nextInt(14)) {
                case 0 -> {
                    label.append("/dup-cl");
                    headers.add(at, "Content-Length: " + (r.nextBoolean() ? "0" : String.valueOf(r.nextInt(50))));
                }
                case 1 -> {
                    label.append("/dup-te");
                    headers.add(at, "Transfer-Encoding: " + pickOf(r, TRANSFER_ENCODINGS));
                }
                case 2 -> {
                    label.append("/obs-fold");
                    headers.add(at, "X-Folded: first\r\n  second");
                }
                case 3 -> {
                    label.append("/nul-value");
                    headers.add(at, "X-Nul: a\0b");
                }
                case 4 -> {
                    label.append("/nul-name");
                    headers.add(at, "X-N\0ul: v");
                }
                case 5 -> {
                    label.append("/no-colon");
                    headers.add(at, "X-No-Colon value");
                }
                case 6 -> {
                    label.append("/space-before-colon");
                    headers.add(at, "Content-Type : text/plain");
                }
                case 7 -> {
                    label.append("/empty-name");
                    headers.add(at, ": v");
                }
                case 8 -> {
                    int length = r.nextBoolean() ? 100 + r.nextInt(4000) : 60_000 + r.nextInt(10_000);
                    label.append("/long-value-").append(length);
                    headers.add(at, "X-Long: " + "v".repeat(length));
                }
                case 9 -> {
                    int count = 50 + r.nextInt(r.nextBoolean() ? 200 : 3000);
                    label.append("/many-headers-").append(count);
                    for (int h = 0; h < count; h++) {
                        headers.add(at, "X-H" + h + ": " + h);
                    }
                }
                case 10 -> {
                    label.append("/high-bytes");
                    headers.add(at, "X-Latin: caf\u00e9 \u00ff\u0080");
                }
                case 11 -> {
                    label.append("/ctl-value");
                    headers.add(at, "X-Ctl: a" + (char) (1 + r.nextInt(31)) + "b");
                }
                case 12 -> {
                    label.append("/bare-cr");
                    headers.add(at, "X-Cr: a\rb");
                }
                default -> {
                    label.append("/junk-token");
                    headers.add(at, "X-" + Integer.toHexString(r.nextInt()) + ": " + Integer.toHexString(r.nextInt()));
                }
            }
        }
    }

    /** The body as chunks: sizes, extensions, faults, the last chunk and trailers. */
    private static void chunked(Random r, ByteArrayOutputStream out, byte[] body, StringBuilder label) {
        int at = 0;
        int pieces = body.length == 0 ? 0 : 1 + r.nextInt(Math.min(6, body.length));
        boolean faulted = false;
        for (int i = 0; i < pieces; i++) {
            int room = Math.max(1, body.length - at - (pieces - i - 1));
            int size = i == pieces - 1 ? body.length - at : 1 + r.nextInt(room);
            size = Math.min(size, body.length - at);
            if (size <= 0) {
                break;
            }
            String hex = Integer.toHexString(size);
            int pick = r.nextInt(100);
            if (pick < 6) {
                hex = hex.toUpperCase(Locale.ROOT);
            } else if (pick < 10) {
                hex = "000" + hex;
            } else if (pick < 15) {
                hex = hex + (r.nextBoolean() ? ";name=value" : ";ext");
            } else if (pick < 17) {
                hex = hex + "; bad ext ;;";
            } else if (pick < 22 && !faulted) {
                faulted = true;
                String fault = pickOf(r, CHUNK_SIZE_FAULTS);
                label.append("/chunk-size[").append(fault.strip()).append(']');
                hex = fault;
            }
            write(out, hex + "\r\n");
            int sent = size;
            if (r.nextInt(100) < 5 && !faulted) {
                faulted = true;
                sent = Math.max(0, size + r.nextInt(7) - 3);
                label.append("/chunk-data-off");
            }
            out.write(body, at, Math.min(sent, body.length - at));
            if (sent > body.length - at) {
                write(out, "x".repeat(sent - (body.length - at)));
            }
            write(out, r.nextInt(100) < 97 ? "\r\n" : "\n");
            at += size;
        }
        int pick = r.nextInt(100);
        if (pick < 8) {
            label.append("/no-last-chunk");
            return;
        }
        write(out, pick < 12 ? "0;ext=1\r\n" : "0\r\n");
        pick = r.nextInt(100);
        if (pick < 8) {
            label.append("/trailers");
            write(out, "X-Trailer: 1\r\nX-Other: 2\r\n");
        } else if (pick < 11) {
            label.append("/bad-trailer");
            write(out, "bad trailer\r\n");
        } else if (pick < 13) {
            label.append("/cl-trailer");
            write(out, "Content-Length: 99\r\n");
        }
        if (r.nextInt(100) < 5) {
            label.append("/no-final-crlf");
            return;
        }
        write(out, "\r\n");
    }

    private static int bodySize(Random r) {
        int pick = r.nextInt(100);
        if (pick < 15) {
            return 0;
        }
        if (pick < 75) {
            return r.nextInt(2048);
        }
        if (pick < 92) {
            return 2048 + r.nextInt(30 * 1024);
        }
        return 60 * 1024 + r.nextInt(40 * 1024); // around maxResponseBytes
    }

    private static void write(ByteArrayOutputStream out, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        out.write(bytes, 0, bytes.length);
    }

    static String pickOf(Random r, String[] options) {
        return options[r.nextInt(options.length)];
    }
}
