package io.rc10k.mashup;

import java.util.Map;

/**
 * System properties set for the length of a test, as the OpenTelemetry SDK reads them ({@code otel.*}
 * instead of {@code OTEL_*} variables, which a running JVM cannot change); removed on close.
 *
 * <pre>{@code
 * try (SystemProperties otel = SystemProperties.set(Map.of("otel.traces.exporter", "otlp"))) {
 *     ...
 * }
 * }</pre>
 */
final class SystemProperties implements AutoCloseable {
    private final Map<String, String> set;

    private SystemProperties(Map<String, String> set) {
        this.set = set;
    }

    static SystemProperties set(Map<String, String> properties) {
        properties.forEach(System::setProperty);
        return new SystemProperties(properties);
    }

    @Override
    public void close() {
        set.keySet().forEach(System::clearProperty);
    }
}
