package io.rc10k.mashup.internal.wiring;

import io.rc10k.mashup.internal.admission.AdmissionHandler;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The connector that serves only {@code /health*}, {@code /metrics} and the dashboard, outside the main
 * connector's connection limit. A graceful stop leaves it open — a {@link ServerConnector} would
 * close its port as the stop begins — so that probes and scrapers still reach the server while the
 * admitted requests drain; it closes with the other connectors when the drain is over.
 */
public final class AdminConnector extends ServerConnector {
    public AdminConnector(Server server, ConnectionFactory... factories) {
        super(server, 1, 1, factories);
        setName(AdmissionHandler.ADMIN_CONNECTOR);
    }

    /** Neither closes the port nor marks connections to close: the drain is the mashup connector's. */
    @Override
    public CompletableFuture<Void> shutdown() {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public boolean isShutdown() {
        return false;
    }
}
