package io.rc10k.broker;

import java.nio.file.Path;

/**
 * How an {@code https} partner's certificate is checked and which certificate we show it. The default
 * trusts what the JDK trusts, checks that the certificate is for the partner's host, and shows none;
 * TLS 1.2 and 1.3 only, with sessions resumed on new connections (the JDK's session cache). Paths are
 * read when the client starts; passwords never appear in {@link #toString()}.
 *
 * <pre>{@code
 * PartnerTls tls = PartnerTls.DEFAULT
 *         .withCaFile(Path.of("/etc/rc10k/partner-ca.pem"))
 *         .withClientCertificate(Path.of("/etc/rc10k/client.p12"), password);
 * }</pre>
 *
 * @param caFile             PEM certificates to trust instead of the JDK's, or null
 * @param trustStore         a PKCS#12 or JKS trust store to trust instead of the JDK's, or null
 * @param trustStorePassword its password, or null
 * @param keyStore           a PKCS#12 or JKS key store holding the client certificate to show, or null
 * @param keyStorePassword   its password (and its key's), or null
 * @param verifyHostname     false accepts a trusted certificate for any host: for tests only, logged as a warning
 */
public record PartnerTls(Path caFile, Path trustStore, String trustStorePassword, Path keyStore, String keyStorePassword,
        boolean verifyHostname) {
    public static final PartnerTls DEFAULT = new PartnerTls(null, null, null, null, null, true);

    public PartnerTls {
        if (caFile != null && trustStore != null) {
            throw new IllegalArgumentException("tls: caFile and trustStore both given (accepted: one of them)");
        }
    }

    public PartnerTls withCaFile(Path pem) {
        return new PartnerTls(pem, trustStore, trustStorePassword, keyStore, keyStorePassword, verifyHostname);
    }

    public PartnerTls withTrustStore(Path store, String password) {
        return new PartnerTls(caFile, store, password, keyStore, keyStorePassword, verifyHostname);
    }

    public PartnerTls withClientCertificate(Path store, String password) {
        return new PartnerTls(caFile, trustStore, trustStorePassword, store, password, verifyHostname);
    }

    /** Accepts a trusted certificate whatever host it names. For tests only: the client logs a warning at start. */
    public PartnerTls withoutHostnameVerification() {
        return new PartnerTls(caFile, trustStore, trustStorePassword, keyStore, keyStorePassword, false);
    }

    @Override
    public String toString() {
        return "Tls{" + (caFile != null ? "caFile=" + caFile : trustStore != null ? "trustStore=" + trustStore
                : "JDK trust") + (keyStore != null ? ", keyStore=" + keyStore : "")
                + (verifyHostname ? "" : ", hostname NOT verified") + "}";
    }
}
