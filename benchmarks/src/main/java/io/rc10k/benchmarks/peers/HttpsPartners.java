package io.rc10k.benchmarks.peers;

import io.rc10k.benchmarks.capacity.StubProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The partners of an {@link HttpsCost} run: three stub processes — cleartext ({@code --h2c}), HTTPS
 * ({@code --https}, HTTP/1.1 or h2 by ALPN), and HTTPS that declines TLS 1.3 session resumption (its JVM runs with
 * {@code -Djdk.tls.server.disableExtensions=pre_shared_key}, so every handshake with it is a full one) — and a
 * PKCS#12 trust store of the HTTPS ones' certificates, which the servers trust through the JDK's default trust
 * store ({@link #trustingJvmArgs()}).
 *
 * <pre>{@code
 * try (HttpsPartners partners = HttpsPartners.start(stubJar, directory)) {
 *     URI tls = partners.get(HttpsPartners.Kind.TLS).uri();
 * }
 * }</pre>
 */
final class HttpsPartners implements AutoCloseable {
    private static final String TRUST_PASSWORD = "https-cost";

    /** A partner-stubs process: cleartext, HTTPS, or HTTPS without session resumption. */
    enum Kind {
        CLEAR(List.of(), List.of("--h2c")),
        TLS(List.of(), List.of("--https")),
        TLS_FULL(List.of("-Djdk.tls.server.disableExtensions=pre_shared_key"), List.of("--https"));

        final List<String> jvmArgs;
        final List<String> args;

        Kind(List<String> jvmArgs, List<String> args) {
            this.jvmArgs = jvmArgs;
            this.args = args;
        }

        boolean secure() {
            return this != CLEAR;
        }
    }

    private final Map<Kind, StubProcess> stubs = new EnumMap<>(Kind.class);
    private Path trustStore;

    private HttpsPartners() {
    }

    /** Starts every kind of stub on this JVM's java, their certificates and trust store in {@code directory}. */
    static HttpsPartners start(Path jar, Path directory) throws IOException, GeneralSecurityException {
        HttpsPartners partners = new HttpsPartners();
        try {
            List<Path> certificates = new ArrayList<>();
            for (Kind kind : Kind.values()) {
                List<String> args = new ArrayList<>(kind.args);
                if (kind.secure()) {
                    Path pem = directory.resolve(kind.name().toLowerCase(Locale.ROOT) + ".pem");
                    args.addAll(List.of("--cert-out", pem.toString()));
                    certificates.add(pem);
                }
                partners.stubs.put(kind, StubProcess.start(jar, kind.jvmArgs, args));
            }
            partners.trustStore = trustStore(certificates, directory.resolve("trust.p12"));
            return partners;
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            partners.close();
            throw e;
        }
    }

    StubProcess get(Kind kind) {
        return stubs.get(kind);
    }

    /** The JVM options that make a server trust these partners, as it trusts a publicly certified one. */
    List<String> trustingJvmArgs() {
        return List.of("-Djavax.net.ssl.trustStore=" + trustStore, "-Djavax.net.ssl.trustStoreType=PKCS12",
                "-Djavax.net.ssl.trustStorePassword=" + TRUST_PASSWORD);
    }

    /** A PKCS#12 trust store holding every certificate of {@code pems}. */
    private static Path trustStore(List<Path> pems, Path file) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        CertificateFactory x509 = CertificateFactory.getInstance("X.509");
        int i = 0;
        for (Path pem : pems) {
            try (InputStream in = Files.newInputStream(pem)) {
                for (Certificate certificate : x509.generateCertificates(in)) {
                    store.setCertificateEntry("stub-" + i++, certificate);
                }
            }
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, TRUST_PASSWORD.toCharArray());
        }
        return file;
    }

    @Override
    public void close() {
        stubs.values().forEach(StubProcess::close);
    }
}
