package io.rc10k.mashup;

import io.rc10k.mashup.internal.admission.BlockingRequestLimit;
import io.rc10k.mashup.internal.modes.CallThreads;
import java.util.Locale;
import org.eclipse.jetty.util.VirtualThreads;

/** How the server waits for partners; definitions, templates, composition and metrics are the same in all three. */
public enum Mode {
    /** {@code startAsync()} and the broker's FanOut: the inbound request holds no thread while it waits (Eq. 2). */
    ASYNC,
    /** A blocking servlet; each outbound call blocks a platform thread of its own (Eq. 1). */
    SYNC,
    /** The blocking code, with servlet dispatches and outbound calls on virtual threads (JDK 21 or newer). */
    VIRTUAL;

    /** The servlet blocks its thread until the parts arrive (sync, virtual), rather than suspending (async). */
    public boolean blocks() {
        return this != ASYNC;
    }

    /**
     * Throws {@link IllegalArgumentException} saying why when this JVM cannot run the mode (virtual
     * threads need a JDK 21 or newer).
     */
    public void requireRunnable() {
        if (this == VIRTUAL && !VirtualThreads.areSupported()) {
            throw new IllegalArgumentException("--mode virtual needs a JDK 21 or newer (this is "
                    + Runtime.version() + "); use --mode async or sync, or run on a newer JDK");
        }
    }

    /** The threads a blocking mode runs its outbound calls on (not started); null for async, which has none. */
    public CallThreads newCallThreads() {
        return blocks() ? new CallThreads(this == VIRTUAL) : null;
    }

    /**
     * Sync mode's cap: how many mashup requests may block at once on a pool of {@code maxThreads} of which
     * {@code reservedThreads} are held for good by acceptors, selectors and the broker's loops. The rest wait
     * suspended, holding no thread; so sync throughput follows min(N, this) / S (the cap law).
     */
    public static int blockingConcurrency(int maxThreads, int reservedThreads) {
        return BlockingRequestLimit.concurrency(maxThreads, reservedThreads);
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Mode parse(String text) {
        for (Mode mode : values()) {
            if (mode.label().equals(text)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("--mode: \"" + text + "\" (accepted: async, sync, virtual)");
    }
}
