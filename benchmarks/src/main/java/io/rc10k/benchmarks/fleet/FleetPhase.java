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
 */
public record FleetPhase(int instances, double rate, long sent, long complete, long incomplete, String firstIncomplete,
        double maxOutbound, double maxInbound, long serverCpuMs, long haproxyCpuMs, long[] perInstance) {

    public boolean allComplete() {
        return incomplete == 0 && complete == sent;
    }

    static String header() {
        return "| instances | arrivals/s | sent | complete | not complete | outbound held (max) | inbound (max) "
                + "| server CPU ms / mashup | HAProxy CPU ms / mashup | complete per instance |\n"
                + "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|";
    }

    public String row() {
        StringBuilder each = new StringBuilder();
        for (long n : perInstance) {
            each.append(each.isEmpty() ? "" : " / ").append(String.format("%,d", n));
        }
        long answered = Math.max(1, complete + incomplete);
        return String.format("| %d | %.0f | %,d | %,d | %,d%s | %,.0f | %,.0f | %.2f | %.2f | %s |", instances, rate, sent,
                complete, incomplete, incomplete == 0 ? "" : " (" + firstIncomplete + ")", maxOutbound, maxInbound,
                (double) serverCpuMs / answered, (double) haproxyCpuMs / answered, each);
    }
}
