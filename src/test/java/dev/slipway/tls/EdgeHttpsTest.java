package dev.slipway.tls;

import dev.slipway.config.ServerConfig;
import dev.slipway.edge.EdgeSettings;
import dev.slipway.router.Target;
import dev.slipway.server.Slipway;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLHandshakeException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Automatic HTTPS served by the edge process: its certificates are the server's, sent over the edge's socket, and it
 * goes on serving them (and redirecting plain HTTP) while no server runs; the next server adopts it on the same ports.
 * The ACME challenges through the edge are what {@link HttpsTest} and {@link AlpnTest} prove (their servers run one).
 */
@EachStore
@EndToEnd
class EdgeHttpsTest {
    private static final Duration SERVED = Duration.ofSeconds(30);

    private final Dialect kind;

    EdgeHttpsTest(Dialect kind) {
        this.kind = kind;
    }

    @Test
    void theEdgeServesHttpsWhileNoServerRunsAndTheNextServerAdoptsIt() throws Exception {
        Path dir = Files.createTempDirectory("edge-https-");
        TestCertificates certificates = TestCertificates.wildcardLocalhost(dir);
        Files.setPosixFilePermissions(certificates.key(), PosixFilePermissions.fromString("rw-------"));
        TlsClient browser = new TlsClient(certificates.ca());
        try (TestStore store = TestStore.create(kind)) {
            Slipway first = start(store, 0, 0, certificates);
            Slipway second = null;
            long edge = first.edge() == null ? 0 : first.edge().pid();
            try {
                assertThat(first.edge()).as("the apps listener is the edge process").isNotNull();
                assertThat(first.edge().httpsPort()).isEqualTo(first.appsHttpsPort());
                int apps = first.appsPort();
                int https = first.appsHttpsPort();
                assertThat(edge).isNotEqualTo(ProcessHandle.current().pid());
                assertThat(first.awaitRecovery(SERVED)).isTrue();
                Path site = Files.createDirectories(store.dataDir().resolve("site"));
                Files.writeString(site.resolve("index.html"), "served by the edge");
                first.engine().routes().setProduction("wired", new Target.StaticSite(site));

                TlsClient.Response page = Await.value(SERVED, "wired.localhost over HTTPS from the edge", () -> served(browser, https));
                assertThat(page.body()).contains("served by the edge");
                assertThat(page.chain().getFirst()).isEqualTo(certificates.leaf());
                assertThat(redirect(apps)).isEqualTo("https://wired.localhost:" + https + "/x");

                // the server stops (an upgrade); the edge keeps serving HTTPS with the certificate it was sent
                first.leave();
                first = null;
                assertThat(ProcessHandle.of(edge)).as("the edge outlives the server").isPresent();
                page = browser.get(https, "wired.localhost", "/");
                assertThat(page.status()).isEqualTo(200);
                assertThat(page.body()).contains("served by the edge");
                assertThat(page.chain().getFirst()).isEqualTo(certificates.leaf());
                assertThat(redirect(apps)).as("plain HTTP is still redirected").isEqualTo("https://wired.localhost:" + https + "/x");
                // a name no certificate covers gets none, server or not
                assertThatThrownBy(() -> browser.get(https, "bank.example.test", "/")).isInstanceOf(SSLHandshakeException.class);
                // an ACME CA's validation request gets nothing while no server can answer it
                var challenge = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + apps + "/.well-known/acme-challenge/abcDEF123"))
                        .header("Host", "wired.localhost").build(), HttpResponse.BodyHandlers.ofString());
                assertThat(challenge.statusCode()).isEqualTo(404);

                // the next server adopts the edge on the same ports: the apps' addresses do not change
                second = start(store, apps, https, certificates);
                assertThat(second.edge().adopted()).isTrue();
                assertThat(second.edge().pid()).isEqualTo(edge);
                assertThat(second.appsHttpsPort()).isEqualTo(https);
                assertThat(browser.get(https, "wired.localhost", "/").chain().getFirst()).isEqualTo(certificates.leaf());
            } finally {
                if (first != null) first.close();
                if (second != null) second.close();
            }
            Await.until(SERVED, "the edge to stop with the server that closed", () -> ProcessHandle.of(edge).isEmpty());
        } finally {
            TestStore.deleteTree(dir);
        }
    }

    private static Slipway start(TestStore store, int apps, int https, TestCertificates certificates) throws Exception {
        ServerConfig config = ServerConfig.builder(store.dataDir()).environment(System.getenv()).ports(0, apps)
                .databaseUrl(store.jdbcUrl()).secretKey(store.secretKey()).createDefaultAccount(false)
                .appsHttpsPort(https).appsTlsCertificate(certificates.cert(), certificates.key()).edge(EdgeSettings.PROCESS).build();
        return Slipway.start(config, Clock.systemUTC(), new PrintStream(OutputStream.nullOutputStream()));
    }

    private static TlsClient.Response served(TlsClient browser, int https) {
        try {
            TlsClient.Response r = browser.get(https, "wired.localhost", "/");
            return r.status() == 200 ? r : null;
        } catch (Exception notYet) {
            return null;
        }
    }

    /** Where the edge sends a plain-HTTP request for the project's address. */
    private static String redirect(int apps) throws Exception {
        var r = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + apps + "/x")).header("Host", "wired.localhost").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(308);
        return r.headers().firstValue("Location").orElse(null);
    }
}
