package io.rc10k.mashup.internal.wiring;

import io.rc10k.broker.BrokerClient;
import io.rc10k.harness.BuildVersion;
import io.rc10k.mashup.Definitions;
import io.rc10k.mashup.Mode;
import io.rc10k.mashup.internal.modes.AsyncMashupServlet;
import io.rc10k.mashup.internal.modes.BlockingMashupServlet;
import io.rc10k.mashup.internal.modes.CallThreads;
import io.rc10k.mashup.internal.observability.DashboardData;
import io.rc10k.mashup.internal.observability.DashboardServlets;
import io.rc10k.mashup.internal.observability.MashupMetrics;
import io.rc10k.mashup.internal.observability.Readiness;
import io.rc10k.mashup.internal.observability.SmallServlets;
import io.rc10k.mashup.internal.observability.SpanExport;
import io.rc10k.mashup.internal.routing.MashupRouter;
import jakarta.servlet.http.HttpServlet;
import java.util.List;
import java.util.concurrent.Executor;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * A mashup server's parts and servlets, wired once for both ways it runs — the standalone jar
 * ({@code MashupServer}, on a {@code ServletContextHandler}) and the WAR ({@code MashupWebApp}, on the
 * container's {@code ServletContext}). {@link #parts} builds the broker client on the given pool, the
 * meters and a blocking mode's call threads; {@link #mount} puts the mashups at {@code /} (async or
 * blocking as the mode says), {@code /metrics}, the health views and, when asked for, the live view.
 * Where each is mounted and who starts the parts is the caller's; what they are is decided here only.
 *
 * <pre>{@code
 * MashupServlets.Parts parts = MashupServlets.parts(definitions, mode, pool, scheduler, buffers, null,
 *         readiness, "mashup", true, 0);
 * parts.lifeCycles().forEach(server::addBean);          // or start them, as a WAR does
 * MashupServlets.mount(mount, definitions, parts);
 * }</pre>
 */
public final class MashupServlets {
    /** Where servlets go: a servlet under a name, at paths, async-capable or not. */
    public interface Mount {
        void servlet(String name, HttpServlet servlet, boolean asyncSupported, String... paths);
    }

    /**
     * What the servlets share.
     *
     * @param mode        how mashups wait for their partners
     * @param broker      the started broker client
     * @param metrics     the server's meters
     * @param spans       span export, or null when off
     * @param callThreads the threads of blocking calls (sync and virtual modes), or null in async mode
     * @param readiness   what the health views report
     * @param executor    the pool's name, as the health views show it
     * @param dashboard   mount the live view ({@code /dashboard}, {@code /dashboard/data})
     */
    public record Parts(Mode mode, BrokerClient broker, MashupMetrics metrics, SpanExport spans,
            CallThreads callThreads, Readiness readiness, String executor, boolean dashboard) {
        /** What must be started before the servlets serve, in order (stop in reverse): the broker, any call threads. */
        public List<LifeCycle> lifeCycles() {
            return callThreads == null ? List.of(broker) : List.of(broker, callThreads);
        }
    }

    private MashupServlets() {
    }

    /**
     * Builds, not started, the parts of a server over {@code definitions}: the broker client on {@code pool}
     * (with the server's {@code scheduler} and {@code buffers}, or null for the client's own), the meters, and
     * the call threads of a blocking mode.
     *
     * @param spans        the span export, or null for none
     * @param executorName the pool's name, as the health views show it
     * @param maxBufferedBytes the broker's budget of partner bytes in transit, or 0 for its default
     */
    public static Parts parts(Definitions definitions, Mode mode, Executor pool, Scheduler scheduler,
            ByteBufferPool buffers, SpanExport spans, Readiness readiness, String executorName, boolean dashboard,
            long maxBufferedBytes) {
        BrokerClient.Builder builder = BrokerClient.builder().partners(definitions.partners().values()).executor(pool);
        if (maxBufferedBytes > 0) {
            builder.maxBufferedBytes(maxBufferedBytes);
        }
        if (scheduler != null) {
            builder.scheduler(scheduler);
        }
        if (buffers != null) {
            builder.byteBufferPool(buffers);
        }
        BrokerClient broker = builder.build();
        return new Parts(mode, broker, new MashupMetrics(pool, broker), spans, CallThreads.of(mode), readiness,
                executorName, dashboard);
    }

    /** Mounts every servlet of a server over {@code definitions}. */
    public static void mount(Mount mount, Definitions definitions, Parts parts) {
        // A server that records spans lets its sampler set the flags its partners receive.
        MashupRouter router = new MashupRouter(definitions, parts.spans());
        HttpServlet mashups = parts.mode().blocks()
                ? new BlockingMashupServlet(router, parts.broker(), parts.metrics(), parts.callThreads(), parts.spans())
                : new AsyncMashupServlet(router, parts.broker(), parts.metrics(), parts.spans());
        mount.servlet("mashups", mashups, !parts.mode().blocks(), "/");
        mount.servlet("metrics", new SmallServlets.Metrics(parts.metrics()), false, "/metrics");
        if (parts.dashboard()) {
            mount.servlet("dashboard", new DashboardServlets.Page(), false, DashboardServlets.PAGE);
            mount.servlet("dashboard-data", new DashboardServlets.Data(new DashboardData(parts.metrics(),
                    parts.mode().label())), false, DashboardServlets.DATA);
        }
        String mode = parts.mode().label();
        String version = BuildVersion.version();
        mount.servlet("health", new SmallServlets.Health(parts.readiness(), false, mode, parts.executor(), version),
                false, SmallServlets.HEALTH, SmallServlets.READY);
        mount.servlet("health-live", new SmallServlets.Health(parts.readiness(), true, mode, parts.executor(), version),
                false, SmallServlets.LIVE);
    }
}
