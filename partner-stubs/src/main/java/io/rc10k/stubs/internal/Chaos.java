package io.rc10k.stubs.internal;

import io.rc10k.stubs.Misbehaviour;
import java.util.List;
import java.util.Random;

/**
 * Chaos mode's draw: with probability {@code p} a misbehaviour picked uniformly from {@code among},
 * otherwise none. Thread-safe: draws are serialized, so one seed gives one sequence of decisions
 * whatever threads ask — the n-th request to be drawn for always gets the same answer.
 */
final class Chaos {
    private final double probability;
    private final List<Misbehaviour> among;
    private final Random random;

    Chaos(double probability, long seed, List<Misbehaviour> among) {
        if (among.isEmpty()) {
            throw new IllegalArgumentException("chaos: no misbehaviour to choose from");
        }
        this.probability = probability;
        this.among = List.copyOf(among);
        this.random = new Random(seed);
    }

    /** The misbehaviour for the next request, or null: answer it correctly. */
    synchronized Misbehaviour draw() {
        if (random.nextDouble() >= probability) {
            return null;
        }
        return among.get(random.nextInt(among.size()));
    }
}
