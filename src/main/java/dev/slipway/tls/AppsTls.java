package dev.slipway.tls;

import dev.slipway.net.BoundPort;
import dev.slipway.router.Edge;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.util.Collection;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Automatic HTTPS for the apps: the certificate loop, and what the apps HTTPS listener serves from it. The listener
 * is this server's ({@link #edge()}) or the edge process's, which is sent {@link #state()} whenever its
 * {@link #version()} changes and asks {@link #answers()} for the CA's challenges. Made only when the HTTPS port is
 * configured.
 */
public final class AppsTls implements AutoCloseable {
    private final Certificates certificates;
    private final CertificateManager manager;
    private final ChallengeAnswers answers;
    private final TlsEdge edge;

    private AppsTls(BoundPort port, CertificateStore store, Certificates certificates, CertificateManager manager,
                    Predicate<String> routed) {
        this.certificates = certificates;
        this.manager = manager;
        // the route table learns a domain from the change feed within milliseconds, while this server's own
        // certificate check may not have run since: another server's order is answered here all the same
        Predicate<String> wanted = d -> manager.wants(d) || routed.test(d);
        this.answers = new ChallengeAnswers() {
            @Override
            public Optional<String> http01(String token, String host) {
                return store.challenge(token, host);
            }

            @Override
            public Optional<String> alpn(String domain) {
                String d = domain.toLowerCase(Locale.ROOT);
                return wanted.test(d) ? store.alpnChallenge(d) : Optional.empty();
            }
        };
        this.edge = port == null ? null : new TlsEdge(port, certificates, answers, manager::hsts);
    }

    /**
     * @param port    the HTTPS listener's port, bound in the first phase; null when the edge process serves it
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

    /** The certificate loop's passes so far: a test waits for some to prove that nothing was ordered. */
    public long passes() {
        return manager.passes();
    }

    public Certificates certificates() {
        return certificates;
    }

    /** This server's HTTPS listener and the handler in front of its router; {@link Edge#NONE} when the edge process serves. */
    public Edge edge() {
        return edge == null ? Edge.NONE : edge;
    }

    /** Changes whenever {@link #state()} does. */
    public String version() {
        return certificates.version(manager.hstsHosts());
    }

    /** The certificates with their keys and the HSTS hosts, for the edge process. */
    public TlsState state() {
        return certificates.state(manager.hstsHosts());
    }

    /** The answers to the CA's validation requests, from the store. */
    public ChallengeAnswers answers() {
        return answers;
    }

    @Override
    public void close() {
        manager.close();
    }
}
