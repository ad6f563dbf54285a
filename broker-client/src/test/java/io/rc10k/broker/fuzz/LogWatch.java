package io.rc10k.broker.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Watches {@code System.err} (where slf4j-simple writes) and the default uncaught-exception handler
 * while the fuzzer runs: a warning, an error or a stack trace that nobody expected is a fault that
 * escaped an exchange (a loop task that threw, a listener that failed). The one warning the broker
 * means to give for each malformed answer is counted and kept off the console: a run makes thousands.
 *
 * <pre>{@code
 * LogWatch watch = LogWatch.install();
 * ...
 * List<String> escaped = watch.takeUnexpected();
 * watch.close();
 * }</pre>
 *
 * <p>Threading: any thread writes; the lines are taken under the watch's lock.</p>
 */
public final class LogWatch implements AutoCloseable {
    /** RealExchange's warning for a MALFORMED outcome: expected, once per such call. */
    private static final String MALFORMED_WARNING = "ended malformed, the connection closed and the call not retried";
    /**
     * Jetty's own warning, from its HPACK decoder, whenever a header block holds an {@code :authority} it cannot
     * parse: on the thread that decodes (a client's, and the h2c reference's). Jetty logs it itself; the block is
     * refused all the same. Counted and kept off the console as the malformed warning is.
     */
    private static final String JETTY_BAD_AUTHORITY = "org.eclipse.jetty.util.HostPort - Bad Authority";

    private final PrintStream original;
    private final Thread.UncaughtExceptionHandler originalHandler;
    private final List<String> unexpected = new ArrayList<>();
    private final AtomicLong malformedWarnings = new AtomicLong();
    private final AtomicLong jettyWarnings = new AtomicLong();

    private LogWatch() {
        this.original = System.err;
        this.originalHandler = Thread.getDefaultUncaughtExceptionHandler();
    }

    public static LogWatch install() {
        LogWatch watch = new LogWatch();
        System.setErr(new PrintStream(watch.new Lines(), true, StandardCharsets.UTF_8));
        Thread.setDefaultUncaughtExceptionHandler((thread, failure) -> {
            watch.record("uncaught in " + thread.getName() + ": " + failure);
            failure.printStackTrace(watch.original);
        });
        return watch;
    }

    /** The unexpected lines since the last call. */
    public synchronized List<String> takeUnexpected() {
        List<String> lines = new ArrayList<>(unexpected);
        unexpected.clear();
        return lines;
    }

    public long malformedWarnings() {
        return malformedWarnings.get();
    }

    /** Jetty's warnings of an {@code :authority} its HPACK decoder could not parse. */
    public long jettyWarnings() {
        return jettyWarnings.get();
    }

    private synchronized void record(String line) {
        if (unexpected.size() < 200) {
            unexpected.add(line);
        }
    }

    private void line(String line) {
        if (line.contains(MALFORMED_WARNING)) {
            malformedWarnings.incrementAndGet();
            return;
        }
        if (line.contains(JETTY_BAD_AUTHORITY)) {
            jettyWarnings.incrementAndGet();
            return;
        }
        original.println(line);
        if (line.contains("WARN") || line.contains("ERROR") || line.contains("Exception") || line.contains("Error")
                || line.startsWith("\tat ")) {
            record(line);
        }
    }

    @Override
    public void close() {
        System.err.flush();
        System.setErr(original);
        Thread.setDefaultUncaughtExceptionHandler(originalHandler);
    }

    /** Splits what is written into lines. */
    private final class Lines extends OutputStream {
        private final ByteArrayOutputStream pending = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                line(pending.toString(StandardCharsets.UTF_8));
                pending.reset();
            } else {
                pending.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] bytes, int offset, int length) {
            for (int i = offset; i < offset + length; i++) {
                write(bytes[i]);
            }
        }
    }
}
