package io.rc10k.benchmarks.fleet;

/**
 * What one arrival rate through HAProxy did to a fleet of {@code instances}.
 *
 * @param complete      answers 200 with {@code Mashup-Complete: true}
 * @param incomplete    any other answer (a partial composite, a 5xx) or a request that failed
 * @param maxOutbound   the most partner calls in flight at once, summed over the instances (sampled)
 * @param maxInbound    the most mashup requests in flight at once, summed over the instances (sampled)
 * @param serverCpuMs   CPU the instances used during the phase, together
 * @param haproxyCpuMs  CPU HAProxy used during the phase
 * @param perInstance   complete answers each instance gave (from its own {@code /metrics})
 * @param p50Ms, p99Ms, maxMs  latency of the complete answers from each request's intended send time (no
 *                      coordinated omission): a wait in HAProxy's queue counts
 */
public record FleetPhase(int instances, double rate, long sent, long complete, long incomplete, String firstIncomplete,
        double maxOutbound, double maxInbound, long serverCpuMs, long haproxyCpuMs, long[] perInstance,
        double p50Ms, double p99Ms, double maxMs) {

    public boolean allComplete() {
        return incomplete == 0 && complete == sent;
    }

    static String header() {
        return "| instances | arrivals/s | sent | complete | not complete | latency p50 / p99 / max (s) "
                + "| outbound held (max) | inbound (max) | server CPU ms / mashup | HAProxy CPU ms / mashup "
                + "| complete per instance |\n"
                + "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|";
    }

    public String row() {
        StringBuilder each = new StringBuilder();
        for (long n : perInstance) {
            each.append(each.isEmpty() ? "" : " / ").append(String.format("%,d", n));
        }
        long answered = Math.max(1, complete + incomplete);
        return String.format("| %d | %.0f | %,d | %,d | %,d%s | %.1f / %.1f / %.1f | %,.0f | %,.0f | %.2f | %.2f | %s |",
                instances, rate, sent, complete, incomplete, incomplete == 0 ? "" : " (" + firstIncomplete + ")",
                p50Ms / 1000, p99Ms / 1000, maxMs / 1000, maxOutbound, maxInbound,
                (double) serverCpuMs / answered, (double) haproxyCpuMs / answered, each);
    }
}
