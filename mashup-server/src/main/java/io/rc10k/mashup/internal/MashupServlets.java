package io.rc10k.mashup.internal;

import io.rc10k.broker.BrokerClient;
import io.rc10k.mashup.Definitions;
import io.rc10k.mashup.Mode;
import jakarta.servlet.http.HttpServlet;

/**
 * The servlets of a mashup server, wired once for both ways it runs — the standalone jar
 * ({@code MashupServer}, on a {@code ServletContextHandler}) and the WAR ({@code MashupWebApp}, on the
 * container's {@code ServletContext}): the mashups at {@code /} (async or blocking as the mode says),
 * {@code /metrics}, the health views and, when asked for, the live view. Where each is mounted is the
 * caller's ({@link Mount}); what is mounted, and how, is decided here only.
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
    }

    private MashupServlets() {
    }

    /** Mounts every servlet of a server over {@code definitions}. */
    public static void mount(Mount mount, Definitions definitions, Parts parts) {
        // A server that records spans starts its traces sampled, so that its partners may record theirs.
        MashupRouter router = new MashupRouter(definitions, parts.spans() != null);
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
        mount.servlet("health", new SmallServlets.Health(parts.readiness(), false, mode, parts.executor()), false,
                SmallServlets.HEALTH, SmallServlets.READY);
        mount.servlet("health-live", new SmallServlets.Health(parts.readiness(), true, mode, parts.executor()), false,
                SmallServlets.LIVE);
    }
}
