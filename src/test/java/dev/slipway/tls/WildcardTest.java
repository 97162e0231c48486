package dev.slipway.tls;

import dev.slipway.config.ServerConfig;
import dev.slipway.router.Target;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.TestServer;
import dev.slipway.testing.TestStore;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLHandshakeException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The operator's wildcard certificate for {@code *.<apps domain>} (SLIPWAY_APPS_TLS_CERT / _KEY): served by SNI
 * for project addresses, one label deep only, and a certificate that cannot be read stops the start with its reason,
 * as does a key that other users may read.
 */
@EachStore
@EndToEnd
class WildcardTest {
    private final Dialect kind;

    WildcardTest(Dialect kind) {
        this.kind = kind;
    }

    @Test
    void projectAddressesAreServedWithTheOperatorsWildcardCertificate() throws Exception {
        Path dir = Files.createTempDirectory("wildcard-");
        TestCertificates certificates = TestCertificates.wildcardLocalhost(dir);
        X509Certificate ca = certificates.ca();
        X509Certificate leaf = certificates.leaf();
        Path key = certificates.key();
        // a key every user (and before the sandbox's own /etc, every app) could read: refused, with the fix
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> TestServer.start(kind, c -> c.appsHttpsPort(0).appsTlsCertificate(certificates.cert(), key)))
                .hasMessageContaining("the apps TLS key " + key + " is readable by other users")
                .hasMessageContaining("chmod 600 " + key);
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r-----")); // a group the operator chose may read it
        try (TestServer server = TestServer.start(kind, c -> c.appsHttpsPort(0)
                .appsTlsCertificate(dir.resolve("cert.pem"), dir.resolve("key.pem")))) {
            Path site = Files.createDirectories(server.store().dataDir().resolve("site"));
            Files.writeString(site.resolve("index.html"), "wildcard site");
            server.slipway().engine().routes().setProduction("wired", new Target.StaticSite(site));
            int https = server.slipway().appsHttpsPort();

            var page = new TlsClient(ca).get(https, "wired.localhost", "/");
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.body()).contains("wildcard site");
            assertThat(page.chain().getFirst()).isEqualTo(leaf);
            assertThat(page.header("strict-transport-security")).isNull(); // the project did not opt in

            var redirect = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.slipway().appsPort() + "/x"))
                            .header("Host", "wired.localhost").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(redirect.statusCode()).isEqualTo(308);
            assertThat(redirect.headers().firstValue("Location")).hasValue("https://wired.localhost:" + https + "/x");

            // two labels deep is not covered by *.localhost; another domain gets nothing
            assertThatThrownBy(() -> new TlsClient(ca).get(https, "a.wired.localhost", "/")).isInstanceOf(SSLHandshakeException.class);
            assertThatThrownBy(() -> new TlsClient(ca).get(https, "bank.example.test", "/")).isInstanceOf(SSLHandshakeException.class);
        }
        // a key that is not a key: the server refuses to start and says which file
        Files.writeString(dir.resolve("bad.pem"), "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
        Files.setPosixFilePermissions(dir.resolve("bad.pem"), PosixFilePermissions.fromString("rw-------"));
        assertThatThrownBy(() -> TestServer.start(kind, c -> c.appsHttpsPort(0)
                .appsTlsCertificate(dir.resolve("cert.pem"), dir.resolve("bad.pem"))))
                .hasMessageContaining("cert.pem").hasMessageContaining("cannot be read");
        assertThatThrownBy(() -> ServerConfig.builder(dir).appsTlsCertificate(dir.resolve("cert.pem"), null).build())
                .hasMessageContaining("set both or neither");
        TestStore.deleteTree(dir);
    }
}
