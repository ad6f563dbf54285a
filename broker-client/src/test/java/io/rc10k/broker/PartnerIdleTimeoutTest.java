package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubCertificate;
import io.rc10k.stubs.StubOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A partner's {@code idleTimeout} (its keep-alive on the broker's side), over each wire: HTTP/1.1 on the broker's
 * loops and on Jetty's client (the comparison path), h2c, and https (h2 by ALPN) on Jetty's client. A kept
 * connection idle past it is closed (on Jetty's clients past the longest of it, the connect timeout and, over
 * HTTP/2, the call timeout), and a call that waits for its answer longer than it is not cut short: only the
 * call's timeout bounds a call.
 */
class PartnerIdleTimeoutTest {
    private static final Duration IDLE = Duration.ofMillis(300);
    /** The partner's answer takes several idle timeouts. */
    private static final int SLOW_MILLIS = 1_500;

    @TempDir
    static Path files;
    private static PartnerStubs plain;
    private static PartnerStubs secure;
    private static Path trusted;

    enum Wire { HTTP_1_1, HTTP_1_1_OVER_JETTY, H2C, H2_OVER_TLS }

    @BeforeAll
    static void start() throws Exception {
        plain = PartnerStubs.start(StubOptions.builder().h2c(true).build());
        StubCertificate certificate = StubCertificate.generate("localhost", "127.0.0.1");
        trusted = certificate.writePem(files.resolve("stubs.pem"));
        secure = PartnerStubs.start(StubOptions.builder().tls(certificate).build());
    }

    @AfterAll
    static void stop() {
        plain.close();
        secure.close();
    }

    private static BrokerClient broker(Wire wire, Duration callTimeout) throws Exception {
        Partner.Builder partner = switch (wire) {
            case HTTP_1_1 -> Partner.builder("p", plain.uri().toString());
            // Jetty's idle timeout is never below the connect timeout: as short, so that it is the idle timeout's.
            case HTTP_1_1_OVER_JETTY -> Partner.builder("p", plain.uri().toString()).connectTimeout(IDLE);
            case H2C -> Partner.builder("p", plain.uri().toString()).protocol(Protocol.H2C);
            case H2_OVER_TLS -> Partner.builder("p", secure.uri().toString()).protocol(Protocol.H2)
                    .tls(PartnerTls.DEFAULT.withCaFile(trusted));
        };
        BrokerClient.Builder builder = BrokerClient.builder()
                .partner(partner.idleTimeout(IDLE).callTimeout(callTimeout).retries(0).build());
        BrokerClient broker = (wire == Wire.HTTP_1_1_OVER_JETTY ? builder.jettyForHttp1() : builder).build();
        broker.start();
        return broker;
    }

    private static Outcome call(BrokerClient broker, String path) throws Exception {
        return broker.send(Call.to("p").path(path).build()).outcome().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void anIdleTimeoutOutOfBoundsIsRefusedNamingTheField() {
        for (Duration bad : List.of(Duration.ZERO, Duration.ofMillis(-1), Partner.MAX_IDLE_TIMEOUT.plusMillis(1))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Partner.builder("p", "http://127.0.0.1:1").idleTimeout(bad));
            assertTrue(e.getMessage().startsWith("p.idleTimeout: " + bad + " (accepted: > 0 and at most PT24H)"),
                    e.getMessage());
        }
    }

    /** Waits until the broker holds no connection to the partner: well before the default idle timeout (30 s). */
    private static void awaitNoConnection(BrokerClient broker) throws InterruptedException {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (broker.stats("p").connectionsOpen() > 0) {
            assertTrue(System.nanoTime() - giveUp < 0, "the idle connection was not closed: " + broker.stats("p"));
            Thread.sleep(20);
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void aCallLongerThanTheIdleTimeoutIsAnswered(Wire wire) throws Exception {
        BrokerClient broker = broker(wire, Duration.ofSeconds(20));
        try {
            Outcome slow = call(broker, "/stub?delay=" + SLOW_MILLIS);
            assertEquals(Outcome.Kind.OK, slow.kind(), slow + " " + slow.failure());
            assertEquals(200, slow.status());
        } finally {
            broker.stop();
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void aKeptConnectionIdlePastTheIdleTimeoutIsClosed(Wire wire) throws Exception {
        BrokerClient broker = broker(wire, Duration.ofSeconds(1));
        try {
            Outcome first = call(broker, "/stub");
            assertEquals(Outcome.Kind.OK, first.kind(), first + " " + first.failure());
            awaitNoConnection(broker);
            Outcome second = call(broker, "/stub");
            assertEquals(Outcome.Kind.OK, second.kind(), "a new connection is opened: " + second.failure());
            assertTrue(broker.stats("p").connectionsOpen() <= 1, broker.stats("p").toString());
        } finally {
            broker.stop();
        }
    }
}
