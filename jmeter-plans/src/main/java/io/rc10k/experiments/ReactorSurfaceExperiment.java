package io.rc10k.experiments;

import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The Reactor-model surface (docs/results/reactor-surface.md): QPS of the mashup server under many closed-loop
 * clients, over the study's three models ({@link ReactorServer}), selectors, worker threads and business time,
 * for four kinds of business: a sleep and CPU work on the request's thread ({@code sleep}, {@code cpu}), and a
 * mashup of C = 1 or 6 partner calls of that length, waited for without a thread ({@code c1}, {@code c6}).
 *
 * <p>One server process per model, selector count and thread count; every point of that configuration
 * (kind × business time × keep-alive or not) runs against it in turn, each point's left-over work ended by
 * an epoch ({@link BusinessFront}). The stubs take partner delays in whole milliseconds, so {@code c1} and
 * {@code c6} run only at business times that are multiples of 1,000 µs.</p>
 */
final class ReactorSurfaceExperiment {
    static final List<String> KINDS = List.of("sleep", "cpu", "c1", "c6");
    private static final Pattern READY = Pattern.compile("reactor ready on (http://\\S+)");

    /** What to run; every list in the order given. */
    record Settings(List<String> models, List<Integer> selectors, List<Integer> threads, List<Integer> micros,
            List<String> kinds, List<Boolean> keepAlive, int clients, long warmupMillis, long measureMillis) {
        Settings {
            for (String m : models) {
                if (!ReactorServer.MODELS.contains(m)) {
                    throw new IllegalArgumentException("--models: \"" + m + "\" (accepted: srst, srmt, mrmt)");
                }
            }
            for (String k : kinds) {
                if (!KINDS.contains(k)) {
                    throw new IllegalArgumentException("--kinds: \"" + k + "\" (accepted: sleep, cpu, c1, c6)");
                }
            }
            for (int us : micros) {
                if (us < 0 || us > 600_000_000) {
                    throw new IllegalArgumentException("--micros: " + us + " (accepted: 0 to 600000000)");
                }
            }
            if (clients < 1 || clients > 19_000) {
                throw new IllegalArgumentException("--clients: " + clients + " (accepted: 1 to 19000: the client "
                        + "holds a socket each, under a limit of 20,000 open files)");
            }
        }

        /** The configurations, a server each: model, selectors, worker threads (0 for srst). */
        List<int[]> configurations() {
            List<int[]> all = new ArrayList<>();
            for (String model : models) {
                switch (model) {
                    case "srst" -> all.add(new int[] {0, 1, 0});
                    case "srmt" -> threads.forEach(t -> all.add(new int[] {1, 1, t}));
                    default -> selectors.forEach(s -> threads.forEach(t -> all.add(new int[] {2, s, t})));
                }
            }
            return all;
        }

        /** The points of one configuration: kind × business time that the kind can take. */
        List<Object[]> points() {
            List<Object[]> all = new ArrayList<>();
            for (boolean alive : keepAlive) {
                for (String kind : kinds) {
                    for (int us : micros) {
                        if (kind.matches("c\\d+") && us % 1_000 != 0) {
                            continue;
                        }
                        all.add(new Object[] {alive, kind, us});
                    }
                }
            }
            return all;
        }
    }

    /** One measured point. {@code threads} is 0 for srst (the business runs on the selector). */
    record Point(String model, int acceptors, int selectors, int threads, String kind, int micros, boolean keepAlive,
            int clients, double qps, long ok, long failed, double meanMillis, int missing, String firstFailure) {
        static final String CSV_HEADER = "model,acceptors,selectors,threads,kind,micros,keepAlive,clients,qps,ok,"
                + "failed,meanMillis,missing,firstFailure";

        String csv() {
            return String.format(Locale.ROOT, "%s,%d,%d,%d,%s,%d,%s,%d,%.1f,%d,%d,%.2f,%d,%s", model, acceptors,
                    selectors, threads, kind, micros, keepAlive, clients, qps, ok, failed, meanMillis, missing,
                    firstFailure == null ? "" : firstFailure.replace(',', ';').replace('\n', ' '));
        }

        static Point parse(String line) {
            String[] f = line.split(",", -1);
            return new Point(f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3]), f[4],
                    Integer.parseInt(f[5]), Boolean.parseBoolean(f[6]), Integer.parseInt(f[7]),
                    Double.parseDouble(f[8]), Long.parseLong(f[9]), Long.parseLong(f[10]), Double.parseDouble(f[11]),
                    Integer.parseInt(f[12]), f[13].isEmpty() ? null : f[13]);
        }
    }

    private final Lab lab;
    private final Settings settings;
    private long epoch;

    ReactorSurfaceExperiment(Lab lab, Settings settings) {
        this.lab = lab;
        this.settings = settings;
    }

    /**
     * Runs every point; returns them in order. A run that fails part-way (a server that did not start) still
     * hands over the points measured before it, in {@code done}, and then throws.
     */
    List<Point> run(List<Point> done) throws IOException {
        List<int[]> configurations = settings.configurations();
        List<Object[]> points = settings.points();
        Progress progress = new Progress(configurations.size() * points.size(),
                (settings.warmupMillis() + settings.measureMillis()) / 1000 + 1);
        List<Point> results = done;
        try (ServerProcess stubs = lab.startStubs(1)) {
            String stubUri = "http://127.0.0.1:" + lab.stubPorts().values().iterator().next();
            for (int[] c : configurations) {
                String model = ReactorServer.MODELS.get(c[0]);
                int adminPort = adminPort();
                URI admin = URI.create("http://127.0.0.1:" + adminPort);
                try (ServerProcess server = startServer(stubUri, model, c[1], c[2], adminPort)) {
                    InetSocketAddress address = new InetSocketAddress(server.uri().getHost(), server.uri().getPort());
                    ClosedLoad load = null;
                    java.util.Set<String> warmed = new java.util.HashSet<>();
                    try {
                        for (Object[] p : points) {
                            boolean alive = (Boolean) p[0];
                            String kind = (String) p[1];
                            int us = (Integer) p[2];
                            if (load == null || alive != load.keepAlive()) {
                                if (load != null) {
                                    load.close();
                                }
                                load = new ClosedLoad(address, settings.clients(), alive);
                            }
                            progress.begin(String.format(Locale.ROOT, "%s, %d selector(s), %s threads, %s %,d µs, %s",
                                    model, c[1], c[2] == 0 ? "no worker" : Integer.toString(c[2]), kind, us,
                                    alive ? "keep-alive" : "a connection per request"));
                            epoch++;
                            // A kind's first point on a fresh server also warms its code up (the JIT): longer.
                            long warmup = settings.warmupMillis() * (warmed.add(kind) ? 3 : 1);
                            ClosedLoad.Window w = load.run(path(kind, us), warmup, settings.measureMillis());
                            nextEpoch(admin);
                            int missing = load.drain(30_000);
                            Point point = new Point(model, model.equals("mrmt") ? 1 : 0, c[1], c[2], kind, us, alive,
                                    settings.clients(), w.perSecond(), w.ok(), w.failed(), w.meanMillis(), missing,
                                    w.firstFailure());
                            System.out.printf(Locale.ROOT, "%,.0f answers/s (%,d in %.1f s), %,d failed, mean %.1f ms%s%n",
                                    point.qps(), w.ok(), w.nanos() / 1e9, w.failed(), w.meanMillis(),
                                    missing > 0 ? ", " + missing + " answers missing after the point" : "");
                            results.add(point);
                            progress.end();
                        }
                    } finally {
                        if (load != null) {
                            load.close();
                        }
                    }
                }
            }
        }
        return results;
    }

    /**
     * A free port below Linux's ephemeral range (32768 up): a port the ephemeral range offers may be taken by one
     * of the clients' own sockets before the server binds it.
     */
    private static int adminPort() throws IOException {
        java.util.Random random = new java.util.Random();
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = 20_000 + random.nextInt(12_000);
            try (java.net.ServerSocket socket = new java.net.ServerSocket(port)) {
                return socket.getLocalPort();
            } catch (IOException taken) {
                // Try another.
            }
        }
        throw new IOException("no free port for the admin connector in 20000-31999");
    }

    private String path(String kind, int micros) {
        return switch (kind) {
            case "sleep", "cpu" -> "/business/" + kind + "?micros=" + micros + "&epoch=" + epoch;
            default -> "/mashup/" + kind + "?delay=" + micros / 1_000 + "&epoch=" + epoch;
        };
    }

    private ServerProcess startServer(String stubs, String model, int selectors, int threads, int adminPort)
            throws IOException {
        List<String> command = new ArrayList<>(List.of(ServerProcess.javaCommand(), "-cp",
                System.getProperty("java.class.path"), ReactorServer.class.getName(), "--stubs", stubs, "--model",
                model, "--selectors", Integer.toString(selectors), "--threads", Integer.toString(Math.max(1, threads)),
                "--clients", Integer.toString(settings.clients()), "--admin-port", Integer.toString(adminPort)));
        return ServerProcess.start("reactor", command, READY);
    }

    /** Tells the server that the point is over: what its clients left queued is answered 410 without work. */
    private void nextEpoch(URI admin) throws IOException {
        epoch++;
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(admin.getHost(), admin.getPort()), 5_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET /reactor/epoch?n=" + epoch + " HTTP/1.1\r\nHost: " + admin.getHost() + "\r\n"
                    + "Connection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            String head = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            if (!head.startsWith("HTTP/1.1 200")) {
                throw new IOException("the reactor server did not take epoch " + epoch + ": " + head);
            }
        }
    }
}
