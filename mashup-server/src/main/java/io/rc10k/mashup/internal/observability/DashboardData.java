package io.rc10k.mashup.internal.observability;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * What {@code GET /dashboard/data} answers: the dashboard's numbers, read from the very meters that
 * {@code /metrics} serves (the registry of {@link MashupMetrics}), so that the two agree. Counters and
 * timers are cumulative, as in {@code /metrics}; the page turns them into rates from one answer to the
 * next. Bounded: one entry per outcome and one per partner of the definitions, whatever the traffic.
 *
 * <pre>
 * {"mode":"async","timeMillis":1767225600000,"monotonicMillis":61234.5,
 *  "inbound":{"inFlight":24},"outbound":{"inFlight":72},
 *  "threads":{"live":41,"peak":44,"busy":5,"current":12},
 *  "requests":{"outcomes":{"complete":310,"bad_request":2},"count":312,"sumSeconds":7.1,"maxSeconds":0.09},
 *  "partners":{"weather":{"calls":310,"count":310,"sumSeconds":2.4,"maxSeconds":0.03,"connections":4,
 *              "circuit":0}}}
 * </pre>
 *
 * <p>Thread-safe; each call reads the meters once, without locks.</p>
 */
public final class DashboardData {
    private final MeterRegistry registry;
    private final String mode;
    private final long originNanos = System.nanoTime();

    public DashboardData(MashupMetrics metrics, String mode) {
        this.registry = metrics.registry();
        this.mode = mode;
    }

    public String json() {
        StringBuilder json = new StringBuilder(1024);
        json.append("{\"mode\":\"").append(mode).append('"');
        json.append(",\"timeMillis\":").append(System.currentTimeMillis());
        json.append(",\"monotonicMillis\":").append((System.nanoTime() - originNanos) / 1_000L / 1_000.0);
        json.append(",\"inbound\":{\"inFlight\":").append(number(gauge("mashup.inbound.inflight"))).append('}');
        json.append(",\"outbound\":{\"inFlight\":").append(number(gauge("mashup.outbound.inflight"))).append('}');
        json.append(",\"threads\":{\"live\":").append(number(gauge("jvm.threads.live")))
                .append(",\"peak\":").append(number(gauge("jvm.threads.peak")))
                .append(",\"busy\":").append(number(gauge("jetty.threads.busy")))
                .append(",\"current\":").append(number(gauge("jetty.threads.current"))).append('}');
        requests(json);
        partners(json);
        return json.append('}').toString();
    }

    /** Outcomes summed over mashups (mashup_requests_total); the request timer summed likewise. */
    private void requests(StringBuilder json) {
        Map<String, Double> outcomes = new TreeMap<>();
        for (Counter counter : registry.find("mashup.requests").counters()) {
            outcomes.merge(counter.getId().getTag("outcome"), counter.count(), Double::sum);
        }
        Summary summary = new Summary();
        registry.find("mashup.request").timers().forEach(summary::add);
        json.append(",\"requests\":{\"outcomes\":{");
        String comma = "";
        for (Map.Entry<String, Double> outcome : outcomes.entrySet()) {
            json.append(comma).append('"').append(outcome.getKey()).append("\":").append(number(outcome.getValue()));
            comma = ",";
        }
        json.append('}');
        summary.appendTo(json);
        json.append('}');
    }

    /** Every partner that has a connections gauge (all of the definitions'), whether called yet or not. */
    private void partners(StringBuilder json) {
        Map<String, Partner> partners = new TreeMap<>();
        for (Gauge g : registry.find("mashup.outbound.connections").gauges()) {
            partners.computeIfAbsent(g.getId().getTag("partner"), p -> new Partner()).connections = g.value();
        }
        for (Gauge g : registry.find("mashup.partner.circuit.state").gauges()) {
            partners.computeIfAbsent(g.getId().getTag("partner"), p -> new Partner()).circuit = g.value();
        }
        for (Counter c : registry.find("mashup.partner.calls").counters()) {
            partners.computeIfAbsent(c.getId().getTag("partner"), p -> new Partner()).calls += c.count();
        }
        for (Timer t : registry.find("mashup.partner.call").timers()) {
            partners.computeIfAbsent(t.getId().getTag("partner"), p -> new Partner()).time.add(t);
        }
        json.append(",\"partners\":{");
        String comma = "";
        for (Map.Entry<String, Partner> entry : partners.entrySet()) {
            Partner p = entry.getValue();
            json.append(comma).append('"').append(entry.getKey()).append("\":{\"calls\":").append(number(p.calls));
            p.time.appendTo(json);
            json.append(",\"connections\":").append(number(p.connections))
                    .append(",\"circuit\":").append(number(p.circuit)).append('}');
            comma = ",";
        }
        json.append('}');
    }

    private double gauge(String name) {
        Gauge gauge = registry.find(name).gauge();
        return gauge == null ? Double.NaN : gauge.value();
    }

    /** A whole number without ".0", a fraction as Java prints it, and null for what JSON cannot hold. */
    static String number(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "null";
        }
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return Double.toString(value);
    }

    /** One or more timers added up: count and sum add, the max is the largest. */
    private static final class Summary {
        private long count;
        private double sumSeconds;
        private double maxSeconds;

        void add(Timer timer) {
            // The max last: it then covers every call the count and sum include.
            count += timer.count();
            sumSeconds += timer.totalTime(TimeUnit.SECONDS);
            maxSeconds = Math.max(maxSeconds, timer.max(TimeUnit.SECONDS));
        }

        void appendTo(StringBuilder json) {
            json.append(",\"count\":").append(count).append(",\"sumSeconds\":").append(number(sumSeconds))
                    .append(",\"maxSeconds\":").append(number(maxSeconds));
        }
    }

    private static final class Partner {
        private double calls;
        private double connections = Double.NaN;
        private double circuit = Double.NaN;
        private final Summary time = new Summary();
    }
}
