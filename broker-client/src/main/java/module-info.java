/**
 * The outbound side: partners, exchanges with their lifecycle events, fan-outs with one deadline
 * ({@link io.rc10k.broker.BrokerClient} is where to start). Only {@code io.rc10k.broker} is exported;
 * the machinery in {@code io.rc10k.broker.internal} (the HTTP/1.1 loops, the Jetty wire, caches,
 * breakers) is not, as jetty-client hides its {@code internal} packages.
 */
module io.rc10k.broker {
    exports io.rc10k.broker;

    // The API speaks Jetty (BrokerClient is a ContainerLifeCycle on a given Executor, Scheduler and
    // ByteBufferPool; a call carries HttpFields): jetty-client brings jetty-http, -io and -util along.
    requires transitive org.eclipse.jetty.client;
    requires org.eclipse.jetty.http2.client;
    // The h2c wire on the client's own loops parses frames and HPACK with Jetty's HTTP/2 parser and encoder.
    requires org.eclipse.jetty.http2.common;
    requires org.eclipse.jetty.http2.hpack;
    requires org.eclipse.jetty.http2.client.transport;
    // HTTPS partners: ALPN over the JDK's TLS, which jetty-alpn-client finds as a service; no class of
    // it is named here, so without this nothing would put it in the module graph.
    requires org.eclipse.jetty.alpn.java.client;
    requires org.slf4j;
}
