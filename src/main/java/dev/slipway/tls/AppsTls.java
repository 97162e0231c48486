package dev.slipway.tls;

import dev.slipway.net.BoundPort;
import dev.slipway.router.Edge;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Automatic HTTPS for the apps listener: the HTTPS connector (SNI picks each certificate), the edge handler
 * (ACME challenges, redirects, HSTS) and the certificate loop. Made only when the HTTPS port is configured.
 */
public final class AppsTls implements Edge, AutoCloseable {
    private final BoundPort port;
    private final CertificateStore store;
    private final Certificates certificates;
    private final CertificateManager manager;
    private final AlpnChallenges challenges;

    private AppsTls(BoundPort port, CertificateStore store, Certificates certificates, CertificateManager manager,
                    Predicate<String> routed) {
        this.port = port;
        this.store = store;
        this.certificates = certificates;
        this.manager = manager;
        // the route table learns a domain from the change feed within milliseconds, while this server's own
        // certificate check may not have run since: another server's order is answered here all the same
        this.challenges = new AlpnChallenges(store, d -> manager.wants(d) || routed.test(d));
    }

    /**
     * @param port    the HTTPS listener's port, bound in the first phase
     * @param domains the domains that get certificates from the ACME CA
     * @param routed  whether a domain is one of those and served here now (the route table, which the change feed
     *                keeps in step with other servers)
     */
    public static AppsTls create(TlsSettings settings, BoundPort port, String appsDomain, CertificateStore store,
                                 Supplier<Collection<String>> domains, Predicate<String> routed, String node, Clock clock) {
        Certificates certificates = new Certificates(appsDomain, wildcard(settings));
        CertificateManager manager = new CertificateManager(settings, store, certificates, domains, appsDomain, node, clock);
        return new AppsTls(port, store, certificates, manager, routed);
    }

    private static Certificates.Entry wildcard(TlsSettings settings) {
        if (settings.wildcardCert() == null) return null;
        try {
            return new Certificates.Entry("*wildcard", Pem.chain(Files.readString(settings.wildcardCert(), StandardCharsets.US_ASCII)),
                    Pem.privateKey(Files.readString(settings.wildcardKey(), StandardCharsets.US_ASCII)));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("the apps TLS certificate (" + settings.wildcardCert() + ", "
                    + settings.wildcardKey() + ") cannot be read: " + e.getMessage(), e);
        }
    }

    /** Starts the certificate loop (after the apps listener, which answers the CA's challenges). */
    public void start() {
        manager.start();
    }

    public int port() {
        return port.port();
    }

    /** The certificate loop's passes so far: a test waits for some to prove that nothing was ordered. */
    public long passes() {
        return manager.passes();
    }

    public Certificates certificates() {
        return certificates;
    }

    @Override
    public Handler wrap(Handler router) {
        return new EdgeHandler(router, store, certificates, manager::hsts, port.port());
    }

    @Override
    public boolean takesPlain(String hostHeader, String target) {
        if (target.startsWith(EdgeHandler.CHALLENGE_PREFIX)) return true;
        String host = EdgeHandler.host(hostHeader);
        return host != null && certificates.covers(host);
    }

    @Override
    public void connect(Server server, HttpConfiguration http) {
        SslContextFactory.Server ssl = new SslContextFactory.Server() {
            @Override
            public void customize(SSLEngine engine) {
                super.customize(engine);
                engine.setHandshakeApplicationProtocolSelector(AppsTls::protocol);
            }
        };
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(new KeyManager[]{new SniKeyManager(certificates, challenges)}, null, null);
            ssl.setSslContext(context);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("no TLS implementation: " + e.getMessage(), e);
        }
        HttpConfiguration https = new HttpConfiguration(http);
        SecureRequestCustomizer secure = new SecureRequestCustomizer();
        secure.setSniHostCheck(false); // the certificate was chosen by SNI; the Host picks the app as over HTTP
        secure.setSniRequired(false);
        https.addCustomizer(secure);
        ServerConnector connector = port.connector(server, new SslConnectionFactory(ssl, "http/1.1"), new HttpConnectionFactory(https));
        connector.setIdleTimeout(server.getConnectors().length > 0 && server.getConnectors()[0] instanceof ServerConnector c
                ? c.getIdleTimeout() : 30_000);
        server.addConnector(connector);
    }

    /**
     * ALPN: {@code acme-tls/1} when offered (an ACME CA validating TLS-ALPN-01 offers only that, RFC 8737 §3),
     * else none at all: the listener speaks HTTP/1.1 whatever a browser offers.
     */
    private static String protocol(SSLEngine engine, List<String> offered) {
        return offered.contains(AlpnChallenges.PROTOCOL) ? AlpnChallenges.PROTOCOL : "";
    }

    @Override
    public void close() {
        manager.close();
    }
}
