package dev.slipway.router;

import dev.slipway.accounts.Tier;
import dev.slipway.projects.NewProject;
import dev.slipway.store.Dialect;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.TestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The server runs its apps listener on a port of its own and reports app URLs with the bound port. */
@EndToEnd
class ServerWiringTest {
    @Test
    void theServerHasAnAppsListenerAndAppUrlsUseItsBoundPort() {
        try (TestServer server = TestServer.start(Dialect.H2)) {
            int appsPort = server.slipway().appsPort();
            assertThat(appsPort).isPositive().isNotEqualTo(server.slipway().apiPort());
            assertThat(server.slipway().config().listeners().appsPort()).isEqualTo(appsPort);

            var r = new AppsClient(appsPort).get("nothing.localhost", "/");
            assertThat(r.status()).isEqualTo(404);
            assertThat(r.body()).contains("No app at nothing.localhost");

            var tenant = server.tenant(Tier.TEAM);
            var project = server.slipway().projects().create(new NewProject(tenant.account().id(), "wired", "github",
                    "acme/wired", "main", null, "us-east-1", null, Map.of()));
            var view = tenant.http().get("/v1/projects/" + project.id());
            assertThat(view.status()).isEqualTo(200);
            assertThat(view.json().at("/data/url").asText()).isEqualTo("http://wired.localhost:" + appsPort);

            var engine = server.slipway().engine();
            engine.routes().setProduction("wired", new Target.StaticSite(TestStoreDirs.withIndex(server.store().dataDir())));
            assertThat(new AppsClient(appsPort).get("wired.localhost", "/").body()).isEqualTo("wired");
            assertThat(engine.runtime().regions()).containsExactly("us-east-1");
        }
    }

    /** A one-file static site. */
    static final class TestStoreDirs {
        static Path withIndex(Path dataDir) {
            try {
                Path site = Files.createDirectories(dataDir.resolve("site"));
                Files.writeString(site.resolve("index.html"), "wired");
                return site;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
