package io.rc10k.mashup.internal.observability;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.rc10k.broker.BrokerClient;
import io.rc10k.broker.Outcome;
import io.rc10k.broker.Partner;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server's metrics, served as Prometheus text at {@code GET /metrics}. The names are those of
 * docs/mashup-server.md#metrics and must not change (dashboards, the benchmarks and the experiments
 * read them): {@code jvm_threads_live_threads}, {@code jvm_threads_peak_threads},
 * {@code jetty_threads_busy}, {@code jetty_threads_current}, {@code mashup_inbound_inflight},
 * {@code mashup_outbound_inflight}, {@code mashup_outbound_connections},
 * {@code mashup_requests_total{mashup,outcome}}, {@code mashup_partner_calls_total{partner,outcome}},
 * {@code mashup_request_seconds}. Two timers feed the paper's thread model: {@code mashup_thread_hold_seconds}
 * (D, how long a request holds a container thread) and {@code mashup_partner_call_seconds} (each D_i).
 * For operators: {@code mashup_partner_circuit_state{partner}} (0 closed, 1 open, 2 half-open) and the same
 * as {@code mashup_partner_circuit{partner,state}} (1 for the current state, else 0),
 * {@code process_files_open_files} / {@code process_files_max_files}, {@code process_cpu_seconds_total},
 * {@code process_start_time_seconds} and
 * {@code mashup_log_dropped_lines_total} (log lines dropped rather than block a thread). Thread-safe.
 */
public final class MashupMetrics {
    private static final Duration[] BUCKETS = {Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofMillis(100),
        Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(1500),
        Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30)};
    /** Thread hold times: from tens of microseconds (async) to the whole request (sync). */
    private static final Duration[] HOLD_BUCKETS = {Duration.ofNanos(50_000), Duration.ofNanos(100_000),
        Duration.ofNanos(250_000), Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(25),
        Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
        Duration.ofSeconds(5), Duration.ofSeconds(10)};
    /**
     * Partner call times: from a cached or local answer (about a millisecond) to the longest deadline a
     * definition sets in practice (30 s). Explicit boundaries, not Micrometer's generated percentile buckets
     * (a series for each of its many fixed boundaries): every partner pays one series per bucket.
     */
    private static final Duration[] CALL_BUCKETS = {Duration.ofMillis(1), Duration.ofNanos(2_500_000),
        Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
        Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
        Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30)};
    /** The values of {@code mashup_partner_circuit{state}}, as {@link io.rc10k.broker.PartnerStats#circuit()} names them. */
    static final String[] CIRCUIT_STATES = {"closed", "open", "half_open"};

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AtomicInteger inboundInFlight = new AtomicInteger();
    private final Map<String, MashupMeters> mashups = new ConcurrentHashMap<>();
    private final Map<String, PartnerMeters> partners = new ConcurrentHashMap<>();

    /**
     * @param pool the shared pool. In a WAR it is the container's, loaded by another class loader, so
     *             its {@code getBusyThreads}/{@code getThreads} are read by name, not through the type
     */
    public MashupMetrics(Executor pool, BrokerClient broker) {
        new JvmThreadMetrics().bindTo(registry);
        // Heap in use and the live data size after the last major GC: what bounded memory is judged by.
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        // Sockets are files: the server derives its connection limits from the second (see FileBudget).
        new FileDescriptorMetrics().bindTo(registry);
        // process_start_time_seconds and process_uptime_seconds, as Prometheus's own clients name them.
        new UptimeMetrics().bindTo(registry);
        processCpu();
        poolGauge("jetty.threads.busy", pool, "getBusyThreads", "threads of the shared pool running a task");
        poolGauge("jetty.threads.current", pool, "getThreads", "threads of the shared pool");
        // The standalone server's log queue (CountingAsyncAppender): 0 in a WAR, which logs through its container.
        FunctionCounter.builder("mashup.log.dropped.lines", this, m -> DroppedLogLines.count())
                .description("log lines dropped because the log queue was full, rather than block the thread "
                        + "that logged").register(registry);
        Gauge.builder("mashup.inbound.inflight", inboundInFlight, AtomicInteger::get)
                .description("mashup requests admitted and not yet answered").register(registry);
        Gauge.builder("mashup.outbound.inflight", broker, BrokerClient::exchangesInFlight)
                .description("partner exchanges in flight").register(registry);
        Gauge.builder("mashup.outbound.buffered", broker, BrokerClient::bufferedBytes).baseUnit("bytes")
                .description("bytes of partner response bodies held while they arrive (bound: --max-buffered-bytes)")
                .register(registry);
        Gauge.builder("mashup.outbound.buffered.max", broker, BrokerClient::maxBufferedBytes).baseUnit("bytes")
                .description("the bound of mashup_outbound_buffered_bytes").register(registry);
        for (Partner partner : broker.partners()) {
            Gauge.builder("mashup.outbound.connections", broker, b -> b.stats(partner.name()).connectionsOpen())
                    .tag("partner", partner.name())
                    .description("connections open to the partner").register(registry);
            Gauge.builder("mashup.partner.circuit.state", broker, b -> circuitState(b.stats(partner.name()).circuit()))
                    .tag("partner", partner.name())
                    .description("the partner's circuit breaker: 0 closed, 1 open, 2 half-open").register(registry);
            // The same state as one series per state, 1 for the current one: what an alert or a panel selects
            // by label. The dashboard reads the number above.
            for (String state : CIRCUIT_STATES) {
                Gauge.builder("mashup.partner.circuit", broker,
                        b -> state.equals(b.stats(partner.name()).circuit()) ? 1 : 0)
                        .tags("partner", partner.name(), "state", state)
                        .description("1 for the state the partner's circuit breaker is in (closed, open, half_open), "
                                + "else 0").register(registry);
            }
            if (partner.baseUris().size() > 1) {
                hostMetrics(registry, broker, partner);
            }
        }
    }

    /** A partner served from several hosts: each host's calls out, its ejection and how often it was ejected. */
    private static void hostMetrics(MeterRegistry registry, BrokerClient broker, Partner partner) {
        for (int i = 0; i < partner.baseUris().size(); i++) {
            int index = i;
            String host = partner.baseUris().get(i).getRawAuthority();
            Gauge.builder("mashup.partner.host.inflight", broker,
                    b -> b.stats(partner.name()).hosts().get(index).inFlight())
                    .tags("partner", partner.name(), "host", host)
                    .description("attempts out to this host of the partner now").register(registry);
            Gauge.builder("mashup.partner.host.ejected", broker,
                    b -> b.stats(partner.name()).hosts().get(index).ejected() ? 1 : 0)
                    .tags("partner", partner.name(), "host", host)
                    .description("1 while the host is ejected after failures in a row (it takes no calls), else 0")
                    .register(registry);
            FunctionCounter.builder("mashup.partner.host.ejections", broker,
                    b -> b.stats(partner.name()).hosts().get(index).ejections())
                    .tags("partner", partner.name(), "host", host)
                    .description("times the host was ejected").register(registry);
        }
    }

    /** 0 closed, 1 open (calls end circuit_open at once), 2 half-open (one probe call in flight). */
    static double circuitState(String circuit) {
        return switch (circuit) {
            case "closed" -> 0;
            case "open" -> 1;
            case "half_open" -> 2;
            default -> Double.NaN;
        };
    }

    /**
     * {@code process_cpu_seconds_total}: the CPU time the process used, as Prometheus's own clients report
     * it (Micrometer's ProcessorMetrics has only a usage ratio). Absent where the JVM does not measure it.
     */
    private void processCpu() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                && os.getProcessCpuTime() >= 0) {
            FunctionCounter.builder("process.cpu", os, o -> o.getProcessCpuTime() / 1e9).baseUnit("seconds")
                    .description("CPU time the process used, user and system, in seconds").register(registry);
        }
    }

    private void poolGauge(String name, Executor pool, String getter, String description) {
        Method method;
        try {
            method = pool.getClass().getMethod(getter);
        } catch (NoSuchMethodException e) {
            return; // Not a Jetty QueuedThreadPool: nothing to report under the jetty_threads names.
        }
        Gauge.builder(name, pool, p -> {
            try {
                return ((Number) method.invoke(p)).doubleValue();
            } catch (ReflectiveOperationException e) {
                return Double.NaN;
            }
        }).description(description).register(registry);
    }

    public void requestBegun() {
        inboundInFlight.incrementAndGet();
    }

    /**
     * Counts one answered mashup request; {@code outcome} is complete, partial, failed, timeout, bad_request…
     * Called once the answer is written, so a client may read its answer before it is counted.
     */
    public void requestEnded(String mashup, String outcome, long elapsedNanos) {
        MashupMeters meters = mashup(mashup);
        meters.outcome(outcome).increment();
        meters.request.record(elapsedNanos, TimeUnit.NANOSECONDS);
        // Last: whoever sees the in-flight gauge at 0 sees every ended request counted.
        inboundInFlight.decrementAndGet();
    }

    /** Counts a request that was not admitted or not routed (never in flight). */
    public void count(String mashup, String outcome) {
        mashup(mashup).outcome(outcome).increment();
    }

    /** Counts one partner call by outcome and records how long it took (D_i of the paper's Eq. 1). */
    public void partnerCall(Outcome outcome) {
        PartnerMeters meters = partners.computeIfAbsent(outcome.partner(), PartnerMeters::new);
        meters.calls(outcome.kind()).increment();
        if (outcome.cache() != null) {
            meters.cache(outcome.cache()).increment();
        }
        if (outcome.hedges() > 0) {
            meters.hedges("sent").increment(outcome.hedges());
            if (outcome.hedgeWon()) {
                meters.hedges("won").increment();
            }
        }
        if (outcome.attempts() > 0) { // outcomes made up for calls that never went out have no time
            meters.time.record(outcome.elapsedNanos(), TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Records D of the paper's Eq. 2 for one answered request: the time it held a container thread,
     * summed over its dispatches (async: routing until {@code startAsync()}, then writing the composite;
     * sync and virtual: the whole request).
     */
    public void threadHeld(String mashup, long heldNanos) {
        mashup(mashup).hold.record(heldNanos, TimeUnit.NANOSECONDS);
    }

    private MashupMeters mashup(String name) {
        MashupMeters meters = mashups.get(name);
        return meters != null ? meters : mashups.computeIfAbsent(name, MashupMeters::new);
    }

    /**
     * One mashup's meters, registered on first use and kept: the hot path looks them up by name
     * instead of building and registering a meter (tags sorted and merged) per request.
     */
    private final class MashupMeters {
        private final String mashup;
        private final Map<String, Counter> outcomes = new ConcurrentHashMap<>();
        private final Timer request;
        private final Timer hold;

        MashupMeters(String mashup) {
            this.mashup = mashup;
            this.request = Timer.builder("mashup.request").tag("mashup", mashup).serviceLevelObjectives(BUCKETS)
                    .description("mashup request time, from routing to response").register(registry);
            this.hold = Timer.builder("mashup.thread.hold").tag("mashup", mashup).serviceLevelObjectives(HOLD_BUCKETS)
                    .description("time a mashup request held a container thread").register(registry);
        }

        Counter outcome(String outcome) {
            Counter counter = outcomes.get(outcome);
            return counter != null ? counter : outcomes.computeIfAbsent(outcome, o -> Counter.builder("mashup.requests")
                    .tag("mashup", mashup).tag("outcome", o).description("mashup requests by outcome")
                    .register(registry));
        }
    }

    /** One partner's meters, as {@link MashupMeters}. */
    private final class PartnerMeters {
        private final String partner;
        private final Counter[] calls = new Counter[Outcome.Kind.values().length];
        private final Timer time;

        PartnerMeters(String partner) {
            this.partner = partner;
            this.time = Timer.builder("mashup.partner.call").tag("partner", partner).serviceLevelObjectives(CALL_BUCKETS)
                    .description("partner call time, from start to outcome").register(registry);
        }

        /** Cached calls by how they were answered: {@code hit}, {@code coalesced} or {@code miss}. */
        Counter cache(String result) {
            return Counter.builder("mashup.partner.cache").tag("partner", partner).tag("result", result)
                    .description("cached partner calls: answered from the cache (hit), by an identical call "
                            + "out at the same time (coalesced), or by the partner (miss)").register(registry);
        }

        /** Hedges {@code sent}, or {@code won} (a hedge, not the first attempt, answered). */
        Counter hedges(String result) {
            // Rare (hedged calls that needed a hedge): the registry's own lookup is enough.
            return Counter.builder("mashup.partner.hedges").tag("partner", partner).tag("result", result)
                    .description("extra attempts of hedged partner calls: sent, and won").register(registry);
        }

        Counter calls(Outcome.Kind kind) {
            Counter counter = calls[kind.ordinal()];
            if (counter == null) {
                // A race registers the same meter twice: the registry returns the one it holds.
                counter = Counter.builder("mashup.partner.calls").tag("partner", partner).tag("outcome", kind.label())
                        .description("partner calls by outcome").register(registry);
                calls[kind.ordinal()] = counter;
            }
            return counter;
        }
    }

    public int inboundInFlight() {
        return inboundInFlight.get();
    }

    public String scrape() {
        return registry.scrape();
    }

    /** The registry {@link #scrape()} reads: {@link DashboardData} reads the same meters. */
    MeterRegistry registry() {
        return registry;
    }
}
