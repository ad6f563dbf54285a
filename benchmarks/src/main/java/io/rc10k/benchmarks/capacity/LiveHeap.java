package io.rc10k.benchmarks.capacity;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A mashup server's live heap, sampled from outside after a full GC ({@code jcmd <pid> GC.run}, with the
 * {@code jcmd} beside the server's {@code java}): the {@code G1 Old Gen} pool of its {@code /metrics} (a G1 full
 * GC leaves every live object in old regions, and what the scrape itself allocates goes to eden), {@code jcmd
 * GC.heap_info}'s used heap beside it as a cross-check (it includes eden), and its direct buffers (off heap).
 *
 * <pre>{@code
 * LiveHeap idle = LiveHeap.sample(java, server.pid(), counts);
 * }</pre>
 */
public record LiveHeap(long liveBytes, long heapInfoUsedBytes, long directBytes) {
    private static final Pattern HEAP_INFO_USED = Pattern.compile("heap\\s+total.*?used (\\d+)K");
    private static final String OLD_GEN = "jvm_memory_used_bytes{area=\"heap\",id=\"G1 Old Gen\"}";
    private static final String DIRECT = "jvm_buffer_memory_used_bytes{id=\"direct\"}";

    /** A full GC in the server of {@code pid}, then the sample; the server must run G1 (the default GC). */
    static LiveHeap sample(String java, long pid, ServerCounts counts) throws Exception {
        long start = System.nanoTime();
        jcmd(java, pid, "GC.run");
        long gcMillis = (System.nanoTime() - start) / 1_000_000;
        Map<String, Double> m = counts.scrape();
        String heapInfo = jcmd(java, pid, "GC.heap_info");
        Double oldGen = m.get(OLD_GEN);
        Matcher used = HEAP_INFO_USED.matcher(heapInfo);
        if (oldGen == null || !used.find()) {
            throw new IllegalStateException("the server does not run G1 (the default GC): no " + OLD_GEN
                    + " in /metrics or no used heap in GC.heap_info:\n" + heapInfo);
        }
        System.out.println("full GC (jcmd GC.run) took " + gcMillis + " ms");
        return new LiveHeap(oldGen.longValue(), Long.parseLong(used.group(1)) * 1024,
                m.getOrDefault(DIRECT, 0.0).longValue());
    }

    /** {@code jcmd pid command} with the {@code jcmd} beside {@code java}; its output. */
    static String jcmd(String java, long pid, String command) throws IOException, InterruptedException {
        Path javaPath = Path.of(java);
        String jcmd = javaPath.getParent() == null ? "jcmd" : javaPath.resolveSibling("jcmd").toString();
        Process process = new ProcessBuilder(jcmd, Long.toString(pid), command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException(jcmd + " " + pid + " " + command + " failed: " + out);
        }
        return out;
    }
}
