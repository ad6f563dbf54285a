package io.rc10k.benchmarks.fleet;

import io.rc10k.harness.CommandLine;
import io.rc10k.harness.Prometheus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A rolling restart under load loses nothing, and a {@code kill -9} loses at most what was in flight on
 * the killed instance: N instances behind HAProxy (deploy/haproxy/haproxy.cfg), open-model arrivals at a
 * steady rate; each instance in turn gets SIGTERM, drains, exits and is started again, the next only once
 * HAProxy holds it up. Then, under the same load, one instance is killed with SIGKILL.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.rc10k.benchmarks.fleet.RollingRestart --instances 3 --rate 60
 * </pre>
 *
 * Prints the counts of both parts and writes a timeline (per second: complete answers and mashups in
 * flight per instance, -1 while an instance does not answer) to {@code --timeline}. Exit 0 when every
 * request of the rolling restart was answered 200 complete and the kill lost no more than was in flight
 * on the killed instance; 1 otherwise; 3 without HAProxy.
 */
public final class RollingRestart {
    /** What the run saw. */
    public record Outcome(long sent, long complete, long refused, long other, long failed, List<Integer> exits,
            long killSent, long killComplete, double inFlightAtKill, int killExit, long killDownMillis) {
        public long killLost() {
            return killSent - killComplete;
        }

        public boolean passed() {
            return complete == sent && refused == 0 && other == 0 && failed == 0
                    && exits.stream().allMatch(e -> e == 143) && killLost() <= inFlightAtKill;
        }
    }

    private RollingRestart() {
    }

    public static void main(String[] args) throws Exception {
        String usage = "--instances 3 --rate 60 --call-millis 5000 --settle-seconds 10 --timeline FILE --help --version";
        int instances = 3;
        double rate = 60;
        int callMillis = 5_000;
        int settle = 10;
        Path timeline = Path.of("rolling-restart-timeline.csv");
        CommandLine line = new CommandLine("rolling-restart", usage, args);
        while (line.next()) {
            switch (line.option()) {
                case "--instances" -> instances = line.intValue();
                case "--rate" -> rate = line.doubleValue();
                case "--call-millis" -> callMillis = line.intValue();
                case "--settle-seconds" -> settle = line.intValue();
                case "--timeline" -> timeline = line.path();
                default -> line.unknown();
            }
        }
        // Ctrl-C or SIGTERM: HAProxy, the instances and the stubs end with the experiment, not after it.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessHandle.current().descendants()
                .forEach(ProcessHandle::destroy), "stop-children"));
        String why = HaproxyProcess.unavailable();
        if (why != null) {
            System.err.println("rolling-restart: " + why);
            System.exit(3);
        }
        System.exit(run(instances, rate, callMillis, settle, timeline).passed() ? 0 : 1);
    }

    public static Outcome run(int count, double rate, int callMillis, int settleSeconds, Path timelineCsv)
            throws Exception {
        if (count < 2) {
            throw new IllegalArgumentException("instances < 2: " + count + " (one must answer while another restarts)");
        }
        try (Fleet fleet = Fleet.start(count, callMillis)) {
            List<String> timeline = new ArrayList<>();
            AtomicBoolean sampling = new AtomicBoolean(true);
            Thread sampler = new Thread(() -> sample(fleet, timeline, sampling), "timeline");
            sampler.start();
            long timeout = Fleet.DEADLINE_MILLIS + 20_000;
            long bound = 30 + count * (Fleet.DEADLINE_MILLIS / 1000 + 5 + 120) + 2L * settleSeconds;

            SteadyLoad rolling = new SteadyLoad(fleet.client(), fleet.target(), rate, bound, timeout).start();
            Thread.sleep(settleSeconds * 1000L); // the load settles before the first restart (a schedule, not a wait)
            List<Integer> exits = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                long t0 = System.nanoTime();
                mark(timeline, "SIGTERM " + Fleet.label(i));
                int exit = fleet.restart(i);
                long stopped = System.nanoTime();
                mark(timeline, Fleet.label(i) + " exited " + exit + ", started again");
                fleet.awaitStatus(i, "UP", Duration.ofSeconds(120));
                mark(timeline, Fleet.label(i) + " UP in HAProxy");
                exits.add(exit);
                System.out.printf("%s: exit %d %d ms after SIGTERM; UP in HAProxy %d ms after its restart%n",
                        Fleet.label(i), exit, (stopped - t0) / 1_000_000, (System.nanoTime() - stopped) / 1_000_000);
            }
            Thread.sleep(settleSeconds * 1000L);
            boolean ended = rolling.stopAndAwait(timeout + 10_000);
            System.out.println("rolling restart: " + rolling.counts() + (ended ? "" : " (some never ended)"));

            SteadyLoad killed = new SteadyLoad(fleet.client(), fleet.target(), rate, 120, timeout).start();
            Thread.sleep(settleSeconds * 1000L);
            Prometheus before = fleet.scrapeOrNull(0);
            double inFlight = before == null ? -1 : before.get("mashup_inbound_inflight");
            mark(timeline, "SIGKILL " + Fleet.label(0));
            long k0 = System.nanoTime();
            int killExit = fleet.kill(0);
            fleet.awaitStatus(0, "DOWN", Duration.ofSeconds(60));
            long downMillis = (System.nanoTime() - k0) / 1_000_000;
            mark(timeline, Fleet.label(0) + " DOWN in HAProxy");
            Thread.sleep(settleSeconds * 1000L);
            killed.stopAndAwait(timeout + 10_000);
            System.out.printf("kill -9 of %s (exit %d) with %.0f mashups in flight on it; HAProxy held it DOWN %d ms "
                    + "later: %s%n", Fleet.label(0), killExit, inFlight, downMillis, killed.counts());
            sampling.set(false);
            sampler.join(10_000);
            Files.write(timelineCsv, timeline);
            Outcome outcome = new Outcome(rolling.sent(), rolling.complete.sum(), rolling.refused.sum(),
                    rolling.other.sum(), rolling.failed.sum() + rolling.outstanding(), exits, killed.sent(),
                    killed.complete.sum(), inFlight, killExit, downMillis);
            System.out.println(outcome + (outcome.passed() ? ": pass" : ": FAIL"));
            return outcome;
        }
    }

    private static void mark(List<String> timeline, String event) {
        synchronized (timeline) {
            timeline.add(System.currentTimeMillis() + ",event," + event);
        }
    }

    /** Once a second: per instance, complete answers so far and mashups in flight; -1 while it does not answer. */
    private static void sample(Fleet fleet, List<String> timeline, AtomicBoolean sampling) {
        synchronized (timeline) {
            StringBuilder header = new StringBuilder("epoch_ms,kind");
            for (int i = 0; i < fleet.size(); i++) {
                header.append(',').append(Fleet.label(i)).append("_complete,").append(Fleet.label(i)).append("_inflight");
            }
            timeline.add(0, header.toString());
        }
        while (sampling.get()) {
            StringBuilder row = new StringBuilder().append(System.currentTimeMillis()).append(",sample");
            for (int i = 0; i < fleet.size(); i++) {
                Prometheus p = fleet.scrapeOrNull(i);
                row.append(',').append(p == null ? -1 : Math.round(p.sum("mashup_requests_total",
                        "outcome=\"complete\""))).append(',').append(p == null ? -1 : Math.round(
                        p.get("mashup_inbound_inflight")));
            }
            synchronized (timeline) {
                timeline.add(row.toString());
            }
            try {
                Thread.sleep(1_000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
