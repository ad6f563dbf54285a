package io.rc10k.mashup;

import io.rc10k.harness.BuildVersion;
import io.rc10k.mashup.demo.Demo;
import io.rc10k.mashup.internal.observability.DashboardServlets;
import io.rc10k.mashup.internal.observability.Logging;
import io.rc10k.mashup.internal.observability.MashupMetrics;
import io.rc10k.mashup.internal.routing.DefinitionsJson;
import io.rc10k.mashup.internal.wiring.AdminConnector;
import io.rc10k.mashup.internal.wiring.HangUp;
import io.rc10k.mashup.internal.wiring.Probe;
import io.rc10k.mashup.internal.wiring.ServerArguments;
import java.io.IOException;
import java.io.PrintStream;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.component.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone jar's command line: options, definitions (a file, or the embedded demo), the
 * banner, and the exit status. The server itself is {@link MashupServer#createServer}.
 *
 * <pre>
 * java -jar mashup-server.jar                                  # the embedded demo on :8080
 * java -jar mashup-server.jar --config mashups.json --mode sync
 * java -jar mashup-server.jar --check mashups.json
 * </pre>
 */
public final class Main {
    private Main() {
    }

    /**
     * Runs the server from the command line. Exit status: 0 for {@code --help}, {@code --version} or a good
     * {@code --check}; 143 (128 + SIGTERM, as for any JVM) after a graceful stop by SIGTERM or Ctrl-C (130);
     * 1 when it cannot start (e.g. the port is in use); 2 for a bad command line, bad definitions or a bad
     * {@code --log-config} file, every problem printed. {@code --probe URL} starts no server: 0 when URL
     * answers 200, else 1.
     */
    public static void main(String[] args) throws Exception {
        // Logging first, so that the server's first lines already obey it. A bad command line is run's to report.
        ServerArguments command = null;
        try {
            command = ServerArguments.parse(args);
        } catch (IllegalArgumentException e) {
            // reported by run
        }
        if (command != null && !command.help() && !command.version() && command.probe() == null) {
            try {
                Logging.configure(command.logConfig(), command.logLevels());
            } catch (IllegalArgumentException e) {
                System.err.println("mashup-server: " + e.getMessage());
                System.exit(2);
            }
        }
        // Logging queues its lines (logback.xml): each exit writes them first.
        int status = run(args, System.out, System.err, Logging::stop);
        if (status >= 0) {
            Logging.stop();
            System.exit(status);
        }
    }

    /** Returns the exit status, or -1 when a server was started and runs until stopped. */
    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        return run(args, out, err, () -> { });
    }

    /** As above; {@code afterStop} runs once a server it started has stopped, after its last log line. */
    private static int run(String[] args, PrintStream out, PrintStream err, Runnable afterStop) throws Exception {
        ServerArguments command;
        try {
            command = ServerArguments.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("mashup-server: " + e.getMessage());
            return 2;
        }
        if (command.help()) {
            out.println(ServerArguments.USAGE);
            return 0;
        }
        if (command.version()) {
            out.println(BuildVersion.line(ServerArguments.NAME));
            return 0;
        }
        if (command.probe() != null) {
            return Probe.get(command.probe(), out, err);
        }
        if (command.check() != null) {
            try {
                Definitions definitions = DefinitionsJson.load(command.check());
                out.println(command.check() + ": OK (" + definitions.partners().size() + " partners, "
                        + definitions.mashups().size() + " mashups)");
                return 0;
            } catch (DefinitionException e) {
                err.println("mashup-server: " + command.check() + ": " + e.getMessage());
                return 2;
            }
        }
        Demo demo = null;
        Definitions definitions;
        try {
            if (command.config() != null) {
                definitions = DefinitionsJson.load(command.config());
            } else {
                demo = Demo.start();
                definitions = demo.definitions();
            }
        } catch (DefinitionException e) {
            err.println("mashup-server: " + command.config() + ": " + e.getMessage());
            return 2;
        }
        Server server;
        try {
            server = MashupServer.createServer(command.options(), definitions, demo != null);
        } catch (IllegalArgumentException e) {
            err.println("mashup-server: " + e.getMessage());
            if (demo != null) {
                demo.close();
            }
            return 2;
        }
        if (demo != null) {
            // Stopped once the server has stopped — not a bean of it: a graceful stop shuts down every
            // Graceful bean in the server's tree at once, so the demo partners' connectors would refuse
            // the calls of the very mashups the drain waits for.
            Demo demoPartners = demo;
            server.addEventListener(new LifeCycle.Listener() {
                @Override
                public void lifeCycleStopped(LifeCycle event) {
                    demoPartners.close();
                }
            });
        }
        Logger log = LoggerFactory.getLogger(MashupServer.class);
        // A hang-up would end the JVM (129) and cut off the requests in flight; the server has nothing to reload.
        HangUp.ignore(log);
        String unbound = bindEach(server);
        if (unbound != null) {
            err.println("mashup-server: cannot start: " + unbound);
            for (Connector connector : server.getConnectors()) {
                ((ServerConnector) connector).close();
            }
            if (demo != null) {
                demo.close();
            }
            return 1;
        }
        server.setStopAtShutdown(true);
        try {
            server.start();
        } catch (Exception e) {
            err.println("mashup-server: cannot start: " + e);
            server.stop();
            return 1;
        }
        int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        String base = "http://" + command.options().host() + ":" + port;
        MashupServer.Limits limits = server.getBean(MashupServer.Limits.class);
        log.info("started on {}: mode {}, {} mashups, {} partners", base, command.options().mode().label(),
                definitions.mashups().size(), definitions.partners().size());
        MashupMetrics metrics = server.getBean(MashupMetrics.class);
        server.addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStopping(LifeCycle event) {
                log.info("stopping: answering the {} requests in flight, for at most {} ms", metrics.inboundInFlight(),
                        server.getStopTimeout());
            }

            @Override
            public void lifeCycleStopped(LifeCycle event) {
                log.info("stopped");
                afterStop.run();
            }
        });
        out.println("mashup-server ready on " + base + " (mode " + command.options().mode().label() + ", max "
                + command.options().maxThreads() + " threads, max " + limits.maxInFlight() + " in flight, max "
                + limits.maxConnections() + " connections of " + limits.maxFiles() + " open files"
                + (demo != null ? ", demo partners at " + demo.partners() : "") + ")");
        String admin = server.getConnectors().length < 2 ? null : "http://" + command.options().adminHost() + ":"
                + ((ServerConnector) server.getConnectors()[1]).getLocalPort();
        if (admin != null) {
            out.println("admin (/health/ready, /health/live, /metrics; outside the connection limit"
                    + (command.options().observabilityOnAdminOnly() ? "; only here" : "") + ") on " + admin);
            out.println("live view: " + admin + DashboardServlets.PAGE);
        }
        for (MashupDefinition m : definitions.mashups().values()) {
            String query = m.parameters().values().stream().filter(ParameterDefinition::required)
                    .map(p -> p.name() + "=Paris").reduce((a, b) -> a + "&" + b).map(q -> "?" + q).orElse("");
            out.println("try:  curl -i '" + base + m.path() + query + "'");
        }
        out.println("      curl " + (command.options().observabilityOnAdminOnly() ? admin : base) + "/metrics");
        server.join();
        return -1;
    }

    /**
     * Binds the connectors one by one (starting the server then keeps their sockets), so that a failure names
     * the one that failed: {@code admin port 8081 on 10.0.0.5 is in use or cannot be bound (…)}. Null when all
     * are bound.
     */
    private static String bindEach(Server server) {
        for (Connector connector : server.getConnectors()) {
            ServerConnector c = (ServerConnector) connector;
            try {
                c.open();
            } catch (IOException e) {
                Throwable why = e.getCause() != null ? e.getCause() : e;
                return (c instanceof AdminConnector ? "admin port " : "port ") + c.getPort() + " on " + c.getHost()
                        + " is in use or cannot be bound (" + why.getMessage() + ")";
            }
        }
        return null;
    }
}
