package io.rc10k.broker;

import io.rc10k.broker.internal.BufferBudget;
import io.rc10k.broker.internal.PartnerState;
import io.rc10k.broker.internal.Wires;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.util.component.ContainerLifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker client of the RC10K paper: it holds thousands of outbound exchanges on a few selector
 * threads — its own NIO loops for HTTP/1.1 and h2c partners, Jetty {@link HttpClient}s for https ones — with
 * a connection pool and limits per partner.
 *
 * <pre>{@code
 * BrokerClient broker = BrokerClient.builder()
 *         .partner(Partner.builder("weather", "http://127.0.0.1:9001").build())
 *         .partner(Partner.builder("hotels", "http://127.0.0.1:9002").protocol(Protocol.H2C).build())
 *         .executor(server.getThreadPool())          // share the server's pool, scheduler and buffers
 *         .scheduler(server.getScheduler())
 *         .byteBufferPool(server.getByteBufferPool())
 *         .build();
 * server.addBean(broker);                            // starts and stops with the server
 * broker.fanOut(Duration.ofSeconds(1)).add(Call.to("weather").path("weather?city=Paris").build()).start();
 * }</pre>
 *
 * <p>Threading: loops, selectors, I/O and listener callbacks all run on the executor (HTTP/1.1 answers and
 * their callbacks on the loop that read them, h2c ones on the thread that parsed their frames: never block
 * there); deadlines on the
 * scheduler. Given an executor, scheduler and buffer pool, the client creates none of its own and
 * does not manage their lifecycle; without them it creates a pool named {@code broker} and a
 * scheduler named {@code broker-scheduler}, which it starts and stops. Thread-safe once started.</p>
 */
public final class BrokerClient extends ContainerLifeCycle {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerClient.class);

    private final Map<String, Partner> partners;
    private final Map<String, PartnerState> states = new LinkedHashMap<>();
    private final ClientResources resources;
    private final int selectors;
    private final boolean http1OverJetty;
    private final boolean h2cOverJetty;
    private final BufferBudget buffers;
    /** Exchanges sent on their own, in flight: a stop cancels them. A fan-out's are kept by {@link #fanOuts}. */
    private final LoneExchanges alone = new LoneExchanges();

    private Executor executor;
    private Wires wires;
    private ExchangeFactory exchanges;
    private FanOuts fanOuts;

    private BrokerClient(Builder b) {
        this.partners = Map.copyOf(b.partners);
        this.buffers = new BufferBudget(b.maxBufferedBytes > 0 ? b.maxBufferedBytes : defaultMaxBufferedBytes());
        b.partners.values().forEach(p -> states.put(p.name(), new PartnerState(p, buffers)));
        this.resources = new ClientResources(b.executor, b.scheduler, b.byteBufferPool);
        this.selectors = b.selectors;
        this.http1OverJetty = b.http1OverJetty;
        this.h2cOverJetty = b.h2cOverJetty;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * True for a request header a caller may not set on a call: hop-by-hop ({@code Connection},
     * {@code Upgrade}, {@code Proxy-*}, …) or the client's own ({@code Host}, {@code Content-Length}, …).
     * The one rule: the broker refuses such headers, and mashup definitions may not forward them.
     */
    public static boolean isRefusedHeader(String name) {
        return RequestRules.isRefusedHeader(name);
    }

    /** A quarter of the heap the JVM may grow to: what partners' bodies in transit may hold together. */
    static long defaultMaxBufferedBytes() {
        return Math.max(1 << 20, Runtime.getRuntime().maxMemory() / 4);
    }

    /** Bytes of response bodies being received now, by every partner's calls together. */
    public long bufferedBytes() {
        return buffers.used();
    }

    /** The bound of {@link #bufferedBytes()} ({@link Builder#maxBufferedBytes}). */
    public long maxBufferedBytes() {
        return buffers.maxBytes();
    }

    /**
     * Assembles the client in named steps: the pool and the scheduler (the injected ones, or its own:
     * {@link ClientResources}), the wires to the partners ({@link Wires}), what makes exchanges of calls, and
     * the fan-outs' deadlines.
     */
    @Override
    protected void doStart() throws Exception {
        executor = resources.executor(this);
        Scheduler scheduler = resources.scheduler(this);
        wires = new Wires(partners, executor, scheduler, resources.buffers(), selectors, http1OverJetty,
                h2cOverJetty);
        addBean(wires, true);
        exchanges = new ExchangeFactory(this, states, wires, scheduler, executor);
        fanOuts = new FanOuts(scheduler, executor);
        super.doStart();
        if (resources.injectedExecutor() == null) {
            LOG.info("broker client runs on a pool of its own ({}); pass an executor to share one", executor);
        }
    }

    /**
     * Ends every exchange in flight as CANCELLED before the HTTP client stops, so each caller gets its
     * one outcome (and no retry starts on a stopping client); then stops what the client owns.
     */
    @Override
    protected void doStop() throws Exception {
        alone.cancelAll();
        if (fanOuts != null) {
            fanOuts.cancelAll();
            fanOuts.destroy();
        }
        super.doStop();
        if (wires != null) {
            removeBean(wires);
        }
        resources.dropOwn(this);
    }

    /**
     * Sends {@code call} on its own, now.
     *
     * @throws IllegalArgumentException for a partner this client does not know (the message lists them), a
     *                                  path it refuses, or a call that comes after others (only a fan-out
     *                                  makes those)
     * @throws IllegalStateException    when the client is not running
     */
    public Exchange send(Call call) {
        if (call.chained()) {
            throw new IllegalArgumentException("call " + call + " comes after other calls (accepted: alone, "
                    + "a call that comes after none; add it to a fan-out)");
        }
        return factory().newExchange(call, call.pathAndQuery(), alone).start();
    }

    /** A fan-out to add calls to; nothing starts until {@link FanOut#start()}. */
    public FanOut fanOut(Duration deadline) {
        return new FanOut(factory(), fanOuts, deadline);
    }

    private ExchangeFactory factory() {
        ExchangeFactory factory = exchanges;
        if (factory == null || !isStarted()) {
            throw new IllegalStateException("broker client is not started (state " + getState() + ")");
        }
        return factory;
    }

    public Partner partner(String name) {
        PartnerState state = states.get(name);
        return state == null ? null : state.partner();
    }

    public Collection<Partner> partners() {
        return partners.values();
    }

    /** Exchanges admitted and not yet ended, over every partner. */
    public long exchangesInFlight() {
        long sum = 0;
        for (PartnerState state : states.values()) {
            sum += state.inFlight();
        }
        return sum;
    }

    /** Fan-outs started and not yet completed. */
    int fanOutsInFlight() {
        return fanOuts.size();
    }

    public PartnerStats stats(String partnerName) {
        PartnerState state = ExchangeFactory.state(states, partnerName);
        return state.stats(wires == null ? new int[3] : wires.connections(state.partner()));
    }

    /**
     * Threads the client keeps from its executor for I/O while it runs: its loops (HTTP/1.1 and h2c partners),
     * the selectors of Jetty's client for https partners, and as many again for h2c when a partner is h2c and
     * {@link Builder#jettyForH2c()} puts h2c on Jetty's client. Known before start when the executor is injected.
     */
    public int ioThreads() {
        return Math.max(1, selectors) * (h2cOverJetty && Wires.anyH2c(partners.values()) ? 2 : 1)
                + Wires.loops(selectors, executor());
    }

    /**
     * True when called on one of the client's HTTP/1.1 loops, where answers are read and their callbacks
     * run. Whatever runs there holds up every answer that loop reads: a server may run short non-blocking
     * work on it (resuming an inbound connection) instead of waking a thread for that work, never more.
     */
    public boolean isLoopThread() {
        Wires current = wires;
        return current != null && current.isLoopThread();
    }

    /** The executor everything runs on (the injected one, or the client's own). */
    public Executor executor() {
        return executor == null ? resources.injectedExecutor() : executor;
    }

    /** The underlying Jetty client (https partners), for this package's tests to inspect. */
    HttpClient httpClient() {
        return wires.httpClient();
    }

    public static final class Builder {
        private final Map<String, Partner> partners = new LinkedHashMap<>();
        private Executor executor;
        private Scheduler scheduler;
        private ByteBufferPool byteBufferPool;
        /** 0: the defaults (one Jetty selector; one HTTP/1.1 loop per core, at most 8). */
        private int selectors;
        /** 0: a quarter of the maximum heap. */
        private long maxBufferedBytes;
        private boolean http1OverJetty;
        private boolean h2cOverJetty;

        private Builder() {
        }

        public Builder partner(Partner partner) {
            if (partners.putIfAbsent(partner.name(), partner) != null) {
                throw new IllegalArgumentException("partner \"" + partner.name() + "\" is defined twice");
            }
            return this;
        }

        public Builder partners(Collection<Partner> partners) {
            partners.forEach(this::partner);
            return this;
        }

        /** The pool to run selectors, I/O and callbacks on; not started or stopped by the client. */
        public Builder executor(Executor executor) {
            this.executor = executor;
            return this;
        }

        /** The scheduler for timeouts and deadlines; not started or stopped by the client. */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = scheduler;
            return this;
        }

        public Builder byteBufferPool(ByteBufferPool byteBufferPool) {
            this.byteBufferPool = byteBufferPool;
            return this;
        }

        /**
         * Selector threads taken from the executor, each holding thousands of connections: this many
         * loops (HTTP/1.1 and h2c partners) and as many Jetty selectors for https partners, and again for h2c ones
         * over {@link #jettyForH2c()} (default: one Jetty selector each, and one loop per two cores, at most 8 and at
         * most one per 16 threads of the pool).
         */
        public Builder selectors(int selectors) {
            if (selectors < 1) {
                throw new IllegalArgumentException("selectors: " + selectors + " < 1");
            }
            this.selectors = selectors;
            return this;
        }

        /**
         * The most bytes of response bodies held at once while they are received, by every partner's calls
         * together (default: a quarter of the maximum heap). A call whose body would pass it ends
         * {@link Outcome.Kind#MEMORY_BUDGET}. Bodies are counted as they arrive, never by their declared
         * length; a body that became an {@link Outcome} no longer counts.
         */
        public Builder maxBufferedBytes(long maxBufferedBytes) {
            if (maxBufferedBytes < 1) {
                throw new IllegalArgumentException("maxBufferedBytes: " + maxBufferedBytes + " (accepted: >= 1)");
            }
            this.maxBufferedBytes = maxBufferedBytes;
            return this;
        }

        /**
         * HTTP/1.1 partners are called over Jetty's {@link HttpClient}, as h2c ones are, instead of the
         * client's own loops: more CPU per call, the same outcomes (where a misbehaving partner's outcome
         * differs, docs/results/hostile-partners.md says why). For comparing the two, not for production.
         */
        public Builder jettyForHttp1() {
            this.http1OverJetty = true;
            return this;
        }

        /**
         * h2c partners are called over Jetty's {@link HttpClient} (its HTTP/2 client), as before the client's own
         * h2c wire, instead of on the client's loops: for comparing the two, not for production.
         */
        public Builder jettyForH2c() {
            this.h2cOverJetty = true;
            return this;
        }

        public BrokerClient build() {
            return new BrokerClient(this);
        }
    }
}
