package io.rc10k.mashup;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;

/**
 * A collector for tests: a real HTTP server on loopback that takes OTLP/HTTP trace exports at
 * {@code /v1/traces} (protobuf, gzip or not), answers 200, and keeps every request's body and the
 * spans decoded from it, its headers and its resources' attributes; or, told to {@link #refuseWith refuse}, answers that status and keeps
 * nothing. Any other path answers 404 and is counted too.
 */
final class OtlpReceiver implements AutoCloseable {
    /** A span as it arrived; ids in lowercase hex, {@code parentSpanId} empty for a root. */
    record Span(String traceId, String spanId, String parentSpanId, String name, int kind, long startNanos,
            long endNanos, Map<String, Object> attributes) {
        static final int SERVER = 2;
        static final int CLIENT = 3;
    }

    private final HttpServer server;
    private final List<byte[]> bodies = new ArrayList<>();
    private final List<Span> spans = new ArrayList<>();
    private final List<Map<String, String>> headers = new ArrayList<>();
    private final List<Map<String, Object>> resources = new ArrayList<>();
    private final AtomicInteger requests = new AtomicInteger();
    private volatile int refusal;

    private OtlpReceiver(HttpServer server) {
        this.server = server;
    }

    static OtlpReceiver start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        OtlpReceiver receiver = new OtlpReceiver(server);
        server.createContext("/", receiver::handle);
        server.start();
        return receiver;
    }

    /** The endpoint to configure: {@code http://127.0.0.1:<port>}, its traces at {@code /v1/traces}. */
    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** From now on answers {@code status} to every export and keeps nothing; 0 accepts again. */
    void refuseWith(int status) {
        refusal = status;
    }

    /** Requests received so far, on any path. */
    int requests() {
        return requests.get();
    }

    synchronized List<byte[]> bodies() {
        return List.copyOf(bodies);
    }

    /** Each accepted export's headers, names in lowercase (the first value of each). */
    synchronized List<Map<String, String>> headers() {
        return List.copyOf(headers);
    }

    /** The attributes of each resource that arrived, one map per resource per export. */
    synchronized List<Map<String, Object>> resources() {
        return List.copyOf(resources);
    }

    synchronized List<Span> spans() {
        return List.copyOf(spans);
    }

    /** Waits (bounded) until {@code count} spans of {@code traceId} have arrived; returns them all. */
    synchronized List<Span> awaitTrace(String traceId, int count) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            List<Span> trace = spans.stream().filter(s -> s.traceId().equals(traceId)).toList();
            if (trace.size() >= count) {
                return trace;
            }
            long left = end - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("within 30 s, " + trace.size() + " of " + count + " spans of trace " + traceId
                        + " arrived; all spans: " + spans);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        requests.incrementAndGet();
        try {
            if (!exchange.getRequestURI().getPath().equals("/v1/traces")) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            if (refusal != 0) {
                exchange.getRequestBody().readAllBytes();
                exchange.sendResponseHeaders(refusal, -1);
                return;
            }
            InputStream in = exchange.getRequestBody();
            if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                in = new GZIPInputStream(in);
            }
            byte[] body = in.readAllBytes();
            List<Span> decoded = new ArrayList<>();
            List<Map<String, Object>> decodedResources = new ArrayList<>();
            Protobuf.fields(body, 0, body.length, (field, at, to) -> {      // ExportTraceServiceRequest
                if (field == 1) {                                           // .resource_spans
                    Protobuf.fields(body, at, to, (f2, at2, to2) -> {
                        if (f2 == 1) {                                      // ResourceSpans.resource
                            Map<String, Object> attributes = new HashMap<>();
                            Protobuf.fields(body, at2, to2, (f3, at3, to3) -> {
                                if (f3 == 1) {                              // Resource.attributes
                                    attribute(body, at3, to3, attributes);
                                }
                            });
                            decodedResources.add(attributes);
                        } else if (f2 == 2) {                               // ResourceSpans.scope_spans
                            Protobuf.fields(body, at2, to2, (f3, at3, to3) -> {
                                if (f3 == 2) {                              // ScopeSpans.spans
                                    decoded.add(span(body, at3, to3));
                                }
                            });
                        }
                    });
                }
            });
            Map<String, String> received = new HashMap<>();
            exchange.getRequestHeaders().forEach((name, values) -> received.put(name.toLowerCase(Locale.ROOT), values.get(0)));
            synchronized (this) {
                bodies.add(body);
                headers.add(received);
                resources.addAll(decodedResources);
                spans.addAll(decoded);
                notifyAll();
            }
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1);
        } finally {
            exchange.close();
        }
    }

    /** The fields of opentelemetry.proto.trace.v1.Span that tests read. */
    private static Span span(byte[] b, int from, int to) {
        HexFormat hex = HexFormat.of();
        String[] ids = {"", "", ""};
        String[] name = {""};
        long[] numbers = new long[3];
        Map<String, Object> attributes = new HashMap<>();
        Protobuf.fields(b, from, to, (field, at, end) -> {
            switch (field) {
                case 1 -> ids[0] = hex.formatHex(b, at, end);
                case 2 -> ids[1] = hex.formatHex(b, at, end);
                case 4 -> ids[2] = hex.formatHex(b, at, end);
                case 5 -> name[0] = new String(b, at, end - at, StandardCharsets.UTF_8);
                case 6 -> numbers[0] = Protobuf.varint(b, at)[0];
                case 7 -> numbers[1] = Protobuf.fixed64(b, at);
                case 8 -> numbers[2] = Protobuf.fixed64(b, at);
                case 9 -> attribute(b, at, end, attributes);
                default -> {
                }
            }
        });
        return new Span(ids[0], ids[1], ids[2], name[0], (int) numbers[0], numbers[1], numbers[2], attributes);
    }

    /** A KeyValue: its key, and an AnyValue's string, bool or int. */
    private static void attribute(byte[] b, int from, int to, Map<String, Object> into) {
        String[] key = {null};
        Object[] value = {null};
        Protobuf.fields(b, from, to, (field, at, end) -> {
            if (field == 1) {
                key[0] = new String(b, at, end - at, StandardCharsets.UTF_8);
            } else if (field == 2) {
                Protobuf.fields(b, at, end, (kind, vAt, vEnd) -> {
                    switch (kind) {
                        case 1 -> value[0] = new String(b, vAt, vEnd - vAt, StandardCharsets.UTF_8);
                        case 2 -> value[0] = Protobuf.varint(b, vAt)[0] != 0;
                        case 3 -> value[0] = Protobuf.varint(b, vAt)[0];
                        default -> value[0] = "?";
                    }
                });
            }
        });
        into.put(key[0], value[0]);
    }

    @Override
    public void close() {
        server.stop(0);
    }

    /** Just enough of the protobuf wire format to walk a message's fields. */
    static final class Protobuf {
        /** One field: its number, and where its value starts and ends (a varint's or fixed's too). */
        interface Field {
            void visit(int number, int at, int end);
        }

        private Protobuf() {
        }

        static void fields(byte[] b, int from, int to, Field visitor) {
            int i = from;
            while (i < to) {
                long[] tag = varint(b, i);
                i = (int) tag[1];
                int number = (int) (tag[0] >>> 3);
                int at;
                switch ((int) (tag[0] & 7)) {
                    case 0 -> {
                        at = i;
                        i = (int) varint(b, i)[1];
                    }
                    case 1 -> {
                        at = i;
                        i += 8;
                    }
                    case 2 -> {
                        long[] length = varint(b, i);
                        at = (int) length[1];
                        i = at + (int) length[0];
                    }
                    case 5 -> {
                        at = i;
                        i += 4;
                    }
                    default -> throw new IllegalArgumentException("wire type " + (tag[0] & 7) + " at " + i);
                }
                visitor.visit(number, at, i);
            }
        }

        /** {value, index after it}. */
        static long[] varint(byte[] b, int at) {
            long value = 0;
            for (int shift = 0; ; shift += 7) {
                byte next = b[at++];
                value |= (long) (next & 0x7f) << shift;
                if (next >= 0) {
                    return new long[] {value, at};
                }
            }
        }

        static long fixed64(byte[] b, int at) {
            long value = 0;
            for (int i = 7; i >= 0; i--) {
                value = value << 8 | (b[at + i] & 0xff);
            }
            return value;
        }
    }
}
