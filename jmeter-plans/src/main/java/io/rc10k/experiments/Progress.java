package io.rc10k.experiments;

import java.util.concurrent.TimeUnit;

/** "point i of n, elapsed, about … remaining", the estimate scaled by how long points took so far. */
final class Progress {
    private final int total;
    private final long plannedSecondsPerPoint;
    private final long startNanos = System.nanoTime();
    private int done;

    Progress(int total, long plannedSecondsPerPoint) {
        this.total = total;
        this.plannedSecondsPerPoint = plannedSecondsPerPoint;
    }

    void begin(String what) {
        long elapsed = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos);
        long perPoint = done == 0 ? plannedSecondsPerPoint : elapsed / done;
        System.out.printf("%n== point %d of %d: %s — elapsed %s, about %s remaining%n", done + 1, total, what,
                clock(elapsed), clock(perPoint * (total - done)));
    }

    void end() {
        done++;
    }

    static String clock(long seconds) {
        return String.format("%d:%02d", seconds / 60, seconds % 60);
    }
}
