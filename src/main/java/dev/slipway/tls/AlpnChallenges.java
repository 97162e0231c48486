package dev.slipway.tls;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * TLS-ALPN-01 (RFC 8737) on the apps HTTPS listener: a handshake that offers only {@code acme-tls/1} for a
 * domain whose challenge is in flight gets a self-signed certificate for that domain carrying the SHA-256 of
 * the challenge's key authorization. The key authorization is in the store, so whichever server the CA
 * reaches answers ({@link ChallengeAnswers#alpn}, which asks the store only for domains that get certificates, so a
 * stranger's handshakes with made-up names cost no query).
 */
final class AlpnChallenges {
    static final String PROTOCOL = "acme-tls/1";
    private static final ASN1ObjectIdentifier ACME_IDENTIFIER = new ASN1ObjectIdentifier("1.3.6.1.5.5.7.1.31");

    private final ChallengeAnswers answers;
    /** Made certificates by domain and key authorization: the CA may validate more than once. */
    private final Map<String, Certificates.Entry> made = new ConcurrentHashMap<>();

    AlpnChallenges(ChallengeAnswers answers) {
        this.answers = answers;
    }

    /** The challenge certificate for {@code domain} now; null when no challenge is in flight for it. */
    Certificates.Entry forDomain(String domain) {
        if (domain == null) return null;
        String d = domain.toLowerCase(Locale.ROOT);
        String keyAuthorization = answers.alpn(d).orElse(null);
        if (keyAuthorization == null) return null;
        byte[] digest = sha256(keyAuthorization);
        String alias = PROTOCOL + ":" + d + ":" + HexFormat.of().formatHex(digest, 0, 8);
        if (made.size() > 1000) made.clear(); // one per challenge in flight; never grows without bound
        return made.computeIfAbsent(alias, a -> make(a, d, digest));
    }

    Certificates.Entry byAlias(String alias) {
        return alias == null ? null : made.get(alias);
    }

    /** Self-signed, for {@code domain} only, with the critical id-pe-acmeIdentifier extension (RFC 8737 §3). */
    private static Certificates.Entry make(String alias, String domain, byte[] digest) {
        try {
            KeyPair keys = Pem.newKeyPair();
            X500Name name = new X500Name("CN=acme-tls-alpn-01 challenge");
            Instant now = Instant.now();
            var builder = new JcaX509v3CertificateBuilder(name, new BigInteger(64, new SecureRandom()),
                    Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(7))), name, keys.getPublic());
            builder.addExtension(Extension.subjectAlternativeName, false,
                    new GeneralNames(new GeneralName(GeneralName.dNSName, domain)));
            builder.addExtension(ACME_IDENTIFIER, true, new DEROctetString(digest));
            X509Certificate cert = new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
            return new Certificates.Entry(alias, List.of(cert), keys.getPrivate());
        } catch (IOException | GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot make the tls-alpn-01 certificate for " + domain + ": " + e.getMessage(), e);
        }
    }

    static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
