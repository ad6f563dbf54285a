package io.rc10k.mashup.internal.observability;

import java.net.URI;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * Whether the server exports spans, decided without loading any OpenTelemetry class: off unless asked
 * for, whatever the OpenTelemetry SDK's own defaults are.
 *
 * <pre>{@code
 * SpanExport spans = SpanExportSettings.on(options.otlpEndpoint()) ? new SpanExport(options.otlpEndpoint(), d) : null;
 * }</pre>
 *
 * <p>On when {@code --otlp-endpoint} is given; or when the environment (or a system property of the
 * SDK's name) names a traces exporter other than {@code none} ({@code OTEL_TRACES_EXPORTER},
 * {@code otel.traces.exporter}) or an OTLP endpoint ({@code OTEL_EXPORTER_OTLP_ENDPOINT},
 * {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}) — unless {@code OTEL_SDK_DISABLED} is {@code true} or
 * the exporter is {@code none}. A system property wins over the variable, as in the SDK.</p>
 */
public final class SpanExportSettings {
    private SpanExportSettings() {
    }

    /** @param otlpEndpoint the command line's {@code --otlp-endpoint}, or null */
    public static boolean on(URI otlpEndpoint) {
        return on(otlpEndpoint, System::getenv, System::getProperty);
    }

    /**
     * @param environment a variable's value by name ({@code OTEL_TRACES_EXPORTER}), or null
     * @param properties  a system property's value by name ({@code otel.traces.exporter}), or null
     */
    public static boolean on(URI otlpEndpoint, UnaryOperator<String> environment, UnaryOperator<String> properties) {
        if (otlpEndpoint != null) {
            return true;
        }
        if ("true".equalsIgnoreCase(setting("otel.sdk.disabled", environment, properties))) {
            return false;
        }
        String exporter = setting("otel.traces.exporter", environment, properties);
        if (exporter != null) {
            return !exporter.strip().equalsIgnoreCase("none");
        }
        return setting("otel.exporter.otlp.endpoint", environment, properties) != null
                || setting("otel.exporter.otlp.traces.endpoint", environment, properties) != null;
    }

    /** The SDK's rule: the system property, else the variable of the same name in capitals with underscores. */
    private static String setting(String property, UnaryOperator<String> environment, UnaryOperator<String> properties) {
        String value = properties.apply(property);
        if (value == null || value.isBlank()) {
            value = environment.apply(property.toUpperCase(Locale.ROOT).replace('.', '_'));
        }
        return value == null || value.isBlank() ? null : value;
    }
}
