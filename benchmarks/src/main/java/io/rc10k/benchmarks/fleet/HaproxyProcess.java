package io.rc10k.benchmarks.fleet;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Debian's HAProxy in a process of its own, configured by the project's recipe
 * ({@code deploy/haproxy/haproxy.cfg}) with only its addresses changed: the frontend on a free loopback
 * port, one {@code server} line per instance given (checked on its admin port), and a stats page to see
 * which instances it holds up. Measured from outside through {@code /proc/<pid>/stat}.
 *
 * <pre>{@code
 * try (HaproxyProcess haproxy = HaproxyProcess.start(recipe, frontendPort, List.of(new Backend(8180, 8181)))) {
 *     haproxy.awaitUp(Duration.ofSeconds(60));
 *     client.GET(haproxy.uri().resolve("/mashup/c6"));
 * }
 * }</pre>
 */
final class HaproxyProcess implements AutoCloseable {
    /** Where Debian's package puts it. */
    static final Path HAPROXY = Path.of("/usr/sbin/haproxy");
    /** The recipe, relative to the repository root. */
    static final Path RECIPE = Path.of("deploy", "haproxy", "haproxy.cfg");

    /** One mashup server: its main port and its admin port, both on loopback. */
    record Backend(int port, int adminPort) {
    }

    private final Process process;
    private final int port;
    private final int statsPort;
    private final HttpClient stats = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HaproxyProcess(Process process, int port, int statsPort) {
        this.process = process;
        this.port = port;
        this.statsPort = statsPort;
    }

    /** Why the fleet cannot run here, or null when it can. */
    static String unavailable() {
        return Files.isExecutable(HAPROXY) ? null
                : HAPROXY + " is not installed (Debian: apt-get install haproxy; .ci/run does it where it may)";
    }

    /** The recipe with its {@code bind} and {@code server} lines replaced, and a stats page added. */
    static String config(String recipe, int port, int statsPort, List<Backend> backends) {
        StringBuilder out = new StringBuilder();
        for (String line : recipe.split("\n", -1)) {
            String directive = line.strip();
            if (directive.startsWith("server ")) {
                continue;
            }
            out.append(directive.startsWith("bind ") ? "    bind 127.0.0.1:" + port : line).append('\n');
        }
        int i = 1;
        for (Backend b : backends) {
            out.append("    server mashup").append(i++).append(" 127.0.0.1:").append(b.port())
                    .append(" check port ").append(b.adminPort()).append('\n');
        }
        out.append("\nlisten stats\n    bind 127.0.0.1:").append(statsPort)
                .append("\n    stats enable\n    stats uri /stats\n");
        return out.toString();
    }

    static HaproxyProcess start(Path recipe, int port, int statsPort, List<Backend> backends) throws IOException {
        String why = unavailable();
        if (why != null) {
            throw new IOException(why);
        }
        Path config = Files.createTempFile("rc10k-haproxy", ".cfg");
        config.toFile().deleteOnExit();
        Files.writeString(config, config(Files.readString(recipe), port, statsPort, backends));
        Process process = new ProcessBuilder(HAPROXY.toString(), "-db", "-f", config.toString())
                .redirectErrorStream(true).start();
        Thread echo = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    System.out.println("[haproxy] " + line);
                }
            } catch (IOException e) {
                // the process ended
            }
        }, "haproxy-output");
        echo.setDaemon(true);
        echo.start();
        return new HaproxyProcess(process, port, statsPort);
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** Each backend server's status on the stats page ({@code UP}, {@code DOWN}, {@code MAINT}, …), by name. */
    Map<String, String> serverStatus() throws IOException, InterruptedException {
        HttpResponse<String> csv = stats.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + statsPort + "/stats;csv")).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
        List<String> lines = csv.body().lines().toList();
        List<String> header = List.of(lines.get(0).replaceFirst("^# ", "").split(","));
        int proxy = header.indexOf("pxname");
        int name = header.indexOf("svname");
        int status = header.indexOf("status");
        Map<String, String> servers = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            if (f.length > status && f[proxy].equals("mashup_servers") && !f[name].equals("BACKEND")) {
                servers.put(f[name], f[status]);
            }
        }
        return servers;
    }

    /** Waits, bounded, until HAProxy answers and holds every server {@code UP}. */
    void awaitUp(Duration bound) throws IOException, InterruptedException {
        long end = System.nanoTime() + bound.toNanos();
        String last = "no answer";
        while (System.nanoTime() - end < 0) {
            if (!process.isAlive()) {
                throw new IOException("haproxy exited with status " + process.exitValue() + " (its output is above)");
            }
            try {
                Map<String, String> servers = serverStatus();
                last = servers.toString();
                if (!servers.isEmpty() && servers.values().stream().allMatch("UP"::equals)) {
                    return;
                }
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(100);
        }
        throw new IOException("haproxy did not hold every server up within " + bound + ": " + last);
    }

    /** CPU time used so far, user + system, in ms (clock ticks of 10 ms). */
    long cpuMillis() throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
