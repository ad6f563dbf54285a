/**
 * The inbound side: mashup definitions, the servlets of the three modes, composition, metrics; the
 * standalone server ({@link io.rc10k.mashup.MashupServer}, {@link io.rc10k.mashup.Main}) and the WAR's
 * listener ({@link io.rc10k.mashup.MashupWebApp}). Only {@code io.rc10k.mashup} is exported; each stage
 * of the pipeline under {@code io.rc10k.mashup.internal} and the embedded demo are not.
 */
// Micrometer and OpenTelemetry are automatic modules, by the stable names their manifests give.
@SuppressWarnings("requires-automatic")
module io.rc10k.mashup {
    exports io.rc10k.mashup;
    // The one qualified export: Logback builds the appenders a configuration names by their class, and
    // the bundled logback.xml (and a file given with log-config, as the docs ask) queues every line
    // through CountingAsyncAppender.
    exports io.rc10k.mashup.internal.observability to ch.qos.logback.core;

    // The API speaks the broker's Partner and Outcome, the Servlet API (MashupWebApp) and Jetty's Server.
    requires transitive io.rc10k.broker;
    requires transitive jakarta.servlet;
    requires transitive org.eclipse.jetty.server;
    requires org.eclipse.jetty.ee11.servlet;
    // The command line and the version it prints (and /health shows).
    requires io.rc10k.harness;
    requires com.fasterxml.jackson.core;
    requires com.fasterxml.jackson.databind;
    requires micrometer.core;
    requires micrometer.registry.prometheus;
    requires org.slf4j;
    // The JVM's meters (threads, open files) and SIGHUP.
    requires java.management;
    requires jdk.management;
    requires jdk.unsupported;

    // Optional dependencies, used only where they are present: the embedded demo's partners (Main's
    // default), the standalone jar's Logback and JUL bridge, and the span export (loaded when configured).
    requires static io.rc10k.stubs;
    requires static ch.qos.logback.classic;
    requires static ch.qos.logback.core;
    requires static jul.to.slf4j;
    requires static io.opentelemetry.api;
    requires static io.opentelemetry.context;
    requires static io.opentelemetry.sdk;
    requires static io.opentelemetry.sdk.common;
    requires static io.opentelemetry.sdk.trace;
    requires static io.opentelemetry.sdk.autoconfigure;
    requires static io.opentelemetry.sdk.autoconfigure.spi;
}
