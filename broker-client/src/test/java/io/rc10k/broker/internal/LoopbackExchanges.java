package io.rc10k.broker.internal;

import io.rc10k.broker.ExchangeListener;
import io.rc10k.broker.Hedging;
import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import io.rc10k.stubs.PartnerStubs;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * {@link RealExchange}s on the broker's own HTTP/1.1 wire to partner stubs on loopback, made as the client
 * makes them, for the tests of an exchange's parts (its attempts, their runner): started before a test class's
 * tests, stopped after them.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final LoopbackExchanges LOOPBACK = new LoopbackExchanges();
 * ...
 * PartnerState state = LOOPBACK.state(LOOPBACK.partner().retries(1).build());
 * Outcome outcome = LOOPBACK.run(state, "stub?bytes=100", null, ExchangeListener.NONE);
 * }</pre>
 */
final class LoopbackExchanges implements BeforeAllCallback, AfterAllCallback {
    private final QueuedThreadPool pool = new QueuedThreadPool(16);
    private final ScheduledExecutorScheduler scheduler = new ScheduledExecutorScheduler("loopback-timers", true);
    private final BufferBudget buffers = new BufferBudget(1 << 24);
    private PartnerStubs stubs;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        stubs = PartnerStubs.start();
        pool.setName("loopback-exchanges");
        pool.start();
        scheduler.start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        scheduler.stop();
        pool.stop();
        stubs.close();
    }

    /** A partner served by the stubs. */
    Partner.Builder partner() {
        return Partner.builder("p", stubs.uri().toString());
    }

    /** The stubs' base URI, then a port nothing listens on (a host that is down). */
    List<String> upAndDown() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return List.of(stubs.uri().toString(), "http://127.0.0.1:" + socket.getLocalPort());
        }
    }

    /** The budget every exchange here reserves its response bytes from. */
    BufferBudget buffers() {
        return buffers;
    }

    /** A started GET of {@code state}'s partner for {@code path} (relative to its base URI), on {@code wire}. */
    RealExchange start(Http1Wire wire, PartnerState state, String path, Hedging hedging, ExchangeListener listener) {
        URI uri = state.partner().baseUri().resolve(path);
        return new RealExchange(wire, scheduler, pool, state, "GET", uri, null, null, listener,
                RealExchange.StopList.NONE, hedging, null, null, null).start();
    }

    Http1Wire wire(Partner partner) throws Exception {
        Http1Wire wire = new Http1Wire(List.of(partner), pool, 1);
        wire.start();
        return wire;
    }

    /** Runs one exchange to its end; the partner's state is left for the test to check. */
    Outcome run(PartnerState state, String path, Hedging hedging, ExchangeListener listener) throws Exception {
        Http1Wire wire = wire(state.partner());
        try {
            RealExchange exchange = start(wire, state, path, hedging, listener);
            return exchange.outcome().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } finally {
            wire.stop();
        }
    }

    PartnerState state(Partner partner) {
        return new PartnerState(partner, buffers);
    }

    /** Waits, within a bound, for {@code condition}: what an exchange gives back may come just after its end. */
    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - until > 0) {
                throw new AssertionError(what);
            }
            Thread.sleep(5);
        }
    }
}
