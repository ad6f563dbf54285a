package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.mashup.internal.observability.SpanExportSettings;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When the span export is on: only when asked for, by the option or by the OpenTelemetry SDK's own settings. */
class SpanExportSettingsTest {
    private static final URI ENDPOINT = URI.create("http://collector:4318");

    private static boolean on(URI option, Map<String, String> environment, Map<String, String> properties) {
        return SpanExportSettings.on(option, environment::get, properties::get);
    }

    @Test
    void offWithoutSettingsWhateverTheOtherOtelVariablesSay() {
        assertFalse(on(null, Map.of(), Map.of()));
        assertFalse(on(null, Map.of("OTEL_SERVICE_NAME", "mashups", "OTEL_TRACES_SAMPLER", "always_on",
                "OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer x"), Map.of()));
        assertFalse(on(null, Map.of("OTEL_TRACES_EXPORTER", " "), Map.of()), "blank is unset");
    }

    @Test
    void onWithAnExporterOrAnEndpointInTheEnvironmentOrAsSystemProperties() {
        assertTrue(on(null, Map.of("OTEL_TRACES_EXPORTER", "otlp"), Map.of()));
        assertTrue(on(null, Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"), Map.of()));
        assertTrue(on(null, Map.of("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://collector:4318/v1/traces"), Map.of()));
        assertTrue(on(null, Map.of(), Map.of("otel.traces.exporter", "otlp")));
        assertTrue(on(null, Map.of(), Map.of("otel.exporter.otlp.endpoint", "http://collector:4318")));
    }

    @Test
    void theExporterNoneAndTheSdkDisabledTurnItOffUnlessTheOptionIsGiven() {
        assertFalse(on(null, Map.of("OTEL_TRACES_EXPORTER", "none", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"),
                Map.of()));
        assertFalse(on(null, Map.of("OTEL_SDK_DISABLED", "true", "OTEL_TRACES_EXPORTER", "otlp"), Map.of()));
        assertTrue(on(ENDPOINT, Map.of(), Map.of()));
        assertTrue(on(ENDPOINT, Map.of("OTEL_TRACES_EXPORTER", "none", "OTEL_SDK_DISABLED", "true"), Map.of()));
    }

    @Test
    void aSystemPropertyWinsOverTheVariable() {
        assertFalse(on(null, Map.of("OTEL_TRACES_EXPORTER", "otlp"), Map.of("otel.traces.exporter", "none")));
        assertTrue(on(null, Map.of("OTEL_TRACES_EXPORTER", "none"), Map.of("otel.traces.exporter", "otlp")));
    }
}
