package dev.slipway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.slipway.accounts.Tier;
import dev.slipway.store.Dialect;
import dev.slipway.testing.Apps;
import dev.slipway.testing.Await;
import dev.slipway.testing.EachStore;
import dev.slipway.testing.EndToEnd;
import dev.slipway.testing.ServerPerStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** POST /v1/deployments/{id}/cancel on a queued, a building and a finished deployment. */
@EachStore
@EndToEnd
class CancelTest {
    final Dialect kind = server.kind();

    @RegisterExtension
    static final ServerPerStore server = ServerPerStore.withGit(c -> c.buildSlots(1));
    static Runs runs;

    @EachStore.Before
    static void start() {
        runs = new Runs(server.tenant(Tier.TEAM).http());
    }

    @Test
    void cancelQueuedThenBuildingKeepsProductionAndKillsTheBuild() {
        String repo = "acme/cancel-" + kind.name().toLowerCase();
        server.git().createRepo(repo);
        server.git().commit(repo, "main", NodeApp.version("v1"), "v1");
        String migration = runs.migrate(repo);
        runs.awaitMigration(migration, "complete");
        String projectId = runs.projectOf(migration);
        JsonNode project = runs.http().get("/v1/projects/" + projectId).json().get("data");
        String production = project.get("production_deployment_id").asText();
        String productionUrl = project.get("url").asText();
        assertThat(Apps.get(productionUrl).body()).startsWith("app:v1");

        // a build that would take a minute, and a deployment queued behind it
        String marker = Runs.marker("cancel-marker");
        server.git().commit(repo, "main", NodeApp.slowBuild("v2", 60_000, marker), "slow v2");
        String building = runs.deploy(projectId);
        Await.until(Runs.RUN, "the slow build to run", () -> !Runs.processesWithArg(marker).isEmpty());
        assertThat(runs.deployment(building).get("status").asText()).isEqualTo("building");
        String queued = runs.deploy(projectId);
        // it stays queued while the project's earlier deployment builds
        JsonNode stillQueued = runs.http().get("/v1/deployments/" + queued + "?wait=1").json().get("data");
        assertThat(stillQueued.get("status").asText()).isEqualTo("queued");

        // cancel the queued one: failed at once, with a log entry saying so
        var cancelQueued = runs.http().send("POST", "/v1/deployments/" + queued + "/cancel", null, null);
        assertThat(cancelQueued.status()).as(cancelQueued.body()).isEqualTo(200);
        assertThat(cancelQueued.json().at("/data/status").asText()).isEqualTo("failed");
        assertThat(runs.messages("deployments", queued)).anyMatch(m -> m.startsWith("error") && m.contains("cancelled"));
        assertThat(runs.deployment(building).get("status").asText()).isEqualTo("building");

        // cancel the building one: the build command is killed, the deployment fails, production stays
        var cancelBuilding = runs.http().send("POST", "/v1/deployments/" + building + "/cancel", null, null);
        assertThat(cancelBuilding.status()).as(cancelBuilding.body()).isEqualTo(200);
        runs.await("deployments", building, "failed", Duration.ofSeconds(20));
        assertThat(runs.messages("deployments", building)).anyMatch(m -> m.startsWith("error") && m.contains("cancelled"));
        Await.until(Duration.ofSeconds(15), "the cancelled build's processes to be gone",
                () -> Runs.processesWithArg(marker).isEmpty());
        JsonNode after = runs.http().get("/v1/projects/" + projectId).json().get("data");
        assertThat(after.get("production_deployment_id").asText()).isEqualTo(production);
        assertThat(runs.deployment(production).get("status").asText()).isEqualTo("live");
        assertThat(Apps.get(productionUrl).body()).startsWith("app:v1");

        // finished deployments cannot be cancelled
        for (String id : new String[]{production, building, queued}) {
            var r = runs.http().send("POST", "/v1/deployments/" + id + "/cancel", null, null);
            assertThat(r.status()).as(id + ": " + r.body()).isEqualTo(409);
            assertThat(r.json().at("/error/code").asText()).isEqualTo("invalid_state");
        }
        // another account's deployment: 403; none at all: 404
        var stranger = server.tenant(Tier.TEAM).http().send("POST", "/v1/deployments/" + production + "/cancel", null, null);
        assertThat(stranger.status()).isEqualTo(403);
        assertThat(runs.http().send("POST", "/v1/deployments/dep_00000000000000000000000000/cancel", null, null).status())
                .isEqualTo(404);

        // the project's queue is not stuck: the next deployment goes live
        server.git().commit(repo, "main", NodeApp.version("v3"), "v3");
        String next = runs.deploy(projectId);
        runs.awaitDeployment(next, "live");
        assertThat(Apps.get(productionUrl).body()).startsWith("app:v3");
    }
}
