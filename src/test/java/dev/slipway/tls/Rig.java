package dev.slipway.tls;

import dev.slipway.accounts.Tier;
import dev.slipway.config.ServerConfig;
import dev.slipway.domains.DomainSettings;
import dev.slipway.router.Target;
import dev.slipway.server.Slipway;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.Http;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.TestStore;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * One HTTPS scenario's world: a DNS server and Pebble on loopback, a fresh store, and Slipway servers on it
 * whose ACME CA is that Pebble (the first server's apps listener answers Pebble's validation requests).
 */
final class Rig implements AutoCloseable {
    final LoopbackDns dns;
    final Pebble pebble;
    final TestStore store;
    final int appsPort;
    /** The first server's HTTPS port when Pebble validates TLS-ALPN-01 there; 0 (any) for HTTP-01. */
    final int httpsPort;
    final List<Slipway> servers = new ArrayList<>();
    /**
     * The first server's ports, held from the moment Pebble is told them until that server binds them: a port picked
     * free and left unbound is one another test's connection or app may take meanwhile (a fresh-clone run saw it).
     */
    private final List<ServerSocket> held;

    private Rig(LoopbackDns dns, Pebble pebble, TestStore store, int appsPort, int httpsPort, List<ServerSocket> held) {
        this.held = new ArrayList<>(held);
        this.dns = dns;
        this.pebble = pebble;
        this.store = store;
        this.appsPort = appsPort;
        this.httpsPort = httpsPort;
    }

    /** Pebble validates HTTP-01 on the first server's apps listener. */
    static Rig start(Dialect kind) throws Exception {
        return start(kind, false);
    }

    /**
     * @param alpn Pebble validates TLS-ALPN-01 on the first server's HTTPS listener, and its HTTP-01 requests go
     *             to a port nobody listens on, so only TLS-ALPN-01 can succeed
     */
    static Rig start(Dialect kind, boolean alpn) throws Exception {
        LoopbackDns dns = LoopbackDns.start();
        List<ServerSocket> held = new ArrayList<>(List.of(hold()));
        if (alpn) held.add(hold());
        int appsPort = held.getFirst().getLocalPort();
        int httpsPort = alpn ? held.get(1).getLocalPort() : 0;
        Pebble pebble;
        try {
            pebble = alpn ? Pebble.start(Pebble.freePort(), httpsPort, dns) : Pebble.start(appsPort, dns);
        } catch (Exception | AssertionError e) {
            dns.close();
            release(held);
            throw e;
        }
        return new Rig(dns, pebble, TestStore.create(kind), appsPort, httpsPort, held);
    }

    private static ServerSocket hold() throws IOException {
        return new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    }

    private static void release(List<ServerSocket> sockets) {
        for (ServerSocket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closed already
            }
        }
        sockets.clear();
    }

    /** The test settings: checks every 200 ms, first retry after 1 s. */
    TlsSettings tls() {
        TlsSettings s = TlsSettings.OFF.withHttpsPort(0).withAcme(pebble.directoryUrl(), pebble.caPem())
                .withTimings(Duration.ofDays(30), Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofMillis(200));
        return httpsPort == 0 ? s : s.withChallenge(TlsSettings.TLS_ALPN_01);
    }

    /** A server on the rig's store; the first one gets the apps port Pebble validates on. */
    Slipway server(Clock clock, UnaryOperator<ServerConfig.Builder> customize) throws Exception {
        Path dir = servers.isEmpty() ? store.dataDir() : Files.createTempDirectory(store.dataDir(), "peer-");
        boolean first = servers.stream().noneMatch(s -> s.appsPort() == appsPort);
        int apps = first ? appsPort : 0;
        TlsSettings tls = first && httpsPort != 0 ? tls().withHttpsPort(httpsPort) : tls();
        ServerConfig config = customize.apply(ServerConfig.builder(dir).environment(System.getenv()).ports(0, apps)
                .databaseUrl(store.jdbcUrl()).secretKey(store.secretKey()).createDefaultAccount(false)
                .allowPrivateTargets(true).tls(tls).domainProof(false)
                .domains(DomainSettings.DEFAULTS.withProof(false).withDnsServers(
                        List.of(new InetSocketAddress("127.0.0.1", dns.port()))))).build();
        if (first) release(held); // the server binds them at once
        Slipway s = Slipway.start(config, clock, new PrintStream(OutputStream.nullOutputStream()));
        servers.add(s);
        return s;
    }

    Slipway server() throws Exception {
        return server(Clock.systemUTC(), c -> c);
    }

    void stop(Slipway s) {
        servers.remove(s);
        s.close();
    }

    static TestServer.Tenant tenant(Slipway s, Tier tier) {
        var account = s.accounts().create("t-" + UUID.randomUUID().toString().substring(0, 12), tier, null);
        String key = s.keys().create(account.id(), "test").secret();
        return new TestServer.Tenant(account, key, new Http("http://127.0.0.1:" + s.apiPort(), key));
    }

    /** A one-page static site served for {@code project} and its domain on server {@code s}. */
    static void route(Slipway s, String project, String domain, String page) throws Exception {
        Path site = Files.createTempDirectory("site-");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> TestStore.deleteTree(site))); // served until the JVM ends
        Files.writeString(site.resolve("index.html"), page);
        s.engine().routes().setProduction(project, new Target.StaticSite(site));
        if (domain != null) s.engine().routes().setDomain(domain, project);
    }

    /**
     * The server loaded the domain's current certificate and its HTTPS listener hands it out: the edge process is sent
     * a certificate the server loaded within a quarter second, so a handshake right after the load may find none yet.
     */
    static void awaitServed(Slipway server, String domain, Duration timeout) {
        Await.until(timeout, domain + "'s certificate served by the listener", () -> {
            X509Certificate loaded = server.tls().certificates().leaf(domain);
            return loaded != null && loaded.equals(handedOut(server, domain));
        });
    }

    /** The server dropped the domain's certificate, and its HTTPS listener no longer hands one out. */
    static void awaitNotServed(Slipway server, String domain, Duration timeout) {
        Await.until(timeout, domain + "'s certificate no longer served", () ->
                server.tls().certificates().leaf(domain) == null && handedOut(server, domain) == null);
    }

    private static X509Certificate handedOut(Slipway server, String domain) {
        try {
            return TlsClient.probe(server.appsHttpsPort(), domain).leaf();
        } catch (Exception none) {
            return null;
        }
    }

    @Override
    public void close() {
        release(held);
        for (Slipway s : List.copyOf(servers)) {
            try {
                s.close();
            } catch (RuntimeException ignored) {
                // the next ones still close
            }
        }
        pebble.close();
        dns.close();
        store.close();
    }
}
