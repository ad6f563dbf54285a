package io.rc10k.broker.fuzz;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * What a fuzz run did, for its summary: tries, outcome kinds (overall and by how the partner ended),
 * where the plans came from, how they were cut, connections reused, faults by key.
 *
 * <p>Not thread-safe: the run's thread only.</p>
 */
final class FuzzStats {
    private final long seed;
    private final long startNanos = System.nanoTime();
    private final Map<String, Integer> kinds = new TreeMap<>();
    private final Map<String, Integer> byEnding = new TreeMap<>();
    private final Map<String, Integer> origins = new TreeMap<>();
    private final Map<String, Integer> faults = new TreeMap<>();
    private final Map<String, Integer> reasons = new TreeMap<>();
    private int tries;
    private long bytes;
    private long writes;
    private int paused;
    private int reused;
    private int largest;
    private long malformedWarnings;

    FuzzStats(long seed) {
        this.seed = seed;
    }

    void record(Http1Fuzzer.Result result) {
        tries++;
        ResponsePlan plan = result.plan();
        bytes += plan.bytes().length;
        writes += plan.writes().length;
        largest = Math.max(largest, plan.bytes().length);
        if (plan.paused()) {
            paused++;
        }
        if (result.reused()) {
            reused++;
        }
        String kind = result.outcome() == null ? "none" : result.outcome().kind().name();
        kinds.merge(kind, 1, Integer::sum);
        byEnding.merge(plan.ending() + " " + kind, 1, Integer::sum);
        String origin = plan.origin();
        int slash = origin.indexOf('/');
        String family = slash < 0 ? origin : origin.substring(0, slash) + (origin.contains("mut") ? "+mutations" : "");
        origins.merge(family, 1, Integer::sum);
        if (result.expected() != null) {
            // What decided the expected outcome, without the numbers that make each one unique.
            String why = result.expected().why().replaceAll("(Illegal character [A-Z]+).*", "$1")
                    .replaceAll("(the parser threw [^:]+).*", "$1").replaceAll("[0-9]+", "N");
            reasons.merge(why, 1, Integer::sum);
        }
    }

    void fault(String key) {
        faults.merge(key, 1, Integer::sum);
    }

    void malformedWarnings(long count) {
        this.malformedWarnings = count;
    }

    String summary() {
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos);
        StringBuilder text = new StringBuilder()
                .append("fuzz summary: seed ").append(seed).append(", ").append(tries).append(" tries in ")
                .append(seconds).append(" s, ").append(bytes)
                .append(" bytes in ").append(writes)
                .append(" writes (largest ").append(largest).append("), ").append(paused).append(" with pauses, ")
                .append(reused).append(" on a reused connection, ").append(malformedWarnings)
                .append(" MALFORMED warnings logged\n")
                .append("  outcomes: ").append(kinds).append('\n')
                .append("  by ending: ").append(byEnding).append('\n')
                .append("  plans: ").append(origins).append('\n')
                .append("  expected because: ").append(reasons).append('\n')
                .append("  faults: ").append(faults.isEmpty() ? "none" : faults.toString());
        return text.toString();
    }
}
