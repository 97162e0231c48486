package dev.slipway.tls;

import dev.slipway.testing.Await;
import dev.slipway.testing.TestStore;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.math.BigInteger;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;

/**
 * Debian's Pebble (the Let's Encrypt test CA) on free loopback ports, with a config file and a TLS certificate
 * of its own in a temp dir. Its validation authority resolves names with {@link LoopbackDns}, fetches
 * HTTP-01 answers from {@code httpPort} (the apps listener's) and makes TLS-ALPN-01 handshakes to {@code tlsPort}.
 */
final class Pebble implements AutoCloseable {
    static final Path BINARY = Path.of("/usr/bin/pebble");

    private final Process process;
    private final Path dir;
    private final int acmePort;
    private final int managementPort;
    private final HttpClient client;
    private final Path logFile;

    private Pebble(Process process, Path dir, int acmePort, int managementPort, HttpClient client, Path logFile) {
        this.process = process;
        this.dir = dir;
        this.acmePort = acmePort;
        this.managementPort = managementPort;
        this.client = client;
        this.logFile = logFile;
    }

    static Pebble start(int httpPort, LoopbackDns dns) throws Exception {
        return start(httpPort, freePort(), dns);
    }

    /** @param tlsPort where the validation authority connects for TLS-ALPN-01 (the apps HTTPS listener's) */
    static Pebble start(int httpPort, int tlsPort, LoopbackDns dns) throws Exception {
        if (!Files.isExecutable(BINARY)) throw new AssertionError("pebble is not installed at " + BINARY + " (apt-get install pebble)");
        Path dir = Files.createTempDirectory("pebble-");
        X509Certificate cert = selfSigned(dir);
        int acme = freePort();
        int management = freePort();
        Files.writeString(dir.resolve("config.json"), """
                {"pebble": {"listenAddress": "127.0.0.1:%d", "managementListenAddress": "127.0.0.1:%d",
                  "certificate": "%s", "privateKey": "%s", "httpPort": %d, "tlsPort": %d,
                  "ocspResponderURL": "", "externalAccountBindingRequired": false}}"""
                .formatted(acme, management, dir.resolve("cert.pem"), dir.resolve("key.pem"), httpPort, tlsPort));
        Path log = dir.resolve("pebble.log");
        ProcessBuilder pb = new ProcessBuilder(BINARY.toString(), "-config", dir.resolve("config.json").toString(),
                "-dnsserver", dns.address()).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("PEBBLE_VA_NOSLEEP", "1");
        pb.environment().put("PEBBLE_WFE_NONCEREJECT", "0");
        pb.environment().put("PEBBLE_AUTHZREUSE", "0");
        Process process = pb.start();
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        trust.setCertificateEntry("pebble", cert);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        HttpClient client = HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(5)).build();
        Pebble pebble = new Pebble(process, dir, acme, management, client, log);
        try {
            Await.until(Duration.ofSeconds(20), "pebble's directory answers", pebble::answers);
        } catch (AssertionError e) {
            pebble.close();
            throw new AssertionError(e.getMessage() + "; pebble said: " + Files.readString(log), e);
        }
        return pebble;
    }

    private boolean answers() {
        if (!process.isAlive()) throw new AssertionError("pebble exited with " + process.exitValue());
        try {
            return client.send(HttpRequest.newBuilder(URI.create(directoryUrl())).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    String directoryUrl() {
        return "https://127.0.0.1:" + acmePort + "/dir";
    }

    /** The PEM certificate pebble's own HTTPS uses: what the server is told to trust (SLIPWAY_ACME_CA_PEM). */
    Path caPem() {
        return dir.resolve("cert.pem");
    }

    /** The root CA of the certificates pebble issues, from its management API. */
    X509Certificate root() throws Exception {
        String pem = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + managementPort + "/roots/0")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        return Pem.chain(pem).getFirst();
    }

    String log() {
        try {
            return Files.readString(logFile);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static X509Certificate selfSigned(Path dir) throws Exception {
        KeyPair key = Pem.newKeyPair();
        X500Name name = new X500Name("CN=pebble test listener");
        Instant now = Instant.now();
        var builder = new JcaX509v3CertificateBuilder(name, BigInteger.valueOf(now.toEpochMilli()), Date.from(now.minusSeconds(60)),
                Date.from(now.plus(Duration.ofDays(2))), name, key.getPublic());
        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[]{
                new GeneralName(GeneralName.iPAddress, "127.0.0.1"), new GeneralName(GeneralName.dNSName, "localhost")}));
        X509Certificate cert = new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key.getPrivate())));
        Files.writeString(dir.resolve("cert.pem"), Pem.chain(List.of(cert)));
        Files.writeString(dir.resolve("key.pem"), Pem.privateKey(key.getPrivate()));
        return cert;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        TestStore.deleteTree(dir);
    }
}
