package dev.slipway.tls;

import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.X509ExtendedKeyManager;
import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;

/**
 * Chooses the apps HTTPS listener's certificate by the SNI name of each handshake, from {@link Certificates}.
 * No SNI name: the operator's wildcard, if any. A name without a certificate fails the handshake. A handshake
 * whose negotiated protocol is {@code acme-tls/1} (an ACME CA validating TLS-ALPN-01) gets the challenge's
 * certificate instead, from {@link AlpnChallenges}.
 */
final class SniKeyManager extends X509ExtendedKeyManager {
    private final Certificates certificates;
    private final AlpnChallenges challenges;

    SniKeyManager(Certificates certificates, AlpnChallenges challenges) {
        this.certificates = certificates;
        this.challenges = challenges;
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return engine == null ? null : choose(keyType, engine.getHandshakeSession(), engine.getHandshakeApplicationProtocol());
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return socket instanceof SSLSocket s ? choose(keyType, s.getHandshakeSession(), s.getHandshakeApplicationProtocol()) : null;
    }

    private String choose(String keyType, SSLSession session, String protocol) {
        Certificates.Entry e = AlpnChallenges.PROTOCOL.equals(protocol) ? challenges.forDomain(sniName(session))
                : certificates.forHost(sniName(session));
        return e != null && e.keyType().equalsIgnoreCase(keyType) ? e.alias() : null;
    }

    private static String sniName(SSLSession session) {
        if (!(session instanceof ExtendedSSLSession extended)) return null;
        for (SNIServerName name : extended.getRequestedServerNames()) {
            if (name instanceof SNIHostName host) return host.getAsciiName();
        }
        return null;
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        Certificates.Entry e = entry(alias);
        return e == null ? null : e.chain().toArray(X509Certificate[]::new);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        Certificates.Entry e = entry(alias);
        return e == null ? null : e.key();
    }

    private Certificates.Entry entry(String alias) {
        Certificates.Entry e = certificates.byAlias(alias);
        return e != null ? e : challenges.byAlias(alias);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return null;
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return null;
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        return null;
    }
}
