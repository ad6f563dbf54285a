package io.rc10k.broker.internal;

import io.rc10k.broker.PartnerTls;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * Turns a partner's {@link PartnerTls} into Jetty's client TLS settings: TLS 1.2 and 1.3 only, host
 * names checked unless the settings say otherwise, the trust and key stores they name loaded.
 *
 * <p>Also what checks the files when a partner is built, so a bad CA file is found by {@code --check},
 * not by the first call.</p>
 */
public final class TlsMaterial {
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private TlsMaterial() {
    }

    /**
     * Reads and loads every file {@code tls} names, so that one that is missing or cannot be used fails here,
     * naming the field.
     */
    public static void check(String partner, PartnerTls tls) {
        readable(partner + ".tls.caFile", tls.caFile());
        readable(partner + ".tls.trustStore", tls.trustStore());
        readable(partner + ".tls.keyStore", tls.keyStore());
        trustStore(partner, tls);
        keyStore(partner, tls);
    }

    private static void readable(String field, Path file) {
        if (file != null && !Files.isReadable(file)) {
            throw new IllegalArgumentException(field + ": " + file + (Files.exists(file) ? " cannot be read"
                    : " does not exist"));
        }
    }

    /** A new, unstarted client context for {@code tls}; the client that owns it starts it. */
    public static SslContextFactory.Client sslContextFactory(String owner, PartnerTls tls) {
        SslContextFactory.Client ssl = new SslContextFactory.Client();
        ssl.setIncludeProtocols(PROTOCOLS);
        // Handshakes run on event threads. The JDK's default NativePRNG reads /dev/urandom for every random
        // it gives (a file read on that thread); DRBG reads it once, when the context starts.
        ssl.setSecureRandomAlgorithm("DRBG");
        // "HTTPS": the JDK checks the certificate's names against the host called (RFC 2818); null turns it off.
        ssl.setEndpointIdentificationAlgorithm(tls.verifyHostname() ? "HTTPS" : null);
        KeyStore trust = trustStore(owner, tls);
        if (trust != null) {
            ssl.setTrustStore(trust);
        }
        KeyStore keys = keyStore(owner, tls);
        if (keys != null) {
            ssl.setKeyStore(keys);
            ssl.setKeyStorePassword(tls.keyStorePassword() == null ? "" : tls.keyStorePassword());
            if (tls.keyStorePassword() != null) {
                ssl.setKeyManagerPassword(tls.keyStorePassword());
            }
        }
        return ssl;
    }

    private static KeyStore trustStore(String partner, PartnerTls tls) {
        if (tls.caFile() != null) {
            return certificates(partner + ".tls.caFile", tls.caFile());
        }
        if (tls.trustStore() != null) {
            return load(partner + ".tls.trustStore", tls.trustStore(), tls.trustStorePassword());
        }
        return null;
    }

    private static KeyStore keyStore(String partner, PartnerTls tls) {
        return tls.keyStore() == null ? null : load(partner + ".tls.keyStore", tls.keyStore(), tls.keyStorePassword());
    }

    /** A trust store holding every certificate of a PEM file. */
    private static KeyStore certificates(String field, Path pem) {
        try (InputStream in = Files.newInputStream(pem)) {
            Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509")
                    .generateCertificates(in);
            if (certificates.isEmpty()) {
                throw new IllegalArgumentException(field + ": " + pem + " holds no certificate (accepted: PEM, "
                        + "-----BEGIN CERTIFICATE----- blocks)");
            }
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            int i = 0;
            for (Certificate certificate : certificates) {
                store.setCertificateEntry("ca-" + i++, certificate);
            }
            return store;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(field + ": " + pem + " cannot be read as PEM certificates: "
                    + e.getMessage(), e);
        }
    }

    /** A PKCS#12 or JKS store, its type found from its bytes. */
    private static KeyStore load(String field, Path file, String password) {
        try {
            return KeyStore.getInstance(file.toFile(), password == null ? null : password.toCharArray());
        } catch (IOException | GeneralSecurityException e) {
            // The JDK's message may name the cause (a wrong password); it never holds the password itself.
            throw new IllegalArgumentException(field + ": " + file + " cannot be opened as a PKCS#12 or JKS store: "
                    + e.getMessage(), e);
        }
    }
}
