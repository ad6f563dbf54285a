package io.rc10k.experiments;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What the operating system lets the experiment's processes hold, read from {@code /proc} (Linux),
 * checked against what an experiment needs before it starts, with what to change when it falls short.
 * The server, the stubs and JMeter inherit the harness's limits.
 */
final class OsLimits {
    private OsLimits() {
    }

    /**
     * Prints one line per limit and returns the problems (empty when all is well).
     *
     * @param filesPerProcess sockets and files the busiest process holds at once
     * @param clientSockets   outgoing connections open at once over the whole experiment (each takes an ephemeral port)
     * @param threads         threads of all the experiment's processes at once
     */
    static List<String> check(long filesPerProcess, long clientSockets, long threads) {
        List<String> problems = new ArrayList<>();
        long files = limit("Max open files", 1);
        long filesHard = limit("Max open files", 2);
        report("open files per process", files, filesPerProcess, problems,
                "raise the soft limit with `ulimit -n " + Math.min(filesHard, filesPerProcess + 1_000)
                        + "` (hard limit " + filesHard + ") in the shell that runs the harness"
                        + (filesHard < filesPerProcess ? "; the hard limit is too low too: run fewer users, or the"
                                + " h2c configuration (configs/c6-h2c.json) that multiplexes partner calls" : ""));
        long[] range = ephemeralRange();
        long ports = range[1] - range[0] + 1;
        report("ephemeral ports (" + range[0] + "-" + range[1] + ")", ports, clientSockets, problems,
                "widen net.ipv4.ip_local_port_range (sysctl -w net.ipv4.ip_local_port_range=\"1024 65535\")");
        long tasks = Math.min(limit("Max processes", 1), read("/proc/sys/kernel/threads-max"));
        report("threads (ulimit -u, kernel.threads-max)", tasks, threads, problems,
                "raise `ulimit -u` or kernel.threads-max, or run fewer users in sync mode");
        long twReuse = read("/proc/sys/net/ipv4/tcp_tw_reuse");
        System.out.println("  tcp_tw_reuse = " + (twReuse < 0 ? "unknown" : twReuse)
                + (twReuse == 0 ? "  (closed connections hold their ports 60 s: keep runs short or set it to 2)" : ""));
        return problems;
    }

    private static void report(String what, long have, long need, List<String> problems, String fix) {
        boolean ok = have < 0 || have >= need;
        System.out.printf("  %-42s %,12d  need %,d  %s%n", what, have, need, ok ? "ok" : "TOO LOW");
        if (!ok) {
            problems.add(what + ": " + have + " < " + need + ": " + fix);
        }
    }

    /** A field of {@code /proc/self/limits} (1 = soft, 2 = hard); "unlimited" is Long.MAX_VALUE, -1 if unknown. */
    static long limit(String name, int which) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith(name)) {
                    String[] f = line.substring(name.length()).trim().split("\\s+");
                    return "unlimited".equals(f[which - 1]) ? Long.MAX_VALUE : Long.parseLong(f[which - 1]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux: unknown.
        }
        return -1;
    }

    static long[] ephemeralRange() {
        try {
            String[] f = firstLine("/proc/sys/net/ipv4/ip_local_port_range").trim().split("\\s+");
            return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])};
        } catch (IOException | RuntimeException e) {
            return new long[] {32768, 60999};
        }
    }

    /**
     * Read line by line: some kernels (seen in a sandbox here) report a size for {@code /proc/sys}
     * files that cuts {@code Files.readString} short.
     */
    private static String firstLine(String file) throws IOException {
        try (BufferedReader in = Files.newBufferedReader(Path.of(file))) {
            String line = in.readLine();
            if (line == null) {
                throw new IOException(file + " is empty");
            }
            return line;
        }
    }

    private static long read(String file) {
        try {
            return Long.parseLong(firstLine(file).trim());
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
