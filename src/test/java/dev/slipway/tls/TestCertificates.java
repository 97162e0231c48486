package dev.slipway.tls;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;

/**
 * An operator's wildcard certificate for {@code *.localhost}, made by a test CA of its own, written as the PEM
 * files SLIPWAY_APPS_TLS_CERT and _KEY name; and HTTPS connections that trust that CA alone.
 *
 * @param leafKey the leaf's key pair
 */
public record TestCertificates(X509Certificate ca, X509Certificate leaf, KeyPair leafKey, Path cert, Path key) {

    /** The CA, and {@code *.localhost} signed by it, written to {@code dir}/cert.pem and key.pem. */
    public static TestCertificates wildcardLocalhost(Path dir) throws Exception {
        KeyPair caKey = Pem.newKeyPair();
        X509Certificate ca = certificate(new X500Name("CN=operator test CA"), caKey, new X500Name("CN=operator test CA"),
                caKey, true, null);
        KeyPair leafKey = Pem.newKeyPair();
        X509Certificate leaf = certificate(new X500Name("CN=*.localhost"), leafKey, new X500Name("CN=operator test CA"),
                caKey, false, "*.localhost");
        Path cert = dir.resolve("cert.pem");
        Path key = dir.resolve("key.pem");
        Files.writeString(cert, Pem.chain(List.of(leaf, ca)));
        Files.writeString(key, Pem.privateKey(leafKey.getPrivate()));
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------")); // the server refuses a key others may read
        return new TestCertificates(ca, leaf, leafKey, cert, key);
    }

    static X509Certificate certificate(X500Name subject, KeyPair key, X500Name issuer, KeyPair issuerKey,
                                       boolean ca, String dnsName) throws Exception {
        Instant now = Instant.now();
        var b = new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(now.toEpochMilli() + (ca ? 0 : 1)),
                Date.from(now.minusSeconds(60)), Date.from(now.plus(Duration.ofDays(2))), subject, key.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
        if (dnsName != null) {
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName(GeneralName.dNSName, dnsName)));
        }
        return new JcaX509CertificateConverter().getCertificate(
                b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey.getPrivate())));
    }

    /**
     * A TLS connection to loopback {@code port} from {@code from} (null: any), SNI {@code host}, trusting this CA
     * only; the handshake is not made yet.
     */
    public SSLSocket connect(int port, String host, InetAddress from) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        trust.setCertificateEntry("root", ca);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        Socket plain = new Socket();
        try {
            if (from != null) plain.bind(new InetSocketAddress(from, 0));
            plain.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            plain.setSoTimeout(15_000);
        } catch (IOException e) {
            plain.close();
            throw e;
        }
        SSLSocket socket = (SSLSocket) ssl.getSocketFactory().createSocket(plain, host, port, true);
        SSLParameters params = socket.getSSLParameters();
        params.setServerNames(List.of(new SNIHostName(host)));
        params.setEndpointIdentificationAlgorithm("HTTPS");
        socket.setSSLParameters(params);
        return socket;
    }
}
