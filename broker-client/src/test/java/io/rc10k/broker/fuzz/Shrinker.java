package io.rc10k.broker.fuzz;

import java.util.concurrent.TimeUnit;

/**
 * Makes a failing plan smaller while it still fails the same way (the same {@link Http1Fuzzer.Failure}
 * key): first one write with no pause, then ever smaller cuts of bytes removed (delta debugging), within
 * a budget of tries and time. Every candidate is a real try against the same client and partner, so
 * shrinking stops when a candidate leaves the client unusable ({@link Http1Fuzzer#breaksClient}).
 *
 * <pre>{@code
 * Http1Fuzzer.Result smallest = new Shrinker(fuzzer, 300, Duration.ofMinutes(2)).shrink(failed);
 * }</pre>
 */
public final class Shrinker {
    private final Http1Fuzzer fuzzer;
    private final int maxTries;
    private final long maxNanos;
    private int tries;
    private boolean broken;

    public Shrinker(Http1Fuzzer fuzzer, int maxTries, long maxSeconds) {
        this.fuzzer = fuzzer;
        this.maxTries = maxTries;
        this.maxNanos = TimeUnit.SECONDS.toNanos(maxSeconds);
    }

    /** The smallest failing try found; {@code failed} itself when nothing smaller fails alike. */
    public Http1Fuzzer.Result shrink(Http1Fuzzer.Result failed) throws InterruptedException {
        long deadline = System.nanoTime() + maxNanos;
        String key = failed.failure().key();
        Http1Fuzzer.Result best = failed;
        if (best.plan().writes().length > 1 || best.plan().paused()) {
            Http1Fuzzer.Result simpler = attempt(best.plan().inOneWrite(), key);
            if (simpler != null) {
                best = simpler;
            }
        }
        if (broken) {
            return best;
        }
        for (int cut = Math.max(1, best.plan().bytes().length / 2); cut >= 1; cut = cut / 2) {
            boolean removed;
            do {
                removed = false;
                for (int from = 0; from + cut <= best.plan().bytes().length; from += cut) {
                    if (tries >= maxTries || System.nanoTime() > deadline || broken) {
                        return best;
                    }
                    Http1Fuzzer.Result smaller = attempt(best.plan().without(from, from + cut), key);
                    if (smaller != null) {
                        best = smaller;
                        removed = true;
                        from -= cut;
                    }
                }
            } while (removed && cut > 1);
            if (cut == 1) {
                break;
            }
        }
        return best;
    }

    public int tries() {
        return tries;
    }

    private Http1Fuzzer.Result attempt(ResponsePlan candidate, String key) throws InterruptedException {
        tries++;
        Http1Fuzzer.Result result = fuzzer.run(candidate);
        if (result.failure() != null && Http1Fuzzer.breaksClient(result.failure().key())) {
            broken = true; // the fault left the client unusable: no later candidate can tell anything
        }
        return result.failure() != null && result.failure().key().equals(key) ? result : null;
    }
}
