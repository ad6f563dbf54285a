package io.rc10k.benchmarks.load;

import io.rc10k.benchmarks.capacity.StubProcess;
import io.rc10k.harness.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The partners of a chaos soak, each a process of its own: one hostile partner in chaos mode (a correct
 * {@code 200 {"ok":true}}, or with probability p one of its HTTP/1.1 misbehaviours, each ended within
 * its stall cap) and one well-behaved partner-stubs process; and the definitions of the one mashup,
 * {@code /mashup/chaos}: three calls to the hostile partner (three partners of the definitions, so three
 * pools and three circuit breakers, all at their defaults) and one to the stubs.
 *
 * <p>Both partners keep an idle connection {@value #PARTNER_IDLE_MILLIS} ms, longer than the broker's
 * own idle timeout (30 s): within the soak's idle window only the broker closes idle connections, so
 * a connection it holds without returning it to its pool is still open at the end of the window.</p>
 */
final class ChaosPartners implements AutoCloseable {
    static final long PARTNER_IDLE_MILLIS = 120_000;
    static final String MASHUP = "chaos";
    private static final Pattern HOSTILE_READY = Pattern.compile("hostile partner ready .* on: (http://\\S+)");
    private static final List<String> JVM = List.of("-Xmx256m");

    private final ServerProcess hostile;
    private final StubProcess steady;
    private final long maxStallMillis;

    private ChaosPartners(ServerProcess hostile, StubProcess steady, long maxStallMillis) {
        this.hostile = hostile;
        this.steady = steady;
        this.maxStallMillis = maxStallMillis;
    }

    /**
     * Starts both. The stall cap is three deadlines: every stall outlives the deadline, so the mashup's
     * deadline, not the partner, ends it.
     */
    static ChaosPartners start(Path stubsJar, double chaos, long seed, long deadlineMillis) throws IOException {
        long maxStall = 3 * deadlineMillis;
        String idle = Long.toString(PARTNER_IDLE_MILLIS);
        ServerProcess hostile = ServerProcess.startJar("hostile", stubsJar, JVM, List.of("--hostile", "--port", "0",
                "--chaos", Double.toString(chaos), "--seed", Long.toString(seed), "--max-stall", Long.toString(maxStall),
                "--idle-timeout", idle), HOSTILE_READY);
        try {
            return new ChaosPartners(hostile, StubProcess.start(stubsJar, JVM, List.of("--idle-timeout", idle)),
                    maxStall);
        } catch (IOException | RuntimeException e) {
            hostile.close();
            throw e;
        }
    }

    /** The partners' process ids. */
    List<Long> pids() {
        return List.of(hostile.pid(), steady.pid());
    }

    long maxStallMillis() {
        return maxStallMillis;
    }

    /**
     * Writes the definitions: {@code /mashup/chaos} with {@code deadlineMillis}; each call may take twice
     * the deadline on its own, so the deadline is what cuts a stalled call.
     */
    Path writeDefinitions(long deadlineMillis) throws IOException {
        Path definitions = Files.createTempFile("rc10k-chaos-soak", ".json");
        definitions.toFile().deleteOnExit();
        URI bad = hostile.uri();
        long callTimeout = 2 * deadlineMillis;
        Files.writeString(definitions, """
                {"partners": {
                   "chaos1": {"baseUri": "%1$s", "callTimeoutMillis": %3$d, "maxResponseBytes": 65536},
                   "chaos2": {"baseUri": "%1$s", "callTimeoutMillis": %3$d, "maxResponseBytes": 65536},
                   "chaos3": {"baseUri": "%1$s", "callTimeoutMillis": %3$d, "maxResponseBytes": 65536},
                   "steady": {"baseUri": "%2$s", "callTimeoutMillis": %3$d}},
                 "mashups": {
                   "%5$s": {"deadlineMillis": %4$d, "calls": [
                     {"partner": "chaos1", "template": "/part/1"},
                     {"partner": "chaos2", "template": "/part/2"},
                     {"partner": "chaos3", "template": "/part/3"},
                     {"partner": "steady", "template": "/stub?delay=50&bytes=512"}]}}}
                """.formatted(bad, steady.uri(), callTimeout, deadlineMillis, MASHUP));
        return definitions;
    }

    @Override
    public void close() {
        steady.close();
        hostile.close();
    }
}
