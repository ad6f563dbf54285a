package io.rc10k.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rc10k.stubs.PartnerStubs;
import io.rc10k.stubs.StubCertificate;
import io.rc10k.stubs.StubOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * https partners over real TLS on loopback: stubs serving a certificate made for the test, HTTP/1.1 and
 * h2 agreed by ALPN, and the handshakes that must fail — a certificate nobody trusts, one for another
 * host, a client certificate the partner demands and is not shown — each ending TLS_FAILED at once.
 */
class HttpsPartnerTest {
    @TempDir
    static Path files;
    private static StubCertificate certificate;
    private static PartnerStubs stubs;
    /** Asks for a client certificate made for the test. */
    private static PartnerStubs mutual;
    private static StubCertificate client;
    private static Path trusted;

    @BeforeAll
    static void start() throws Exception {
        certificate = StubCertificate.generate("localhost", "127.0.0.1");
        trusted = certificate.writePem(files.resolve("stubs.pem"));
        stubs = PartnerStubs.start(StubOptions.builder().tls(certificate).build());
        client = StubCertificate.generate("rc10k-client");
        mutual = PartnerStubs.start(StubOptions.builder().tls(certificate).clientAuthority(client).build());
    }

    @AfterAll
    static void stop() {
        stubs.close();
        mutual.close();
    }

    private static Partner.Builder partner(String name, PartnerStubs stubs) {
        return Partner.builder(name, stubs.uri().toString()).retries(1)
                .tls(PartnerTls.DEFAULT.withCaFile(trusted));
    }

    @Test
    void aFanOutCallsHttpsPartnersOverHttp11AndOverH2AgreedByAlpn() throws Exception {
        assertEquals("https", stubs.uri().getScheme());
        BrokerClient broker = BrokerClient.builder()
                .partner(partner("one", stubs).build())
                .partner(partner("two", stubs).protocol(Protocol.H2).maxConnections(1).build())
                .build();
        broker.start();
        try {
            FanOutResult result = broker.fanOut(Duration.ofSeconds(10))
                    .add(Call.to("one").path("/echo?via=one").build())
                    .add(Call.to("two").path("/echo?via=two").build())
                    .add(Call.to("two").path("/weather?city=Oslo").build())
                    .start().toCompletableFuture().get(30, TimeUnit.SECONDS);
            List<Outcome> outcomes = result.outcomes();
            outcomes.forEach(o -> assertEquals(Outcome.Kind.OK, o.kind(), o + " " + o.failure()));
            assertTrue(outcomes.get(0).bodyAsString().contains("\"protocol\":\"HTTP/1.1\",\"secure\":true"),
                    outcomes.get(0).bodyAsString());
            assertTrue(outcomes.get(1).bodyAsString().contains("\"protocol\":\"HTTP/2.0\",\"secure\":true"),
                    outcomes.get(1).bodyAsString());
            assertTrue(outcomes.get(2).bodyAsString().contains("Oslo"), outcomes.get(2).bodyAsString());
        } finally {
            broker.stop();
        }
    }

    @Test
    void aCertificateNobodyTrustedEndsTheCallTlsFailedWithoutARetry() throws Exception {
        // The JDK's own trust store: it has never heard of a certificate made a moment ago.
        for (Protocol protocol : List.of(Protocol.HTTP_1_1, Protocol.H2)) {
            Outcome outcome = callOnce(Partner.builder("jdk-trust", stubs.uri().toString()).protocol(protocol)
                    .retries(3).build());
            assertEquals(Outcome.Kind.TLS_FAILED, outcome.kind(), protocol + ": " + outcome.failure());
            assertEquals(1, outcome.attempts(), "a handshake that failed is not tried again");
        }
        Outcome other = callOnce(Partner.builder("other-ca", stubs.uri().toString())
                .tls(PartnerTls.DEFAULT.withCaFile(StubCertificate.generate("localhost", "127.0.0.1")
                        .writePem(files.resolve("other.pem")))).build());
        assertEquals(Outcome.Kind.TLS_FAILED, other.kind(), String.valueOf(other.failure()));
    }

    @Test
    void aTrustedCertificateForAnotherHostIsRefusedUnlessHostNamesAreNotVerified() throws Exception {
        StubCertificate elsewhere = StubCertificate.generate("partner.example");
        try (PartnerStubs misnamed = PartnerStubs.start(StubOptions.builder().tls(elsewhere).build())) {
            PartnerTls trustIt = PartnerTls.DEFAULT.withCaFile(elsewhere.writePem(files.resolve("elsewhere.pem")));
            Outcome refused = callOnce(Partner.builder("misnamed", misnamed.uri().toString()).tls(trustIt).build());
            assertEquals(Outcome.Kind.TLS_FAILED, refused.kind(), String.valueOf(refused.failure()));

            Outcome accepted = callOnce(Partner.builder("misnamed", misnamed.uri().toString())
                    .tls(trustIt.withoutHostnameVerification()).build());
            assertEquals(Outcome.Kind.OK, accepted.kind(), String.valueOf(accepted.failure()));
        }
    }

    @Test
    void aPartnerThatDemandsAClientCertificateGetsTheOneConfigured() throws Exception {
        Outcome without = callOnce(partner("mutual", mutual).build());
        // TLS 1.3 may report the refusal after the handshake seemed done: either way nothing was answered.
        assertTrue(without.kind() == Outcome.Kind.TLS_FAILED || without.kind() == Outcome.Kind.RESET,
                without.kind() + " " + without.failure());

        Path keyStore = client.writeKeyStore(files.resolve("client.p12"));
        Outcome with = callOnce(Partner.builder("mutual", mutual.uri().toString())
                .tls(PartnerTls.DEFAULT.withCaFile(trusted).withClientCertificate(keyStore, StubCertificate.PASSWORD))
                .build());
        assertEquals(Outcome.Kind.OK, with.kind(), String.valueOf(with.failure()));
    }

    @Test
    void tlsSettingsThatCannotWorkAreRefusedWhenThePartnerIsBuilt() throws Exception {
        String base = stubs.uri().toString();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Partner.builder("p", base)
                .tls(PartnerTls.DEFAULT.withCaFile(files.resolve("missing.pem"))).build())
                .getMessage().contains("p.tls.caFile: " + files.resolve("missing.pem") + " does not exist"));
        Path notPem = Files.writeString(files.resolve("not.pem"), "hello");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Partner.builder("p", base)
                .tls(PartnerTls.DEFAULT.withCaFile(notPem)).build())
                .getMessage().startsWith("p.tls.caFile: " + notPem));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Partner.builder("p", base)
                .protocol(Protocol.H2C).build())
                .getMessage().contains("h2c is cleartext"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Partner.builder("p", "http://127.0.0.1:1")
                .tls(PartnerTls.DEFAULT.withCaFile(trusted)).build())
                .getMessage().contains("only with https"));
        Path keyStore = client.writeKeyStore(files.resolve("wrong-password.p12"));
        String refused = assertThrows(IllegalArgumentException.class, () -> Partner.builder("p", base)
                .tls(PartnerTls.DEFAULT.withClientCertificate(keyStore, "not-the-password")).build()).getMessage();
        assertTrue(refused.startsWith("p.tls.keyStore: " + keyStore), refused);
        assertTrue(!refused.contains("not-the-password"), refused);
        // h2 on an http partner is h2c: no ALPN to agree on it without TLS.
        assertEquals(Protocol.H2C, Partner.builder("p", "http://127.0.0.1:1").protocol(Protocol.H2)
                .build().protocol());
    }

    @Test
    void partnerFaultsEndTheCallAsTheyDoInCleartext() throws Exception {
        List<String> faults = List.of("fault=reset", "fault=close-mid-body", "fault=stall-after-headers",
                "fault=stall", "delay=5000", "bytes=70000", "status=503", "fault=drip&bytes=64");
        try (PartnerStubs cleartext = PartnerStubs.start(StubOptions.builder().h2c(true).build())) {
            BrokerClient broker = BrokerClient.builder()
                    .partner(faulty("h1", cleartext, Protocol.HTTP_1_1, null))
                    .partner(faulty("h2c", cleartext, Protocol.H2C, null))
                    .partner(faulty("tls-h1", stubs, Protocol.HTTP_1_1, trusted))
                    .partner(faulty("tls-h2", stubs, Protocol.H2, trusted))
                    .build();
            broker.start();
            try {
                for (String fault : faults) {
                    List<Outcome.Kind> kinds = new java.util.ArrayList<>();
                    for (String partner : List.of("h1", "h2c", "tls-h1", "tls-h2")) {
                        kinds.add(broker.send(Call.to(partner).path("/stub?" + fault).build()).await().kind());
                    }
                    assertEquals(kinds.get(0), kinds.get(2), fault + ": HTTP/1.1 in cleartext and over TLS " + kinds);
                    assertEquals(kinds.get(1), kinds.get(3), fault + ": h2c and h2 " + kinds);
                }
            } finally {
                broker.stop();
            }
        }
    }

    /** Short limits, so that the stalls and the delay end at the call timeout, and the 70,000 bytes are too many. */
    private static Partner faulty(String name, PartnerStubs stubs, Protocol protocol, Path ca) {
        Partner.Builder partner = Partner.builder(name, stubs.uri().toString()).protocol(protocol).retries(0)
                .callTimeout(Duration.ofMillis(1_500)).maxResponseBytes(65_536)
                .circuitBreaker(CircuitBreakerSettings.DISABLED);
        return (ca == null ? partner : partner.tls(PartnerTls.DEFAULT.withCaFile(ca))).build();
    }

    private static Outcome callOnce(Partner partner) throws Exception {
        BrokerClient broker = BrokerClient.builder().partner(partner).build();
        broker.start();
        try {
            return broker.send(Call.to(partner.name()).path("/stub").build()).await();
        } finally {
            broker.stop();
        }
    }
}
