package io.rc10k.mashup;

import java.util.Locale;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/** How the server waits for partners; definitions, templates, composition and metrics are the same in all three. */
public enum Mode {
    /** {@code startAsync()} and the broker's FanOut: the inbound request holds no thread while it waits (Eq. 2). */
    ASYNC,
    /** A blocking servlet; each outbound call blocks a platform thread of its own (Eq. 1). */
    SYNC {
        @Override
        public boolean capsBlocking() {
            return true;
        }

        /** Requests that wait for a thread are admitted too: a stop waits for them as well. */
        @Override
        public long maxWaitMillis(long longestDeadlineMillis) {
            return SYNC_MAX_WAIT_MILLIS + longestDeadlineMillis;
        }
    },
    /** The blocking code, with servlet dispatches and outbound calls on virtual threads (JDK 21 or newer). */
    VIRTUAL {
        @Override
        void configure(QueuedThreadPool pool) {
            pool.setVirtualThreadsExecutor(VirtualThreads.getNamedVirtualThreadsExecutor(pool.getName() + "-virtual-"));
        }
    };

    /** Sync mode: how long a request may wait for a thread, beyond the longest mashup deadline, before a 503. */
    public static final long SYNC_MAX_WAIT_MILLIS = 30_000;

    /** Gives the server's pool what this mode dispatches on: virtual mode adds a virtual-thread executor. */
    void configure(QueuedThreadPool pool) {
    }

    /**
     * Whether the standalone server caps how many mashup requests block at once (sync mode: see
     * {@link #blockingConcurrency}); the rest wait, holding no thread, for at most {@link #maxWaitMillis}.
     * (A flag, not a Jetty handler: this class is loaded by the WAR too, which sees no Jetty server class.)
     */
    public boolean capsBlocking() {
        return false;
    }

    /** How long an admitted request may wait for a thread before it runs: 0 but in sync mode. */
    public long maxWaitMillis(long longestDeadlineMillis) {
        return 0;
    }

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

    /**
     * Sync mode's cap: how many mashup requests may block at once on a pool of {@code maxThreads} of which
     * {@code reservedThreads} are held for good by acceptors, selectors and the broker's loops. The rest wait
     * suspended, holding no thread; so sync throughput follows min(N, this) / S (the cap law).
     */
    public static int blockingConcurrency(int maxThreads, int reservedThreads) {
        // The pool less what is held for good, less room for the client's I/O: an eighth of the pool, at least 4.
        return Math.max(1, maxThreads - reservedThreads - Math.max(4, maxThreads / 8));
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
