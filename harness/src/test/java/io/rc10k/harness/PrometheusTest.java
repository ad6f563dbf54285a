package io.rc10k.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PrometheusTest {
    @Test
    void readsSeriesAndSumsAMetricOverItsLabels() {
        Prometheus p = Prometheus.parse(42, String.join("\n",
                "# HELP mashup_requests_total mashup requests by outcome",
                "# TYPE mashup_requests_total counter",
                "mashup_requests_total{mashup=\"paper\",outcome=\"complete\"} 10.0",
                "mashup_requests_total{mashup=\"paper\",outcome=\"partial\"} 2.0",
                "mashup_requests_total_extra 99.0",
                "jvm_threads_live_threads 17.0",
                "not a sample"));
        assertEquals(42, p.epochMillis());
        assertEquals(17.0, p.get("jvm_threads_live_threads"));
        assertEquals(0.0, p.get("absent"));
        assertEquals(12.0, p.sum("mashup_requests_total", ""));
        assertEquals(2.0, p.sum("mashup_requests_total", "outcome=\"partial\""));
    }
}
