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
 * No SNI name: the operator's wildcard, if any. A name without a certificate fails the handshake.
 */
final class SniKeyManager extends X509ExtendedKeyManager {
    private final Certificates certificates;

    SniKeyManager(Certificates certificates) {
        this.certificates = certificates;
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return choose(keyType, engine == null ? null : engine.getHandshakeSession());
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return choose(keyType, socket instanceof SSLSocket s ? s.getHandshakeSession() : null);
    }

    private String choose(String keyType, SSLSession session) {
        Certificates.Entry e = certificates.forHost(sniName(session));
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
        Certificates.Entry e = certificates.byAlias(alias);
        return e == null ? null : e.chain().toArray(X509Certificate[]::new);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        Certificates.Entry e = certificates.byAlias(alias);
        return e == null ? null : e.key();
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
