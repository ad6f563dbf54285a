package io.rc10k.mashup;

import io.rc10k.mashup.internal.observability.DashboardServlets;
import io.rc10k.mashup.internal.observability.Readiness;
import io.rc10k.mashup.internal.observability.SpanExport;
import io.rc10k.mashup.internal.observability.SpanExportSettings;
import io.rc10k.mashup.internal.routing.DefinitionsJson;
import io.rc10k.mashup.internal.wiring.MashupServlets;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.ServletRegistration;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executor;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mashup server as a web application ({@code mashup-server.war}), started by {@code web.xml}.
 * Definitions come from the context init-parameter {@code rc10k.definitions}, or the system property
 * of that name; bad definitions fail the deployment with every problem logged. Inside Jetty the
 * broker client runs on the container's own pool (context attribute
 * {@code org.eclipse.jetty.server.Executor}, as Jetty's proxy servlet does); elsewhere on a pool of
 * its own, which one log line says.
 *
 * <p>{@code /health/ready} (and {@code /health}) answer 200 once {@code contextInitialized} has
 * finished and 503 {@code draining} from the moment {@code contextDestroyed} begins;
 * {@code /health/live} answers 200 whenever the context serves.</p>
 *
 * <p>The live view ({@code /dashboard} and {@code /dashboard/data}) is mapped only when the setting
 * {@code rc10k.dashboard} is {@code true}: a WAR has no admin port, so the page would share the
 * application's port.</p>
 *
 * <p>Spans are exported as by the standalone jar when the environment asks for it ({@code OTEL_TRACES_EXPORTER},
 * {@code OTEL_EXPORTER_OTLP_ENDPOINT}, or the {@code otel.*} system properties of the OpenTelemetry SDK);
 * otherwise no OpenTelemetry class is loaded.</p>
 *
 * <p>The standalone jar's admission limit ({@code --max-inflight}) is not part of the WAR: a
 * deployed application relies on its container's limits.</p>
 */
public final class MashupWebApp implements ServletContextListener {
    public static final String DEFINITIONS = "rc10k.definitions";
    public static final String MODE = "rc10k.mode";
    /** {@code true} maps the live view at {@code /dashboard}; off by default, as a WAR has no admin port. */
    public static final String DASHBOARD = "rc10k.dashboard";
    public static final String CONTAINER_EXECUTOR = "org.eclipse.jetty.server.Executor";
    private static final Logger LOG = LoggerFactory.getLogger(MashupWebApp.class);

    private QueuedThreadPool ownPool;
    /** The span export, or null: none configured. */
    private SpanExport spans;
    /** The broker client and any call threads, in start order; empty until built. */
    private List<LifeCycle> lifeCycles = List.of();
    private final Readiness readiness = new Readiness();

    /** The container creates it, from the WAR's {@code web.xml}. */
    public MashupWebApp() {
    }

    @Override
    public void contextInitialized(ServletContextEvent event) {
        ServletContext context = event.getServletContext();
        String file = setting(context, DEFINITIONS);
        if (file == null) {
            throw new IllegalStateException("no mashup definitions: set the context init-parameter or system property "
                    + DEFINITIONS + " to a JSON definitions file (see docs/mashup-server.md)");
        }
        Definitions definitions;
        try {
            definitions = DefinitionsJson.load(Path.of(file));
        } catch (DefinitionException e) {
            LOG.error("{}: {}", file, e.getMessage());
            throw new IllegalStateException(file + ": " + e.getMessage(), e);
        }
        String modeText = setting(context, MODE);
        Mode mode = modeText == null ? Mode.ASYNC : Mode.parse(modeText);
        if (mode == Mode.VIRTUAL) {
            throw new IllegalStateException(MODE + "=virtual is for the standalone jar; a WAR runs async or sync");
        }
        String dashboardText = setting(context, DASHBOARD);
        if (dashboardText != null && !dashboardText.equals("true") && !dashboardText.equals("false")) {
            throw new IllegalStateException(DASHBOARD + "=" + dashboardText + " (accepted: true or false)");
        }
        boolean dashboard = "true".equals(dashboardText);

        Executor executor;
        if (context.getAttribute(CONTAINER_EXECUTOR) instanceof Executor containerPool) {
            executor = containerPool;
        } else {
            ownPool = new QueuedThreadPool(200, 8);
            ownPool.setName("rc10k-broker");
            executor = ownPool;
            LOG.info("no container executor (context attribute {}): the broker client runs on a pool of its own",
                    CONTAINER_EXECUTOR);
        }
        String pool = name(executor);
        // Spans as the standalone jar exports them, configured from the environment alone (OTEL_*, otel.*).
        spans = SpanExportSettings.on(null) ? new SpanExport(null, definitions) : null;
        MashupServlets.Parts parts = MashupServlets.parts(definitions, mode, executor, null, null, spans, readiness,
                pool, dashboard, 0);
        lifeCycles = parts.lifeCycles();
        try {
            if (ownPool != null) {
                ownPool.start();
            }
            if (spans != null) {
                spans.start();
            }
            for (LifeCycle part : lifeCycles) {
                part.start();
            }
        } catch (Exception e) {
            contextDestroyed(event);
            throw new IllegalStateException("mashup web application failed to start", e);
        }
        MashupServlets.mount((name, servlet, async, paths) -> {
            ServletRegistration.Dynamic registration = context.addServlet(name, servlet);
            if (async) {
                registration.setAsyncSupported(true);
            }
            registration.addMapping(paths);
        }, definitions, parts);
        LOG.info("mashup web application: {} mashups, {} partners, mode {}, executor {}",
                definitions.mashups().size(), definitions.partners().size(), mode.label(), pool);
        if (dashboard) {
            LOG.info("mashup web application: the live view is at {}{} ({}=true)", context.getContextPath(),
                    DashboardServlets.PAGE, DASHBOARD);
        }
        readiness.ready();
    }

    /** What {@code /health/ready} reports; for tests, since a stopping context no longer dispatches requests. */
    Readiness.State readiness() {
        return readiness.state();
    }

    private static String name(Object executor) {
        try {
            return String.valueOf(executor.getClass().getMethod("getName").invoke(executor));
        } catch (ReflectiveOperationException e) {
            return executor.toString();
        }
    }

    private static String setting(ServletContext context, String name) {
        String value = context.getInitParameter(name);
        if (value == null || value.isBlank()) {
            value = System.getProperty(name);
        }
        return value == null || value.isBlank() ? null : value.trim();
    }

    /** Stops each part on its own, so that one failing to stop does not leave the others running. */
    @Override
    public void contextDestroyed(ServletContextEvent event) {
        readiness.draining();
        for (int i = lifeCycles.size() - 1; i >= 0; i--) {
            stop(lifeCycles.get(i));
        }
        stop(spans);
        stop(ownPool);
    }

    private static void stop(LifeCycle part) {
        if (part == null) {
            return;
        }
        try {
            part.stop();
        } catch (Exception e) {
            LOG.warn("mashup web application: {} did not stop cleanly", part, e);
        }
    }
}
