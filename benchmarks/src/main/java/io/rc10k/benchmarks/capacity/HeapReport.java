package io.rc10k.benchmarks.capacity;

import io.rc10k.benchmarks.launch.Finish;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What one {@link HeapPerMashup} run saw. Heap figures are live bytes after a full GC ({@link LiveHeap}), idle and
 * with all N in flight ({@code loaded}); {@code rampMillis} is the time from the first connect to the server holding
 * all N; {@code notMeasured} says why there is no loaded sample (null when there is one); {@code answers} counts
 * responses by status.
 */
public record HeapReport(HeapPerMashup.Settings settings, String machine, String serverJdk, LiveHeap idle,
        LiveHeap loaded, long inboundAtSample, long outboundAtSample, long partnerAtSample, long rampMillis,
        String notMeasured, int ok, int failed, String firstFailure, Map<String, Integer> answers)
        implements Finish.Result {
    /** The target: heap per in-flight mashup at C = 6. */
    public static final long TARGET_BYTES = 32 * 1024;

    public boolean measured() {
        return notMeasured == null;
    }

    public double bytesPerMashup() {
        return (double) (loaded.liveBytes() - idle.liveBytes()) / inboundAtSample;
    }

    @Override
    public boolean passed() {
        return measured() && ok == settings.inflight() && failed == 0;
    }

    @Override
    public String table() {
        String answered = answers.entrySet().stream().map(e -> String.format(Locale.ROOT, "%,d × %s", e.getValue(),
                e.getKey())).collect(Collectors.joining(", "));
        int unanswered = failed - answers.entrySet().stream().filter(e -> !e.getKey().equals("200"))
                .mapToInt(Map.Entry::getValue).sum();
        if (unanswered > 0) {
            answered += String.format(Locale.ROOT, ", %,d without an answer", unanswered);
        }
        StringBuilder out = new StringBuilder();
        out.append("| N | C | mode | idle heap MiB | loaded heap MiB | in flight at the sample (in / out / at the "
                + "stubs) | KiB per in-flight mashup | answers |\n|---|---|---|---|---|---|---|---|\n");
        out.append(String.format(Locale.ROOT, "| %,d | %d | %s | %.1f | %s | %s | %s | %s |%n",
                settings.inflight(), settings.calls(), settings.mode(), mib(idle.liveBytes()),
                measured() ? String.format(Locale.ROOT, "%.1f", mib(loaded.liveBytes())) : "—",
                measured() ? String.format(Locale.ROOT, "%,d / %,d / %,d", inboundAtSample, outboundAtSample,
                        partnerAtSample) : "—",
                measured() ? String.format(Locale.ROOT, "%.1f", bytesPerMashup() / 1024) : "—", answered));
        if (measured()) {
            out.append(String.format(Locale.ROOT, "target ≤ %d KiB per in-flight mashup: %s%n", TARGET_BYTES / 1024,
                    bytesPerMashup() <= TARGET_BYTES ? "met" : "NOT met"));
            out.append(String.format(Locale.ROOT, "cross-check, jcmd GC.heap_info used (eden included): idle %.1f MiB, "
                            + "loaded %.1f MiB -> %.1f KiB per in-flight mashup%n", mib(idle.heapInfoUsedBytes()),
                    mib(loaded.heapInfoUsedBytes()),
                    (loaded.heapInfoUsedBytes() - idle.heapInfoUsedBytes()) / 1024.0 / inboundAtSample));
            out.append(String.format(Locale.ROOT, "direct buffers (off heap, not counted above): idle %.1f MiB, "
                    + "loaded %.1f MiB%n", mib(idle.directBytes()), mib(loaded.directBytes())));
            out.append(String.format(Locale.ROOT, "all %,d in flight %,d ms after the first connect (partner delay %,d ms, "
                    + "deadline %,d ms)%n", settings.inflight(), rampMillis, settings.delayMillis(),
                    settings.deadlineMillis()));
        } else {
            out.append("no sample: ").append(notMeasured).append('\n');
        }
        if (firstFailure != null) {
            out.append("first failure: ").append(firstFailure).append('\n');
        }
        out.append("machine: ").append(machine).append("; mashup server on ").append(serverJdk).append('\n');
        return out.toString();
    }

    private static double mib(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }
}
