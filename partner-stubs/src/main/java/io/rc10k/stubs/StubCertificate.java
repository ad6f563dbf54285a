package io.rc10k.stubs;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A self-signed certificate and its key, made when asked for: what the stubs' HTTPS mode serves, and
 * what a test gives its client to trust (or, made a second time, a certificate it must refuse). Its
 * names are the DNS names and IP addresses it is valid for; a client that verifies host names accepts
 * it only for those.
 *
 * <pre>{@code
 * StubCertificate certificate = StubCertificate.generate("localhost", "127.0.0.1");
 * try (PartnerStubs stubs = PartnerStubs.start(StubOptions.builder().tls(certificate).build())) {
 *     Path trust = certificate.writePem(directory.resolve("stubs.pem"));   // a partner's tls.caFile
 * }
 * }</pre>
 *
 * <p>For tests and demos only: the key lives in memory and the certificate is its own authority.</p>
 */
public final class StubCertificate {
    /** The password of {@link #keyStore()} and of its key: a fixture's, not a secret. */
    public static final String PASSWORD = "partner-stubs";
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    private final List<String> names;
    private final X509Certificate certificate;
    private final KeyStore keyStore;

    private StubCertificate(List<String> names, X509Certificate certificate, KeyStore keyStore) {
        this.names = names;
        this.certificate = certificate;
        this.keyStore = keyStore;
    }

    /**
     * A new key pair (EC P-256) and a certificate for {@code names}, valid from an hour ago for 30 days.
     *
     * @param names DNS names ({@code localhost}) or IP literals ({@code 127.0.0.1}, {@code ::1}); at least one
     */
    public static StubCertificate generate(String... names) {
        if (names.length == 0) {
            throw new IllegalArgumentException("a certificate needs at least one name (accepted: DNS names, IP literals)");
        }
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(256);
            KeyPair pair = generator.generateKeyPair();
            List<GeneralName> alternatives = new ArrayList<>();
            for (String name : names) {
                boolean ip = IPV4.matcher(name).matches() || name.contains(":");
                alternatives.add(new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, name));
            }
            X500Name subject = new X500Name("CN=" + names[0] + ",O=rc10k partner-stubs");
            Instant now = Instant.now();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject,
                    new BigInteger(64, new SecureRandom()), Date.from(now.minus(Duration.ofHours(1))),
                    Date.from(now.plus(Duration.ofDays(30))), subject, pair.getPublic())
                    .addExtension(Extension.subjectAlternativeName, false,
                            new GeneralNames(alternatives.toArray(GeneralName[]::new)))
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
                            new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
            X509Certificate certificate = new JcaX509CertificateConverter()
                    .getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));
            KeyStore keyStore = KeyStore.getInstance("PKCS12");
            keyStore.load(null, null);
            keyStore.setKeyEntry("stub", pair.getPrivate(), PASSWORD.toCharArray(), new Certificate[] {certificate});
            return new StubCertificate(List.of(names), certificate, keyStore);
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException("cannot generate a certificate for " + List.of(names) + ": " + e, e);
        }
    }

    /** The names it is valid for, as given. */
    public List<String> names() {
        return names;
    }

    public X509Certificate certificate() {
        return certificate;
    }

    /** PKCS#12, in memory: the key and certificate, both under {@link #PASSWORD}. */
    public KeyStore keyStore() {
        return keyStore;
    }

    /**
     * A TLS context that trusts this certificate and nothing else, for a test's own client:
     * {@code clientContext().getSocketFactory().createSocket(host, port)}.
     */
    public SSLContext clientContext() {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("stub", certificate);
            TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trustManagers.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot trust " + this + ": " + e, e);
        }
    }

    /** The certificate in PEM form: what a client that should trust it reads. */
    public String pem() {
        try {
            String base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                    .encodeToString(certificate.getEncoded());
            return "-----BEGIN CERTIFICATE-----\n" + base64 + "\n-----END CERTIFICATE-----\n";
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot encode " + certificate.getSubjectX500Principal(), e);
        }
    }

    /** Writes {@link #pem()} to {@code file} (replacing it) and returns it. */
    public Path writePem(Path file) throws IOException {
        Files.writeString(file, pem(), StandardCharsets.US_ASCII);
        return file;
    }

    /**
     * Writes {@link #keyStore()} to {@code file} (PKCS#12 under {@link #PASSWORD}) and returns it: a
     * client certificate a partner's {@code tls.keyStore} can name.
     */
    public Path writeKeyStore(Path file) throws IOException {
        try (var out = Files.newOutputStream(file)) {
            keyStore.store(out, PASSWORD.toCharArray());
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot write the key store " + file + ": " + e, e);
        }
        return file;
    }

    @Override
    public String toString() {
        return "StubCertificate" + names;
    }
}
