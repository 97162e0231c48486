package dev.slipway.tls;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.List;

/** PEM text of certificate chains and private keys, both ways. */
final class Pem {
    private Pem() {}

    static List<X509Certificate> chain(String pem) {
        try {
            List<X509Certificate> out = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)))
                    .stream().map(c -> (X509Certificate) c).toList();
            if (out.isEmpty()) throw new IllegalArgumentException("no certificate in the PEM text");
            return out;
        } catch (CertificateException e) {
            throw new IllegalArgumentException("not a PEM certificate chain: " + e.getMessage(), e);
        }
    }

    static String chain(List<X509Certificate> chain) {
        StringBuilder out = new StringBuilder();
        for (X509Certificate c : chain) {
            try {
                out.append("-----BEGIN CERTIFICATE-----\n")
                        .append(Base64.getMimeEncoder(64, new byte[]{'\n'}).encodeToString(c.getEncoded()))
                        .append("\n-----END CERTIFICATE-----\n");
            } catch (CertificateEncodingException e) {
                throw new IllegalStateException("a certificate cannot be encoded", e);
            }
        }
        return out.toString();
    }

    /** A PKCS#8, PKCS#1 (RSA) or SEC1 (EC) private key, made by the JDK's own key factories. */
    static PrivateKey privateKey(String pem) {
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
                if (o instanceof PEMKeyPair pair) return pkcs8(pair.getPrivateKeyInfo().getEncoded());
                if (o instanceof PrivateKeyInfo info) return pkcs8(info.getEncoded());
            }
            throw new IllegalArgumentException("no private key in the PEM text");
        } catch (IOException e) {
            throw new IllegalArgumentException("not a PEM private key: " + e.getMessage(), e);
        }
    }

    static String privateKey(PrivateKey key) {
        return "-----BEGIN PRIVATE KEY-----\n" + Base64.getMimeEncoder(64, new byte[]{'\n'}).encodeToString(key.getEncoded())
                + "\n-----END PRIVATE KEY-----\n";
    }

    private static PrivateKey pkcs8(byte[] der) {
        for (String algorithm : List.of("EC", "RSA", "Ed25519")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // try the next kind
            }
        }
        throw new IllegalArgumentException("the private key is neither EC, RSA nor Ed25519");
    }

    /** A fresh P-256 key pair (certificates and ACME accounts). */
    static KeyPair newKeyPair() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"));
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("no P-256 key pair generator", e);
        }
    }

    /** An EC key pair as stored text: base64 PKCS#8 private key, ':', base64 X.509 public key. */
    static String keyPair(KeyPair pair) {
        return Base64.getEncoder().encodeToString(pair.getPrivate().getEncoded()) + ":"
                + Base64.getEncoder().encodeToString(pair.getPublic().getEncoded());
    }

    static KeyPair keyPair(String stored) {
        int colon = stored.indexOf(':');
        try {
            KeyFactory ec = KeyFactory.getInstance("EC");
            return new KeyPair(ec.generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(stored.substring(colon + 1)))),
                    ec.generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(stored.substring(0, colon)))));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalStateException("a stored key pair cannot be read", e);
        }
    }
}
