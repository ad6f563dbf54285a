/**
 * Simulated partner services: {@link io.rc10k.stubs.StubServer} (latency, size and fault controls),
 * {@link io.rc10k.stubs.HostilePartner} (a partner that misbehaves on the wire) and the JUnit extension
 * that starts them for a test class. Only {@code io.rc10k.stubs} is exported; how the stubs answer
 * ({@code io.rc10k.stubs.internal}) is not.
 */
module io.rc10k.stubs {
    exports io.rc10k.stubs;

    // The API hands out Jetty's Server and ServerConnector (jetty-server brings jetty-http, -io and -util).
    requires transitive org.eclipse.jetty.server;
    requires org.eclipse.jetty.http2.server;
    requires org.eclipse.jetty.alpn.server;
    // HTTPS mode: ALPN over the JDK's TLS, a service of jetty-alpn-server that no class here names.
    requires org.eclipse.jetty.alpn.java.server;
    // StubCertificate signs its certificates with Bouncy Castle.
    requires org.bouncycastle.pkix;
    requires org.bouncycastle.provider;
    requires org.slf4j;
    // The command line and the version it prints.
    requires io.rc10k.harness;
    // The counters' /stats report the stub JVM's own threads.
    requires java.management;
    // PartnerStubsExtension only (an optional dependency): the tests that use it bring JUnit.
    requires static org.junit.jupiter.api;
}
