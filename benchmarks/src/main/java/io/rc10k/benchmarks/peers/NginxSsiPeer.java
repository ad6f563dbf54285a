package io.rc10k.benchmarks.peers;

import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fan-out in C, a peer for the mashup server: nginx (Debian's package) answers {@code /mashup/cC} with a
 * page whose C server-side includes ({@code <!--# include virtual="/part" -->}) are subrequests to the partner,
 * which nginx runs in parallel over an upstream of kept-alive HTTP/1.1 connections, and writes their bodies
 * into the mashup server's composite JSON as they come, in order. No check of the parts: a failed subrequest
 * leaves an error text in a 200 page, so {@link #start} reads one answer and checks it before it returns.
 *
 * <pre>
 * ServerProcess nginx = NginxSsiPeer.start(NginxSsiPeer.onPath(), directory, partnerUri, 6);
 * </pre>
 *
 * <p>One process: {@code master_process off} and {@code daemon off}, so the process started is the one that
 * serves, and its CPU (read from {@code /proc} as every server's is) is all of nginx's; it is one thread, so
 * its mashups/s are bounded by one core while the Java servers may use both. Runs as whoever starts it: its
 * prefix, configuration, error log and temp files in {@code directory}, a free loopback port; stopped by
 * {@link ServerProcess#close()} (SIGTERM: nginx's fast shutdown).</p>
 */
public final class NginxSsiPeer {
    public static final String NAME = "nginx-ssi";
    private static final Pattern READY = Pattern.compile(NAME + " ready on (http://\\S+)");
    private static final Pattern STUB_BODY = Pattern.compile("\"stub\":\"ok\"");
    /** Kept-alive connections to the partner: the mashup server's {@code maxConnections} in the peers run. */
    private static final int PARTNER_CONNECTIONS = 256;
    private static final long START_MILLIS = 10_000;

    private NginxSsiPeer() {
    }

    /**
     * The {@code nginx} executable on the {@code PATH}, or Debian's ({@code /usr/sbin}, which a user's
     * {@code PATH} often leaves out), or null.
     */
    public static Path onPath() {
        String path = System.getenv("PATH");
        List<Path> candidates = new ArrayList<>();
        for (String dir : path == null ? new String[0] : path.split(java.io.File.pathSeparator)) {
            candidates.add(Path.of(dir.isEmpty() ? "." : dir, "nginx"));
        }
        candidates.add(Path.of("/usr/sbin/nginx"));
        return candidates.stream().filter(n -> Files.isRegularFile(n) && Files.isExecutable(n)).findFirst()
                .orElse(null);
    }

    /**
     * Starts nginx on a free port with its files in {@code directory}; returns once it answered one mashup with
     * the C partner bodies in it.
     */
    static ServerProcess start(Path nginx, Path directory, URI partner, int calls) throws IOException {
        int port = ServerProcess.freePort();
        Files.writeString(directory.resolve("c" + calls + ".json"), page(calls));
        Path conf = Files.writeString(directory.resolve("nginx.conf"), config(directory, partner, calls, port));
        // sh prints the ready line, then becomes nginx (same pid): the process measured is nginx itself.
        ServerProcess server = ServerProcess.start(NAME, List.of("sh", "-c", "echo '" + NAME
                + " ready on http://127.0.0.1:" + port + "'; exec \"$0\" -p \"$1\" -c \"$2\" -e \"$3\"", nginx.toString(),
                directory.toString(), conf.toString(), directory.resolve("error.log").toString()), READY);
        try {
            awaitListening(server, port, directory);
            check(server, calls);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** Fails unless one mashup comes back 200 with the C partner bodies in it. */
    private static void check(ServerProcess server, int calls) throws IOException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> answer;
        try {
            answer = client.send(HttpRequest.newBuilder(server.uri().resolve("/mashup/c" + calls))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while checking " + NAME, e);
        }
        Matcher bodies = STUB_BODY.matcher(answer.body());
        int found = 0;
        while (bodies.find()) {
            found++;
        }
        if (answer.statusCode() != 200 || found != calls) {
            throw new IOException(NAME + ": a mashup should hold " + calls + " partner bodies; it answered "
                    + answer.statusCode() + " with " + found + ": " + answer.body());
        }
    }

    /** The composite of {@code calls} parts, each part's body an include of the partner's answer. */
    static String page(int calls) {
        StringBuilder page = new StringBuilder("{\"mashup\":\"c" + calls + "\",\"complete\":true,\"parts\":{");
        for (int k = 1; k <= calls; k++) {
            page.append(k > 1 ? "," : "").append("\"p").append(k)
                    .append("\":{\"status\":200,\"body\":<!--# include virtual=\"/part\" -->}");
        }
        return page.append("}}").toString();
    }

    static String config(Path directory, URI partner, int calls, int port) {
        String dir = directory.toAbsolutePath().toString();
        return String.join("\n",
                "daemon off;",
                "master_process off;",
                "worker_processes 1;",
                "pid " + dir + "/nginx.pid;",
                "error_log " + dir + "/error.log warn;",
                "events { worker_connections 4096; }",
                "http {",
                "    access_log off;",
                "    types { }",
                "    default_type application/json;",
                "    client_body_temp_path " + dir + "/client_body;",
                "    proxy_temp_path " + dir + "/proxy;",
                "    fastcgi_temp_path " + dir + "/fastcgi;",
                "    uwsgi_temp_path " + dir + "/uwsgi;",
                "    scgi_temp_path " + dir + "/scgi;",
                "    upstream partner {",
                "        server " + partner.getHost() + ":" + partner.getPort() + ";",
                "        keepalive " + PARTNER_CONNECTIONS + ";",
                "        keepalive_requests 1000000;",
                "    }",
                "    server {",
                "        listen 127.0.0.1:" + port + ";",
                "        keepalive_requests 1000000;",
                "        location = /mashup/c" + calls + " {",
                "            ssi on;",
                "            ssi_types application/json;",
                "            alias " + dir + "/c" + calls + ".json;",
                "        }",
                "        location = /part {",
                "            internal;",
                "            proxy_pass http://partner" + partner.getRawPath() + ";",
                "            proxy_http_version 1.1;",
                "            proxy_set_header Connection \"\";",
                "        }",
                "    }",
                "}",
                "");
    }

    private static void awaitListening(ServerProcess server, int port, Path directory) throws IOException {
        long end = System.nanoTime() + START_MILLIS * 1_000_000;
        while (true) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
                return;
            } catch (IOException notYet) {
                try {
                    server.cpuMillis(); // throws, naming the exit status, once nginx has exited
                } catch (IOException exited) {
                    throw new IOException(exited.getMessage() + "; its error log: " + errorLog(directory), exited);
                }
                if (System.nanoTime() > end) {
                    throw new IOException(NAME + " not listening on port " + port + " after " + START_MILLIS
                            + " ms; its error log: " + errorLog(directory));
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while waiting for " + NAME, e);
                }
            }
        }
    }

    private static String errorLog(Path directory) throws IOException {
        Path log = directory.resolve("error.log");
        return Files.isRegularFile(log) ? Files.readString(log) : "(none)";
    }
}
