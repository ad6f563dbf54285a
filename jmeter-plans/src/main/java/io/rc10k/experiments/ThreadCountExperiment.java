package io.rc10k.experiments;

import io.rc10k.harness.Prometheus;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The paper's Fig. 4 and Table 2, extended: a closed model of N users against {@code /mashup/paper}
 * (partners answering after 0.5 s and 1 s) for each mode, a fresh server per point, and the same
 * sweep for sync mode on a fixed pool (the thread-pool cap law). Per point it measures, over a
 * window after the ramp-up, live JVM threads, throughput, S (request time), D (thread hold time) and
 * each partner call's D_i, and computes the Eq. 1 and Eq. 2 predictions from them.
 *
 * <p>Writes {@code thread-count.csv}, {@code thread-count.md}, {@code table2.md} and the charts
 * {@code thread-count-threads.svg}, {@code thread-count-throughput.svg}, {@code thread-pool-cap.svg}.</p>
 */
final class ThreadCountExperiment {
    static final String CSV_HEADER = "mode,pool_max,users,throughput_rps,errors,samples,live_threads_mean,"
            + "live_threads_max,baseline_threads,jvm_baseline_threads,pool_reserved_threads,request_threads,pool_threads_mean,busy_threads_mean,"
            + "inbound_inflight_mean,outbound_inflight_mean,threads_in_use,s_ms,d_ms,d_over_s,sum_di_ms,c,eq1_threads,eq2_threads";
    private static final int ASYNC_POOL = 64;

    /** Settings of one sweep. */
    record Settings(List<Integer> users, List<String> modes, int fixedPool, int rampupSeconds, int settleSeconds,
            int windowSeconds) {
        int rampup(int n) {
            return n >= 1_000 ? Math.max(rampupSeconds, 10) : rampupSeconds;
        }
    }

    /**
     * One measured point. Times in ms; threads are JVM live (platform) threads. {@code baseline}: live
     * threads of the idle server; {@code jvmBaseline}: those outside the shared pool; {@code reserved}:
     * pool threads busy while idle (selectors, acceptors), which a request can never have.
     */
    record Point(String mode, int poolMax, int users, double throughput, long errors, long samples,
            double liveMean, double liveMax, double baseline, double jvmBaseline, double reserved, double poolMean, double busyMean,
            double inboundMean, double outboundMean, double sMillis, double dMillis, double sumDiMillis) {

        double requestThreads() {
            return liveMean - baseline;
        }

        /**
         * Threads running or blocked for requests at a time, as opposed to alive: the pool's busy
         * threads, plus in sync mode one {@code sync-call} thread per call in flight. Pools keep idle
         * threads alive a while (Jetty's and the call threads' 60 s), so live threads can exceed it.
         */
        double threadsInUse() {
            return busyMean + (mode.equals("sync") ? outboundMean : 0);
        }

        double c() {
            return sumDiMillis / sMillis;
        }

        /** Eq. 1: threads a thread-per-request design needs for N requests in flight. */
        double eq1() {
            return users * (1 + c());
        }

        /** Eq. 2 with c = 0: while calls are outstanding they hold no thread, only D of each request does. */
        double eq2() {
            return users * dMillis / sMillis;
        }

        String label() {
            return mode.equals("sync") && poolMax > 0 ? "sync-pool" + poolMax : mode;
        }

        String csv() {
            return String.format(Locale.ROOT, "%s,%d,%d,%.2f,%d,%d,%.1f,%.0f,%.0f,%.0f,%.0f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,"
                    + "%.1f,%.3f,%.5f,%.1f,%.3f,%.1f,%.2f", label(), poolMax, users, throughput, errors, samples,
                    liveMean, liveMax, baseline, jvmBaseline, reserved, requestThreads(), poolMean, busyMean,
                    inboundMean, outboundMean, threadsInUse(), sMillis, dMillis, dMillis / sMillis, sumDiMillis, c(),
                    eq1(), eq2());
        }
    }

    private final Lab lab;
    private final Settings settings;
    private final List<Point> points = new ArrayList<>();

    ThreadCountExperiment(Lab lab, Settings settings) {
        this.lab = lab;
        this.settings = settings;
    }

    /** Runs every point, writes the files; returns the checks that failed (empty: all held). */
    List<String> run() throws IOException, InterruptedException {
        List<String[]> plan = new ArrayList<>();
        for (String mode : settings.modes()) {
            for (int n : settings.users()) {
                plan.add(new String[] {mode, "0", Integer.toString(n)});
            }
        }
        if (settings.fixedPool() > 0) {
            for (int n : settings.users()) {
                plan.add(new String[] {"sync", Integer.toString(settings.fixedPool()), Integer.toString(n)});
            }
        }
        Files.createDirectories(lab.out());
        Path csv = lab.out().resolve("thread-count.csv");
        Files.writeString(csv, CSV_HEADER + "\n");
        Progress progress = new Progress(plan.size(),
                10 + settings.rampupSeconds() + settings.settleSeconds() + settings.windowSeconds());
        try (ServerProcess stubs = lab.startStubs(2)) {
            for (String[] p : plan) {
                int users = Integer.parseInt(p[2]);
                int pool = Integer.parseInt(p[1]);
                progress.begin(p[0] + (pool > 0 ? " on a pool of " + pool : "") + ", " + users + " users");
                Point point = measure(p[0], pool, users);
                points.add(point);
                Files.writeString(csv, point.csv() + "\n", StandardOpenOption.APPEND);
                System.out.printf(Locale.ROOT, "   %s: %.1f req/s, %d errors, live threads %.0f (baseline %.0f), "
                        + "S %.0f ms, D %.3f ms, Eq.1 %.0f, Eq.2 %.2f%n", point.label(), point.throughput(),
                        point.errors(), point.liveMean(), point.baseline(), point.sMillis(), point.dMillis(),
                        point.eq1(), point.eq2());
                progress.end();
            }
        }
        ThreadCountReport report = new ThreadCountReport(points, settings.fixedPool());
        report.write(lab.out());
        return report.checks();
    }

    private Point measure(String mode, int fixedPool, int users) throws IOException, InterruptedException {
        // Sync on a pool that grows with N: big enough that its BlockingRequestLimit admits all N at once.
        int poolMax = fixedPool > 0 ? fixedPool : mode.equals("sync") ? users * 8 / 7 + ASYNC_POOL : ASYNC_POOL;
        int rampup = settings.rampup(users);
        int duration = rampup + settings.settleSeconds() + settings.windowSeconds();
        Path jtl = lab.out().resolve("raw").resolve("thread-count-" + mode + (fixedPool > 0 ? "-pool" + fixedPool : "")
                + "-" + users + ".jtl");
        try (ServerProcess server = lab.startMashup(lab.config("paper.json"), mode, poolMax)) {
            Thread.sleep(1_000);
            Prometheus idle = MetricsSampler.scrapeOnce(server.uri());
            Lab.Run run = lab.runPlan(server, "thread-count.jmx", jtl, Map.of("path", "/mashup/paper",
                    "users", Integer.toString(users), "rampup", Integer.toString(rampup),
                    "duration", Integer.toString(duration)), Duration.ofSeconds(duration + 180L));
            List<Jtl.Sample> samples = run.samples();
            MetricsSampler sampler = run.metrics();
            long first = run.start();
            long from = first + (rampup + settings.settleSeconds()) * 1_000L;
            long to = from + settings.windowSeconds() * 1_000L;
            List<Prometheus> window = sampler.between(from, to);
            if (window.size() < 2) {
                throw new IOException("fewer than 2 scrapes of /metrics in the measured window ("
                        + sampler.failures() + " failed); the server may be saturated");
            }
            Prometheus a = window.get(0);
            Prometheus b = window.get(window.size() - 1);
            double seconds = (b.epochMillis() - a.epochMillis()) / 1000.0;
            long answered = samples.stream().filter(s -> s.ok() && s.end() > a.epochMillis()
                    && s.end() <= b.epochMillis()).count();
            long errors = samples.stream().filter(s -> !s.ok()).count();
            double s = delta(a, b, "mashup_request_seconds_sum", "mashup_request_seconds_count");
            double d = delta(a, b, "mashup_thread_hold_seconds_sum", "mashup_thread_hold_seconds_count");
            double sumDi = delta(a, b, "mashup_partner_call_seconds_sum{partner=\"partner1\"}",
                    "mashup_partner_call_seconds_count{partner=\"partner1\"}")
                    + delta(a, b, "mashup_partner_call_seconds_sum{partner=\"partner2\"}",
                    "mashup_partner_call_seconds_count{partner=\"partner2\"}");
            double baseline = idle.get("jvm_threads_live_threads");
            return new Point(mode, fixedPool, users, answered / seconds, errors, samples.size(),
                    mean(window, "jvm_threads_live_threads"), max(window, "jvm_threads_live_threads"), baseline,
                    baseline - idle.get("jetty_threads_current"), idle.get("jetty_threads_busy"),
                    mean(window, "jetty_threads_current"), mean(window, "jetty_threads_busy"),
                    mean(window, "mashup_inbound_inflight"), mean(window, "mashup_outbound_inflight"),
                    s * 1000, d * 1000, sumDi * 1000);
        }
    }

    /** The mean over the window of a summary: Δsum / Δcount, in seconds (a name without labels sums them all). */
    private static double delta(Prometheus a, Prometheus b, String sum, String count) {
        double n = total(b, count) - total(a, count);
        return n <= 0 ? Double.NaN : (total(b, sum) - total(a, sum)) / n;
    }

    private static double total(Prometheus p, String key) {
        return key.contains("{") ? p.get(key) : p.sum(key, "");
    }

    static double mean(List<Prometheus> window, String key) {
        return window.stream().mapToDouble(p -> p.get(key)).average().orElse(Double.NaN);
    }

    static double max(List<Prometheus> window, String key) {
        return window.stream().mapToDouble(p -> p.get(key)).max().orElse(Double.NaN);
    }
}
