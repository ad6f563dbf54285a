package io.rc10k.mashup.internal.wiring;

import org.slf4j.Logger;
import sun.misc.Signal;

/**
 * Keeps SIGHUP from ending the standalone server. A JVM ends on SIGHUP as on SIGTERM, with exit status 129, and
 * under systemd {@code Restart=on-failure} then starts it again: the requests in flight are cut off for nothing.
 * The server reloads nothing — definitions and options are read once, at start — so a hang-up (a terminal that
 * closed, a {@code kill -HUP} from habit or from a log rotator) is logged and otherwise ignored. SIGTERM and
 * Ctrl-C still stop it gracefully.
 *
 * <pre>{@code
 * HangUp.ignore(log);   // before the server starts
 * }</pre>
 *
 * <p>{@link Signal} is the only way for Java code to handle a signal. It lives in the module
 * {@code jdk.unsupported}, which every JDK and JRE image carries and {@code --release 17} compiles against;
 * javac may warn that it is internal API. The handler runs on a thread the JVM starts for each signal.</p>
 */
public final class HangUp {
    private HangUp() {
    }

    /**
     * From now on SIGHUP writes one WARN line to {@code log} and does nothing else. Returns false, after a DEBUG
     * line, where there is no SIGHUP to handle (Windows) or the JVM keeps it for itself ({@code -Xrs}).
     */
    public static boolean ignore(Logger log) {
        try {
            Signal.handle(new Signal("HUP"), signal -> log.warn("SIGHUP ignored: the server reloads nothing and keeps "
                    + "running; to apply new definitions or options, restart it (SIGTERM stops it gracefully)"));
            return true;
        } catch (IllegalArgumentException e) {
            log.debug("SIGHUP left to the JVM: {}", e.getMessage());
            return false;
        }
    }
}
