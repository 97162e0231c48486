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
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The apps listener's HTTPS side: the HTTPS connector (SNI picks each certificate), and the handler in front of the
 * router (ACME challenges, redirects, HSTS). Inside the server it serves the certificate loop's certificates; in the
 * edge process, what the server sent it last ({@link #apply}), so it keeps serving while no server runs.
 */
public final class TlsEdge implements Edge {
    private final BoundPort port;
    private final Certificates certificates;
    private final ChallengeAnswers answers;
    private final AlpnChallenges challenges;
    private final Predicate<String> hsts;
    /** The edge process's HSTS hosts, as the server sent them. */
    private volatile Set<String> sentHsts = Set.of();

    TlsEdge(BoundPort port, Certificates certificates, ChallengeAnswers answers, Predicate<String> hsts) {
        this.port = port;
        this.certificates = certificates;
        this.answers = answers;
        this.challenges = new AlpnChallenges(answers);
        this.hsts = hsts != null ? hsts : h -> sentHsts.contains(h);
    }

    /** The edge process's: serves nothing until the server sends what to serve; challenges are asked of the server. */
    public static TlsEdge remote(BoundPort port, String appsDomain, ChallengeAnswers answers) {
        return new TlsEdge(port, new Certificates(appsDomain, null), answers, null);
    }

    /** What the server sent: from the next handshake on, these certificates and HSTS hosts. */
    public void apply(TlsState state) {
        certificates.apply(state);
        sentHsts = Set.copyOf(state.hsts());
    }

    public int port() {
        return port.port();
    }

    @Override
    public Handler wrap(Handler router) {
        return new EdgeHandler(router, answers, certificates, hsts, port.port());
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
                engine.setHandshakeApplicationProtocolSelector(TlsEdge::protocol);
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
}
