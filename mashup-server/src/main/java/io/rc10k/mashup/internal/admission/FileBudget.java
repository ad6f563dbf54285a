package io.rc10k.mashup.internal.admission;

import com.sun.management.UnixOperatingSystemMXBean;
import io.rc10k.broker.Partner;
import java.lang.management.ManagementFactory;
import java.util.Collection;

/**
 * How many sockets the server may hold before the process's open-file limit (its hard limit, which
 * the process cannot raise) turns new connections into "too many open files". The budget is the limit
 * less a reserve for the JVM's own files; the partner pools may take up to what they are
 * configured for (doubled when the demo's partner stubs share the process, since each outbound
 * connection is then also an inbound one), but never more than three quarters; inbound
 * connections get the rest.
 *
 * @param maxFiles            the process's open-file limit
 * @param outboundConnections sockets set aside for partner connections
 * @param inboundConnections  the inbound connection limit derived from what is left
 */
public record FileBudget(long maxFiles, long outboundConnections, int inboundConnections) {
    /** Jars, logs, selectors, epoll and pipes: what the JVM and Jetty hold besides sockets. */
    public static final int RESERVE = 256;
    public static final int MIN_INBOUND = 64;

    public static FileBudget of(long maxFiles, Collection<Partner> partners, boolean stubsInProcess) {
        long available = Math.max(0, maxFiles - RESERVE);
        long configured = partners.stream().mapToLong(Partner::maxConnections).sum() * (stubsInProcess ? 2 : 1);
        long outbound = Math.min(configured, available * 3 / 4);
        int inbound = (int) Math.max(MIN_INBOUND, Math.min(Integer.MAX_VALUE, available - outbound));
        return new FileBudget(maxFiles, outbound, inbound);
    }

    /** This process's open-file limit, or a large number where the JVM cannot tell. */
    public static long processMaxFiles() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean os) {
            return os.getMaxFileDescriptorCount();
        }
        return 1_000_000;
    }
}
