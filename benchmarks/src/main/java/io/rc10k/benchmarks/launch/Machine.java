package io.rc10k.benchmarks.launch;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.UnixOperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** The machine a run measures on, as every results page names it beside its figures. */
public final class Machine {
    private Machine() {
    }

    /** {@code 2 cores, 7.8 GiB, Linux 6.1.0, open-file limit 1048576, this JVM 17.0.2+8}. */
    public static String describe() {
        long memory = ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
        return String.format(Locale.ROOT, "%d cores, %.1f GiB, %s %s, open-file limit %d, this JVM %s",
                Runtime.getRuntime().availableProcessors(), memory / (double) (1L << 30), System.getProperty("os.name"),
                System.getProperty("os.version"), openFileLimit(), Runtime.version());
    }

    /** The open-file limit of this JVM, which the servers it starts inherit; -1 where the OS does not tell. */
    public static long openFileLimit() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean os
                ? os.getMaxFileDescriptorCount() : -1;
    }

    /**
     * Fails with {@code why} and the limit to raise it to, when the open-file limit is known and below {@code need}.
     *
     * @param why what needs the files, e.g. {@code "--concurrent 2000 makes the server hold 6000 sockets"}
     */
    public static void requireOpenFiles(long need, String why) {
        long have = openFileLimit();
        if (have >= 0 && have < need) {
            throw new IllegalStateException(why + ", but the open-file limit is " + have + "; raise it (ulimit -n "
                    + need + " or more)");
        }
    }

    /** The 1, 5 and 15 minute load averages from {@code /proc/loadavg}: the machine is shared. */
    public static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return fields[0] + ", " + fields[1] + ", " + fields[2];
        } catch (IOException | RuntimeException e) {
            return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean()
                    .getSystemLoadAverage());
        }
    }
}
