package dev.slipway.tls;

import java.nio.charset.StandardCharsets;
import javax.net.ssl.X509TrustManager;
import org.shredzone.acme4j.AccountBuilder;
import org.shredzone.acme4j.Authorization;
import org.shredzone.acme4j.Login;
import org.shredzone.acme4j.Order;
import org.shredzone.acme4j.Problem;
import org.shredzone.acme4j.Session;
import org.shredzone.acme4j.Status;
import org.shredzone.acme4j.challenge.Http01Challenge;
import org.shredzone.acme4j.challenge.TlsAlpn01Challenge;
import org.shredzone.acme4j.challenge.TokenChallenge;
import org.shredzone.acme4j.connector.NetworkSettings;
import org.shredzone.acme4j.exception.AcmeException;
import org.shredzone.acme4j.provider.GenericAcmeProvider;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Orders one domain's certificate from the ACME CA (RFC 8555) with acme4j, proving control by HTTP-01 or
 * TLS-ALPN-01 ({@link TlsSettings#challenge()}): the key authorization goes into the store, where the apps
 * listener (HTTP-01) or the apps HTTPS listener ({@link AlpnChallenges}) of any server answers the CA.
 */
final class AcmeIssuer {
    /** How long the CA has to validate, and then to sign. */
    private static final Duration WAIT = Duration.ofSeconds(90);

    /** A certificate as stored: its chain and key as PEM text. */
    record Issued(String chainPem, String keyPem, String serial, Instant expiresAt) {}

    private final TlsSettings settings;
    private final CertificateStore store;
    private final GenericAcmeProvider provider;

    AcmeIssuer(TlsSettings settings, CertificateStore store) {
        this.settings = settings;
        this.store = store;
        this.provider = settings.caPem() == null ? new GenericAcmeProvider() : new TrustingProvider(sslContext(settings.caPem()));
    }

    Issued issue(String domain) throws AcmeException, InterruptedException {
        Session session = new Session(URI.create(settings.directoryUrl()), provider);
        Login login = login(session);
        Order order = login.newOrder().domain(domain).create();
        for (Authorization auth : order.getAuthorizations()) {
            if (auth.getStatus() == Status.VALID) continue;
            boolean alpn = TlsSettings.TLS_ALPN_01.equals(settings.challenge());
            TokenChallenge challenge = alpn
                    ? auth.<TlsAlpn01Challenge>findChallenge(TlsAlpn01Challenge.TYPE).orElse(null)
                    : auth.<Http01Challenge>findChallenge(Http01Challenge.TYPE).orElse(null);
            if (challenge == null) throw new AcmeException("the CA offers no " + settings.challenge() + " challenge for " + domain);
            // HTTP-01: the apps listener answers the token's path; TLS-ALPN-01: the HTTPS listener, by domain
            String token = challenge instanceof Http01Challenge http ? http.getToken()
                    : CertificateStore.alpnToken(challenge.getAuthorization());
            store.putChallenge(token, domain, challenge.getAuthorization());
            try {
                challenge.trigger();
                Status status = challenge.waitForCompletion(WAIT);
                if (status != Status.VALID) {
                    throw new AcmeException("validation of " + domain + " (" + settings.challenge() + ") failed: "
                            + challenge.getError().map(AcmeIssuer::describe).orElse("status " + status));
                }
            } finally {
                store.removeChallenge(token);
            }
        }
        if (order.waitUntilReady(WAIT) != Status.READY) {
            throw new AcmeException("the order for " + domain + " is not ready: "
                    + order.getError().map(AcmeIssuer::describe).orElse("status " + order.getStatus()));
        }
        KeyPair key = Pem.newKeyPair();
        order.execute(key);
        if (order.waitForCompletion(WAIT) != Status.VALID) {
            throw new AcmeException("the CA did not issue the certificate for " + domain + ": "
                    + order.getError().map(AcmeIssuer::describe).orElse("status " + order.getStatus()));
        }
        List<X509Certificate> chain = order.getCertificate().getCertificateChain();
        X509Certificate leaf = chain.getFirst();
        return new Issued(Pem.chain(chain), Pem.privateKey(key.getPrivate()), leaf.getSerialNumber().toString(16),
                leaf.getNotAfter().toInstant());
    }

    /**
     * The account of this directory, registered once and shared through the store. Registering an existing key
     * again returns its account, so a CA that forgot the account (a test CA restarted) gets it back.
     */
    private Login login(Session session) throws AcmeException {
        String directory = settings.directoryUrl();
        String stored = store.account(directory).map(a -> a[0]).orElse(null);
        KeyPair keys = stored != null ? Pem.keyPair(stored) : Pem.newKeyPair();
        AccountBuilder builder = new AccountBuilder().agreeToTermsOfService().useKeyPair(keys);
        if (settings.email() != null) builder.addEmail(settings.email());
        Login login = builder.createLogin(session);
        if (stored == null) {
            String[] kept = store.saveAccount(directory, Pem.keyPair(keys), login.getAccountLocation().toString());
            if (!kept[0].equals(Pem.keyPair(keys))) {
                login = new AccountBuilder().agreeToTermsOfService().useKeyPair(Pem.keyPair(kept[0])).createLogin(session);
            }
        }
        return login;
    }

    private static String describe(Problem p) {
        return p.getDetail().orElse(p.getTitle().orElse(p.getType().toString()));
    }

    /** The JDK's CAs plus the operator's PEM (e.g. Pebble's, whose ACME endpoint has a test certificate). */
    private static SSLContext sslContext(Path caPem) {
        try {
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            TrustManagerFactory jdk = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            jdk.init((KeyStore) null);
            int n = 0;
            for (var tm : jdk.getTrustManagers()) {
                if (tm instanceof X509TrustManager x) {
                    for (X509Certificate c : x.getAcceptedIssuers()) trust.setCertificateEntry("jdk-" + n++, c);
                }
            }
            try (InputStream in = Files.newInputStream(caPem)) {
                for (X509Certificate c : Pem.chain(new String(in.readAllBytes(), StandardCharsets.US_ASCII))) {
                    trust.setCertificateEntry("extra-" + n++, c);
                }
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("SLIPWAY_ACME_CA_PEM: cannot read " + caPem + ": " + e.getMessage(), e);
        }
    }

    /** The generic provider, with an HTTP client that trusts the extra CA. */
    private static final class TrustingProvider extends GenericAcmeProvider {
        private final SSLContext ssl;

        TrustingProvider(SSLContext ssl) {
            this.ssl = ssl;
        }

        @Override
        public HttpClient createHttpClient(NetworkSettings network) {
            HttpClient.Builder b = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL)
                    .connectTimeout(network.getTimeout()).proxy(network.getProxySelector()).sslContext(ssl);
            if (network.getAuthenticator() != null) b.authenticator(network.getAuthenticator());
            return b.build();
        }
    }
}
