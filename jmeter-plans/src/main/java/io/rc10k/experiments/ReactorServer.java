package io.rc10k.experiments;

import io.rc10k.broker.Partner;
import io.rc10k.broker.Protocol;
import io.rc10k.harness.CommandLine;
import io.rc10k.mashup.Definitions;
import io.rc10k.mashup.MashupDefinition;
import io.rc10k.mashup.MashupOptions;
import io.rc10k.mashup.MashupServer;
import io.rc10k.mashup.ParameterDefinition;
import java.time.Duration;
import java.util.List;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The mashup server as the reactor experiment runs it: the standalone server in async mode
 * ({@link MashupServer#createServer}) with the main connector's acceptors and selectors set for one of the
 * study's three models, and {@link BusinessFront} in front of it. A process of its own, started by
 * {@link ReactorSurfaceExperiment}:
 *
 * <pre>
 * java -cp jmeter-plans/target/experiments.jar io.rc10k.experiments.ReactorServer --stubs http://127.0.0.1:9101 \
 *     --model mrmt --selectors 2 --threads 16
 * </pre>
 *
 * <ul>
 * <li>{@code srst}: no acceptor, one selector that accepts, reads and runs the business;</li>
 * <li>{@code srmt}: no acceptor, one selector that accepts and reads; the business on {@code --threads} workers;</li>
 * <li>{@code mrmt}: one acceptor (the main reactor), {@code --selectors} selectors (the sub-reactors), the
 *     business on {@code --threads} workers.</li>
 * </ul>
 *
 * The workers are a Jetty {@link QueuedThreadPool} of exactly {@code --threads} threads, none reserved, apart from
 * the server's own pool ({@code --max-threads}), which also holds the selectors and the broker's loops: so the
 * count is the study's "pool size". The mashups {@code /mashup/c1} and {@code /mashup/c6} call the stubs over h2c,
 * every call {@code /stub?delay={delay}} (milliseconds). Prints {@code reactor ready on URL admin URL}.
 */
public final class ReactorServer {
    static final List<String> MODELS = List.of("srst", "srmt", "mrmt");

    private ReactorServer() {
    }

    static Server createServer(String stubs, String model, int selectors, int threads, int maxThreads, int clients,
            int adminPort) throws Exception {
        boolean multi = model.equals("mrmt");
        MashupOptions options = MashupOptions.builder().port(0).adminPort(adminPort).maxThreads(maxThreads)
                .acceptors(multi ? 1 : 0).selectors(multi ? selectors : 1)
                .maxConnections(Math.min(19_000, 2 * clients + 100)).maxInFlight(clients + 100).build();
        Server server = MashupServer.createServer(options, definitions(stubs));
        QueuedThreadPool workers = null;
        if (!model.equals("srst")) {
            workers = new QueuedThreadPool(threads, threads);
            workers.setName("business");
            workers.setReservedThreads(0);
            server.addBean(workers, true);
        }
        server.setHandler(new BusinessFront(server.getHandler(), workers));
        return server;
    }

    private static Definitions definitions(String stubs) throws Exception {
        Partner partner = Partner.builder("stub", stubs).protocol(Protocol.H2C).maxConnections(64)
                .maxStreamsPerConnection(256).maxQueued(65_536).build();
        Definitions.Builder builder = Definitions.builder().partner(partner);
        for (int c : new int[] {1, 6}) {
            MashupDefinition.Builder mashup = MashupDefinition.builder("c" + c).deadline(Duration.ofSeconds(60))
                    .parameter(ParameterDefinition.optional("delay", "0"));
            for (int i = 1; i <= c; i++) {
                mashup.call("p" + i, "stub", "/stub?delay={delay}&id=" + i);
            }
            builder.mashup(mashup.build());
        }
        return builder.build();
    }

    public static void main(String[] args) throws Exception {
        String stubs = null;
        String model = "srst";
        int selectors = 1;
        int threads = 1;
        int maxThreads = 64;
        int clients = 10_000;
        int adminPort = 0;
        CommandLine line = new CommandLine("reactor-server", "--stubs URL --model srst|srmt|mrmt --selectors N "
                + "--threads N --max-threads N (64) --clients N (10000) --admin-port N (0) --help --version", args);
        while (line.next()) {
            switch (line.option()) {
                case "--stubs" -> stubs = line.value();
                case "--model" -> model = line.value();
                case "--selectors" -> selectors = line.intValue();
                case "--threads" -> threads = line.intValue();
                case "--max-threads" -> maxThreads = line.intValue();
                case "--clients" -> clients = line.intValue();
                case "--admin-port" -> adminPort = line.intValue();
                default -> line.unknown();
            }
        }
        if (stubs == null || !MODELS.contains(model) || selectors < 1 || threads < 1) {
            throw line.fail("--stubs URL is required, --model one of " + MODELS + ", --selectors and --threads "
                    + "at least 1");
        }
        Server server = createServer(stubs, model, selectors, threads, maxThreads, clients, adminPort);
        server.setStopAtShutdown(true);
        server.start();
        Connector[] connectors = server.getConnectors();
        System.out.println("reactor ready on http://127.0.0.1:" + ((ServerConnector) connectors[0]).getLocalPort()
                + " admin http://127.0.0.1:" + ((ServerConnector) connectors[1]).getLocalPort() + " (" + model
                + ", acceptors " + ((ServerConnector) connectors[0]).getAcceptors() + ", selectors "
                + ((ServerConnector) connectors[0]).getSelectorManager().getSelectorCount() + ", workers "
                + (model.equals("srst") ? "none" : threads) + ")");
        server.join();
    }
}
