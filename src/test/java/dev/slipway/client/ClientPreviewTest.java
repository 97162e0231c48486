package dev.slipway.client;

import dev.slipway.accounts.Tier;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.ServerPerStore;
import dev.slipway.testing.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code slipway deploy --preview --branch} and {@code slipway promote}, with a static site (no build). */
@EachStore
@EndToEnd
class ClientPreviewTest {
    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.withGit();

    static Map<String, String> site(String text) {
        return Map.of("index.html", "<!doctype html><p>" + text + "</p>");
    }

    @Test
    void aPreviewOfABranchWaitsAndPrintsItsAddressesThenPromoteMakesItProduction() {
        TestServer.Tenant tenant = server.tenant(Tier.TEAM);
        Map<String, String> env = Map.of("SLIPWAY_API_URL", server.baseUrl(), "SLIPWAY_API_KEY", tenant.key());
        String repo = "acme/cli-preview-" + UUID.randomUUID().toString().substring(0, 8);
        server.git().createRepo(repo);
        server.git().commit(repo, "main", site("cli main"), "main");
        server.git().commit(repo, "feature/cli", site("cli feature"), "feature");
        var r = tenant.http().post("/v1/projects", "{\"source\":\"github\",\"repo\":\"" + repo + "\",\"framework\":\"static\"}");
        String projectId = r.json().at("/data/id").asText();
        String production = r.json().at("/data/url").asText();

        Cli.Result live = Cli.run(env, "deploy", "--project", projectId, "--wait");
        assertThat(live.exit()).as(live.toString()).isZero();

        Cli.Result preview = Cli.run(env, "deploy", "--project", projectId, "--preview", "--branch", "feature/cli", "--wait");
        assertThat(preview.exit()).as(preview.toString()).isZero();
        assertThat(preview.out()).contains("Preview dep_").contains("-git-feature-cli-").contains("production is unchanged");
        String previewId = ClientRunTest.deploymentId(preview.out());
        Await.until(Duration.ofSeconds(60), "production unchanged", () -> Apps.get(production).body().contains("cli main"));

        Cli.Result promoted = Cli.run(env, "promote", previewId, "--wait");
        assertThat(promoted.exit()).as(promoted.toString()).isZero();
        assertThat(promoted.out()).contains("the build of preview " + previewId + " becomes production").contains("in production");
        Await.until(Duration.ofSeconds(60), "the promoted build in production", () -> Apps.get(production).body().contains("cli feature"));

        Cli.Result refused = Cli.run(env, "deploy", "--project", projectId, "--branch", "feature/cli");
        assertThat(refused.exit()).as(refused.toString()).isEqualTo(4);
        assertThat(refused.err()).contains("preview");
    }
}
