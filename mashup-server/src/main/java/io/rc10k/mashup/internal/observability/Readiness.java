package io.rc10k.mashup.internal.observability;

import java.util.Locale;
import org.eclipse.jetty.util.component.LifeCycle;

/**
 * Whether the server should be sent traffic, as {@code GET /health/ready} reports it.
 *
 * <pre>{@code
 * Readiness readiness = new Readiness();
 * server.addEventListener(readiness);   // standalone: follows the Server's life cycle
 * readiness.ready();                    // WAR: at the end of contextInitialized
 * }</pre>
 *
 * <p>{@link State#STARTING} until the server has started (definitions loaded, pool, broker and
 * connectors started), {@link State#READY} then, {@link State#DRAINING} from the moment a stop
 * begins — while requests already admitted are still being answered. Thread-safe: one volatile
 * field, written by the thread that starts or stops the server, read by probes.</p>
 */
public final class Readiness implements LifeCycle.Listener {
    /** The states, in the order a server goes through them. */
    public enum State {
        STARTING("the server has not finished starting"),
        READY("the server serves mashups"),
        DRAINING("the server is stopping: requests in flight are being answered, new mashup requests are refused");

        private final String detail;

        State(String detail) {
            this.detail = detail;
        }

        /** {@code starting}, {@code ready} or {@code draining}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        public String detail() {
            return detail;
        }
    }

    private volatile State state = State.STARTING;

    public State state() {
        return state;
    }

    public boolean isReady() {
        return state == State.READY;
    }

    public void ready() {
        state = State.READY;
    }

    public void draining() {
        state = State.DRAINING;
    }

    @Override
    public void lifeCycleStarting(LifeCycle event) {
        state = State.STARTING;
    }

    /** Fired once every bean and connector of the server has started. */
    @Override
    public void lifeCycleStarted(LifeCycle event) {
        ready();
    }

    /** Fired before the graceful stop begins, so probes see it while admitted requests still run. */
    @Override
    public void lifeCycleStopping(LifeCycle event) {
        draining();
    }
}
