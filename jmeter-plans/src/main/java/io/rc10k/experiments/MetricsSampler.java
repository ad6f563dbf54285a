package io.rc10k.experiments;

import io.rc10k.harness.Prometheus;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Scrapes a server's {@code /metrics} once a second on a thread of its own, from {@link #start}
 * until {@link #close}. A scrape that fails (the server is saturated or gone) is counted, not fatal.
 * Thread-safe: {@link #snapshots} may be read while sampling goes on.
 */
final class MetricsSampler implements AutoCloseable {
    private static final Duration EVERY = Duration.ofSeconds(1);

    private final URI metrics;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Prometheus> snapshots = new ArrayList<>();
    private final CountDownLatch stop = new CountDownLatch(1);
    private final Thread thread;
    private int failures;

    private MetricsSampler(URI metrics) {
        this.metrics = metrics;
        this.thread = new Thread(this::run, "metrics-sampler");
        this.thread.setDaemon(true);
    }

    static MetricsSampler start(URI server) {
        MetricsSampler sampler = new MetricsSampler(server.resolve("/metrics"));
        sampler.thread.start();
        return sampler;
    }

    /** One scrape now, on the caller's thread. */
    static Prometheus scrapeOnce(URI server) throws IOException, InterruptedException {
        return new MetricsSampler(server.resolve("/metrics")).scrape();
    }

    private Prometheus scrape() throws IOException, InterruptedException {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(5))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException(metrics + " answered " + response.statusCode());
        }
        return Prometheus.parse(System.currentTimeMillis(), response.body());
    }

    private void run() {
        try {
            do {
                try {
                    Prometheus snapshot = scrape();
                    synchronized (snapshots) {
                        snapshots.add(snapshot);
                    }
                } catch (IOException e) {
                    synchronized (snapshots) {
                        failures++;
                    }
                }
            } while (!stop.await(EVERY.toMillis(), TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    List<Prometheus> snapshots() {
        synchronized (snapshots) {
            return List.copyOf(snapshots);
        }
    }

    int failures() {
        synchronized (snapshots) {
            return failures;
        }
    }

    /** The snapshots taken between {@code fromMillis} and {@code toMillis} (epoch), inclusive. */
    List<Prometheus> between(long fromMillis, long toMillis) {
        List<Prometheus> in = new ArrayList<>();
        for (Prometheus p : snapshots()) {
            if (p.epochMillis() >= fromMillis && p.epochMillis() <= toMillis) {
                in.add(p);
            }
        }
        return in;
    }

    @Override
    public void close() throws InterruptedException {
        stop.countDown();
        thread.join(10_000);
    }
}
